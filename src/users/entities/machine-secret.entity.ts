import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

/** A machine user's client secret for `client_credentials` (one at a time; a new one replaces it). */
@Entity({ name: 'machine_secrets' })
export class MachineSecretEntity {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @Column({ name: 'secret_hash', type: 'varchar', length: 100 })
  secretHash: string;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;
}
