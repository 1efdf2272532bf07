import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

@Entity({ name: 'personal_access_tokens' })
export class PersonalAccessTokenEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  /** Keyed hash of the token; the token itself is shown once. */
  @Column({ name: 'token_hash', type: 'varchar', length: 100 })
  tokenHash: string;

  @Column({ name: 'expires_at', ...timestampColumn, nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;
}
