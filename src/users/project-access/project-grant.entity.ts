import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn, timestampColumn } from '../../common/database/columns.js';

/**
 * Admission to one project's applications for one user or every member of one group (exactly one of the two),
 * with role keys of that project, possibly none (docs/product-rules.md, "Application access").
 */
@Entity({ name: 'project_grants' })
export class ProjectGrantEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  @Column({ name: 'project_id', type: 'varchar', length: 64 })
  projectId: string;

  @Column({ name: 'user_id', type: 'varchar', length: 64, nullable: true })
  userId: string | null;

  @Column({ name: 'group_id', type: 'varchar', length: 64, nullable: true })
  groupId: string | null;

  /** Role keys, sorted by code point. */
  @Column({ ...jsonColumn })
  roles: string[];

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
