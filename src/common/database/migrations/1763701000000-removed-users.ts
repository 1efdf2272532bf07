import { Table } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Ids of removed users, kept so that no later user gets one: relying parties key accounts on `sub`,
 * which OpenID Connect Core §2 says is never reassigned. Only the id and when it went; nothing personal.
 */
export class RemovedUsers1763701000000 implements MigrationInterface {
  name = 'RemovedUsers1763701000000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    await runner.createTable(
      new Table({
        name: 'removed_users',
        engine: mysql ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_removed_users' },
          { name: 'removed_at', type: 'bigint', isNullable: false },
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('removed_users', true, true, true);
  }
}
