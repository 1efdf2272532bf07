import { Table, TableColumn, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who may enter which application (docs/product-rules.md, "Application access"): a project's roles, keyed
 * (project, key) and compared exactly (binary collation on MariaDB); its grants, each to one user or one group,
 * unique per (project, user) and per (project, group), the role keys kept as a JSON list on the grant — the
 * effective lookup reads a user's grant and its groups' grants of one project (at most one row each, found through
 * the unique indexes) and unions their lists. `ix_project_grants_user` / `_group` answer a user's grants across
 * projects. Applications gain `access` (`everyone` | `granted`) and an optional `home_url`.
 */
export class ProjectAccess1795760606822 implements MigrationInterface {
  name = 'ProjectAccess1795760606822';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'project_roles',
        engine,
        columns: [
          { name: 'project_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'role_key', type: 'varchar', length: '100', isPrimary: true },
          { name: 'display_name', type: 'varchar', length: '200', isNullable: true },
          { name: 'description', type: 'varchar', length: '1000', isNullable: true },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_project_roles_project',
            columnNames: ['project_id'],
            referencedTableName: 'projects',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'project_grants',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_project_grants' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'project_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'group_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'roles', type: 'text', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
        indices: [
          new TableIndex({ name: 'ux_project_grants_user', columnNames: ['project_id', 'user_id'], isUnique: true }),
          new TableIndex({ name: 'ux_project_grants_group', columnNames: ['project_id', 'group_id'], isUnique: true }),
          new TableIndex({ name: 'ix_project_grants_user', columnNames: ['user_id'] }),
          new TableIndex({ name: 'ix_project_grants_group', columnNames: ['group_id'] }),
          new TableIndex({ name: 'ix_project_grants_created', columnNames: ['project_id', 'created_at', 'id'] }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_project_grants_project',
            columnNames: ['project_id'],
            referencedTableName: 'projects',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
          new TableForeignKey({
            name: 'fk_project_grants_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
          new TableForeignKey({
            name: 'fk_project_grants_group',
            columnNames: ['group_id'],
            referencedTableName: 'org_groups',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
    await runner.addColumns('applications', [
      new TableColumn({ name: 'access', type: 'varchar', length: '16', isNullable: false, default: "'everyone'" }),
      new TableColumn({ name: 'home_url', type: 'varchar', length: '2000', isNullable: true }),
    ]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('applications', 'home_url');
    await runner.dropColumn('applications', 'access');
    await runner.dropTable('project_grants', true, true, true);
    await runner.dropTable('project_roles', true, true, true);
  }
}
