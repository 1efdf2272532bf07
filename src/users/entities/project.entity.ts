import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

/** Groups applications; its id is part of the audience of their tokens (docs/product-rules.md, "OpenID Connect and OAuth"). */
@Entity({ name: 'projects' })
export class ProjectEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
