import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

/** A group of one organization's users (docs/product-rules.md, "Groups"). */
@Entity({ name: 'org_groups' })
export class GroupEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  @Column({ name: 'display_name', type: 'varchar', length: 255 })
  displayName: string;

  /** `foldCase(displayName)`: unique per organization, so names differing only in case collide. */
  @Column({ name: 'display_name_key', type: 'varchar', length: 255 })
  displayNameKey: string;

  @Column({ name: 'external_id', type: 'varchar', length: 255, nullable: true })
  externalId: string | null;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
