import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Moving in from Keycloak, Auth0 and ZITADEL (docs/migrating.md): each run's report, and what each source object
 * became here, so that running a migration again changes nothing.
 */
export class Migrations1795830288582 implements MigrationInterface {
  name = 'Migrations1795830288582';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    const engine = mysql ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'migration_runs',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_migration_runs' },
          { name: 'source', type: 'varchar', length: '16', isNullable: false },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'dry_run', type: 'boolean', isNullable: false },
          { name: 'editor_user_id', type: 'varchar', length: '64', isNullable: false },
          // A report lists every unmapped field of an export: far beyond MySQL's TEXT (64 KB).
          { name: 'report', type: mysql ? 'longtext' : 'text', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
        ],
        indices: [new TableIndex({ name: 'ix_migration_runs_created', columnNames: ['created_at', 'id'] })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'migrated_objects',
        engine,
        columns: [
          { name: 'source', type: 'varchar', length: '16', isPrimary: true, primaryKeyConstraintName: 'pk_migrated_objects' },
          { name: 'container', type: 'varchar', length: '128', isPrimary: true, primaryKeyConstraintName: 'pk_migrated_objects' },
          { name: 'kind', type: 'varchar', length: '32', isPrimary: true, primaryKeyConstraintName: 'pk_migrated_objects' },
          { name: 'source_id', type: 'varchar', length: '255', isPrimary: true, primaryKeyConstraintName: 'pk_migrated_objects' },
          { name: 'target_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'fingerprint', type: 'varchar', length: '64', isNullable: false },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('migrated_objects', true, true, true);
    await runner.dropTable('migration_runs', true, true, true);
  }
}
