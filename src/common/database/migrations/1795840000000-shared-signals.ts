import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shared Signals (src/signals; docs/signals.md). As transmitter: `ssf_streams`, one row per receiver's stream (SSF 1.0
 * §8), which is also its cursor over the `events` table (`cursor_position`: the last event position turned into SETs);
 * `ssf_sets`, the SETs (RFC 8417) made from those events and owed to the stream, in order, until the receiver took them
 * (push, RFC 8935) or acknowledged them (poll, RFC 8936). One process works a stream at a time, holding the lease
 * `ssf-stream:<id>`. As receiver: `ssf_subscriptions`, an upstream IdP's stream at its transmitter, and `ssf_jtis_seen`,
 * the keyed hashes of the `jti`s accepted, so a SET is acted on once across processes.
 */
export class SharedSignals1795840000000 implements MigrationInterface {
  name = 'SharedSignals1795840000000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'ssf_streams',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_ssf_streams' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'client_id', type: 'varchar', length: '255', isNullable: false },
          { name: 'delivery_method', type: 'varchar', length: '64', isNullable: false },
          { name: 'endpoint_url', type: 'varchar', length: '2048', isNullable: true },
          { name: 'authorization_header', type: 'text', isNullable: true },
          { name: 'events_requested', type: 'text', isNullable: false },
          { name: 'description', type: 'varchar', length: '200', isNullable: true },
          { name: 'status', type: 'varchar', length: '16', isNullable: false },
          { name: 'status_reason', type: 'varchar', length: '200', isNullable: true },
          { name: 'cursor_position', type: 'bigint', isNullable: false },
          { name: 'failures', type: 'int', isNullable: false, default: 0 },
          { name: 'next_attempt_at', type: 'bigint', isNullable: false, default: 0 },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          { name: 'created_at', type: 'bigint', isNullable: false },
        ],
        indices: [new TableIndex({ name: 'ix_ssf_streams_client', columnNames: ['client_id', 'created_at', 'id'] })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'ssf_sets',
        engine,
        columns: [
          { name: 'stream_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_ssf_sets' },
          { name: 'seq', type: 'bigint', isPrimary: true },
          { name: 'jti', type: 'varchar', length: '64', isNullable: false },
          { name: 'token', type: 'text', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
        ],
        indices: [new TableIndex({ name: 'ix_ssf_sets_jti', columnNames: ['stream_id', 'jti'], isUnique: true })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'ssf_subscriptions',
        engine,
        columns: [
          { name: 'idp_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_ssf_subscriptions' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'issuer', type: 'varchar', length: '2048', isNullable: false },
          { name: 'audience', type: 'varchar', length: '255', isNullable: false },
          { name: 'jwks_uri', type: 'varchar', length: '2048', isNullable: false },
          { name: 'configuration_endpoint', type: 'varchar', length: '2048', isNullable: false },
          { name: 'stream_id', type: 'varchar', length: '255', isNullable: false },
          { name: 'push_token_hash', type: 'varchar', length: '100', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'ssf_jtis_seen',
        engine,
        columns: [
          { name: 'jti_hash', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_ssf_jtis_seen' },
          { name: 'idp_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'expires_at', type: 'bigint', isNullable: false },
        ],
        indices: [new TableIndex({ name: 'ix_ssf_jtis_seen_expiry', columnNames: ['expires_at'] })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('ssf_jtis_seen');
    await runner.dropTable('ssf_subscriptions');
    await runner.dropTable('ssf_sets');
    await runner.dropTable('ssf_streams');
  }
}
