import { Table, TableForeignKey } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The number of human users of each organization, kept in the transactions that add and remove them
 * (src/users/org-user-counts.ts). SCIM's unfiltered `totalResults` reads it instead of counting
 * 100,000 index entries per page; the row also stands for "the organization exists" when users are added.
 */
export class OrgUserCounts1763700400000 implements MigrationInterface {
  name = 'OrgUserCounts1763700400000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    await runner.createTable(
      new Table({
        name: 'org_user_counts',
        columns: [
          { name: 'org_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_org_user_counts' },
          { name: 'humans', type: 'int' },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_org_user_counts_org',
            columnNames: ['org_id'],
            referencedTableName: 'organizations',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
        engine: mysql ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined,
      }),
    );
    await runner.query(
      `INSERT INTO org_user_counts (org_id, humans)
       SELECT o.id, (SELECT COUNT(*) FROM users u WHERE u.org_id = o.id AND u.type = 'human') FROM organizations o`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('org_user_counts', true, true);
  }
}
