import { Table, TableColumn, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the password policy's history and maximum age and the lockout's lock time need (docs/operations.md,
 * "Settings"). `password_history` keeps a person's previous password hashes (as the users table keeps the current
 * one, never the password), newest first by `replaced_at`. `users.password_changed_at` is when the current password
 * was set; null means when the user was made (`created_at`). Passwords that exist now count from this upgrade, so
 * turning a maximum age on never expires every password at once. `users.failures_locked_at` is when failed checks
 * locked the user (null: not locked, or locked by an administrator, which no lock time ends).
 */
export class PasswordHistory1795834593384 implements MigrationInterface {
  name = 'PasswordHistory1795834593384';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'password_history',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_password_history' },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'password_hash', type: 'varchar', length: '255', isNullable: false },
          { name: 'replaced_at', type: 'bigint', isNullable: false },
        ],
        indices: [new TableIndex({ name: 'ix_password_history_user', columnNames: ['user_id', 'replaced_at'] })],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_password_history_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
      }),
    );
    await runner.addColumns('users', [
      new TableColumn({ name: 'password_changed_at', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'failures_locked_at', type: 'bigint', isNullable: true }),
    ]);
    await runner.query('UPDATE users SET password_changed_at = ? WHERE password_hash IS NOT NULL', [Date.now()]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('users', 'failures_locked_at');
    await runner.dropColumn('users', 'password_changed_at');
    await runner.dropTable('password_history', true, true, true);
  }
}
