import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

/** A role an application of one project knows (docs/product-rules.md, "Application access"); the key is compared exactly. */
@Entity({ name: 'project_roles' })
export class ProjectRoleEntity {
  @PrimaryColumn({ name: 'project_id', type: 'varchar', length: 64 })
  projectId: string;

  @PrimaryColumn({ name: 'role_key', type: 'varchar', length: 100 })
  key: string;

  @Column({ name: 'display_name', type: 'varchar', length: 200, nullable: true })
  displayName: string | null;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  description: string | null;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
