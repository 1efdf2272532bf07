import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook subscriptions and their delivery log (src/webhooks). A subscription row is also its own outbox
 * cursor: `cursor_position` is the last event position delivered (or given up on), `lease_owner` and
 * `leased_until` say which process delivers it now, `next_attempt_at` holds it back while an attempt waits
 * for its retry. The `events` table is the ordered log the cursor walks; nothing is copied out of it.
 * `owner` is `instance` or the organization that created the subscription; `org_id` filters events by
 * their resource owner (for an organization's subscription, itself). `webhook_dispatchers` has a row per
 * live process (renewed like a lease), so the processes can share the subscriptions evenly.
 */
export class Webhooks1763701800000 implements MigrationInterface {
  name = 'Webhooks1763701800000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'webhook_subscriptions',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_webhook_subscriptions' },
          { name: 'owner', type: 'varchar', length: '64', isNullable: false },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'url', type: 'varchar', length: '2048', isNullable: false },
          { name: 'event_types', type: 'text', isNullable: true },
          { name: 'secret', type: 'varchar', length: '255', isNullable: false },
          { name: 'cursor_position', type: 'bigint', isNullable: false },
          { name: 'lease_owner', type: 'varchar', length: '64', isNullable: true },
          { name: 'leased_until', type: 'bigint', isNullable: false, default: 0 },
          { name: 'next_attempt_at', type: 'bigint', isNullable: false, default: 0 },
          { name: 'created_at', type: 'bigint', isNullable: false },
        ],
        indices: [
          new TableIndex({ name: 'ix_webhook_subscriptions_owner', columnNames: ['owner', 'created_at', 'id'] }),
          new TableIndex({ name: 'ix_webhook_subscriptions_lease', columnNames: ['leased_until'] }),
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'webhook_deliveries',
        engine,
        columns: [
          { name: 'subscription_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_webhook_deliveries' },
          { name: 'position', type: 'bigint', isPrimary: true },
          { name: 'event_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'status', type: 'varchar', length: '16', isNullable: false },
          { name: 'attempts', type: 'int', isNullable: false },
          { name: 'last_status', type: 'int', isNullable: true },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          { name: 'first_attempt_at', type: 'bigint', isNullable: false },
          { name: 'last_attempt_at', type: 'bigint', isNullable: false },
          { name: 'next_attempt_at', type: 'bigint', isNullable: true },
        ],
        indices: [new TableIndex({ name: 'ix_webhook_deliveries_age', columnNames: ['last_attempt_at'] })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'webhook_dispatchers',
        engine,
        columns: [
          { name: 'owner', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_webhook_dispatchers' },
          { name: 'alive_until', type: 'bigint', isNullable: false },
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('webhook_dispatchers', true, true, true);
    await runner.dropTable('webhook_deliveries', true, true, true);
    await runner.dropTable('webhook_subscriptions', true, true, true);
  }
}
