import { Column, Entity, PrimaryColumn } from 'typeorm';
import { jsonColumn, timestampColumn } from '../common/database/columns.js';
import type { JsonDocument } from '../common/database/columns.js';

/** One run of a migration and its report, which never holds a secret (docs/migrating.md, "The report"). */
@Entity({ name: 'migration_runs' })
export class MigrationRunEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 16 })
  source: string;

  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  @Column({ name: 'dry_run', type: 'boolean' })
  dryRun: boolean;

  @Column({ name: 'editor_user_id', type: 'varchar', length: 64 })
  editorUserId: string;

  @Column({ ...jsonColumn })
  report: JsonDocument;

  @Column({ name: 'created_at', ...timestampColumn })
  createdAt: Date;
}
