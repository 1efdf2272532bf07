import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

/** One of a recovery-codes factor's ten codes, as a keyed hash; `usedAt` is set by its one use. */
@Entity({ name: 'recovery_codes' })
export class RecoveryCodeEntity {
  @PrimaryColumn({ name: 'factor_id', type: 'varchar', length: 64 })
  factorId: string;

  @PrimaryColumn({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash: string;

  @Column({ name: 'used_at', ...timestampColumn, nullable: true })
  usedAt: Date | null;
}
