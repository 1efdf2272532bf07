import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Groups of an organization's users (docs/product-rules.md, "Groups"). `display_name_key` is the folded
 * display name (src/common/text/case-fold.ts), unique per organization, so SQLite and MariaDB agree on
 * which names collide. Members are keyed (group, user): adding or removing one member is one index
 * write whatever the group's size (the table is `org_groups`: GROUPS is a reserved word of MySQL 8); `ix_group_members_user` answers a user's groups.
 */
export class Groups1763701500000 implements MigrationInterface {
  name = 'Groups1763701500000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'org_groups',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_org_groups' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'display_name', type: 'varchar', length: '255', isNullable: false },
          { name: 'display_name_key', type: 'varchar', length: '255', isNullable: false },
          { name: 'external_id', type: 'varchar', length: '255', isNullable: true },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
        indices: [
          new TableIndex({ name: 'ux_org_groups_display_name', columnNames: ['org_id', 'display_name_key'], isUnique: true }),
          new TableIndex({ name: 'ix_org_groups_external_id', columnNames: ['org_id', 'external_id'] }),
          new TableIndex({ name: 'ix_org_groups_created', columnNames: ['org_id', 'created_at', 'id'] }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_org_groups_org',
            columnNames: ['org_id'],
            referencedTableName: 'organizations',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'group_members',
        engine,
        columns: [
          { name: 'group_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'user_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'added_at', type: 'bigint', isNullable: false },
        ],
        indices: [new TableIndex({ name: 'ix_group_members_user', columnNames: ['user_id', 'group_id'] })],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_group_members_group',
            columnNames: ['group_id'],
            referencedTableName: 'org_groups',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
          new TableForeignKey({
            name: 'fk_group_members_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('group_members', true, true, true);
    await runner.dropTable('org_groups', true, true, true);
  }
}
