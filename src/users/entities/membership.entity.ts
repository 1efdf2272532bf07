import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

type MembershipScope = 'instance' | 'org';

/** Roles a user holds on the instance or on one organization (`scope_id` = 'instance' or the org id). */
@Entity({ name: 'memberships' })
export class MembershipEntity {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @PrimaryColumn({ name: 'scope_type', type: 'varchar', length: 16 })
  scopeType: MembershipScope;

  @PrimaryColumn({ name: 'scope_id', type: 'varchar', length: 64 })
  scopeId: string;

  /** Comma-separated role names. */
  @Column({ type: 'varchar', length: 255 })
  roles: string;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
