import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OpenID Connect Back-Channel Logout 1.0 (docs/oauth-profiles.md): the outbox of logout tokens. A row is
 * one logout token owed to one application for one ended session, written in the transaction that ended the session;
 * every process sends due rows under a lease (`lease_owner`, `leased_until`), retried on the webhooks' schedule.
 * `id` is the token's `jti` (the same on every retry). A removed application takes its rows with it.
 */
export class BackchannelLogout1763703400000 implements MigrationInterface {
  name = 'BackchannelLogout1763703400000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'backchannel_logouts',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_backchannel_logouts' },
          { name: 'app_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'sid', type: 'varchar', length: '64', isNullable: true },
          { name: 'status', type: 'varchar', length: '16', isNullable: false },
          { name: 'attempts', type: 'int', isNullable: false, default: 0 },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'next_attempt_at', type: 'bigint', isNullable: false },
          { name: 'sent_at', type: 'bigint', isNullable: true },
          { name: 'lease_owner', type: 'varchar', length: '64', isNullable: true },
          { name: 'leased_until', type: 'bigint', isNullable: true },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_backchannel_logouts_app',
            columnNames: ['app_id'],
            referencedTableName: 'applications',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
        indices: [
          new TableIndex({ name: 'ix_backchannel_logouts_due', columnNames: ['status', 'next_attempt_at'] }),
          new TableIndex({ name: 'ix_backchannel_logouts_app', columnNames: ['app_id'] }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('backchannel_logouts', true, true, true);
  }
}
