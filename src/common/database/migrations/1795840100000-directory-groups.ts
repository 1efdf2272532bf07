import { Table, TableColumn, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A directory's groups (src/directories; docs/directories.md, "Groups"): each group the sync brought, linked to its
 * Portcullis group by the entry's stable id (`entryUUID` / `objectGUID`), never its DN, so a rename or a move keeps
 * the group and its grants; and what each sync did to groups. A link goes with its group.
 */
export class DirectoryGroups1795840100000 implements MigrationInterface {
  name = 'DirectoryGroups1795840100000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'directory_groups',
        engine,
        columns: [
          { name: 'directory_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_directory_groups' },
          // entryUUID or objectGUID, as text.
          { name: 'external_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'group_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'dn', type: 'varchar', length: '1024', isNullable: false },
          { name: 'synced_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_directory_groups_directory',
            columnNames: ['directory_id'],
            referencedTableName: 'directories',
            referencedColumnNames: ['id'],
          }),
          new TableForeignKey({
            name: 'fk_directory_groups_group',
            columnNames: ['group_id'],
            referencedTableName: 'org_groups',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
        indices: [new TableIndex({ name: 'ux_directory_groups_group', columnNames: ['group_id'], isUnique: true })],
      }),
    );
    // {created, updated, removed, unchanged, failed} of groups, as JSON; null for syncs from before groups.
    await runner.addColumn('directory_syncs', new TableColumn({ name: 'group_counts', type: 'text', isNullable: true }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('directory_syncs', 'group_counts');
    await runner.dropTable('directory_groups', true, true, true);
  }
}
