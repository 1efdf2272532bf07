import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Failed password checks of the login UI, counted per fixed time window and per key (a keyed hash of
 * the client IP or of the lower-cased login name, never the value itself), so every process of an
 * instance sees the same counts and a database dump names no one. Rows of past windows are purged.
 */
export class LoginAttempts1763700500000 implements MigrationInterface {
  name = 'LoginAttempts1763700500000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    await runner.createTable(
      new Table({
        name: 'login_attempts',
        engine: mysql ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined,
        columns: [
          { name: 'key_hash', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_login_attempts' },
          // Epoch seconds at which the window starts.
          { name: 'window_start', type: 'bigint', isPrimary: true, primaryKeyConstraintName: 'pk_login_attempts' },
          { name: 'failures', type: 'integer', isNullable: false, default: 0 },
        ],
        indices: [new TableIndex({ name: 'ix_login_attempts_window', columnNames: ['window_start'] })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('login_attempts', true, true, true);
  }
}
