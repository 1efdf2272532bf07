import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Audit streams (src/audit; docs/audit-and-signals.md). A stream's row is also its cursor over the `events` table,
 * as a webhook subscription's is: `cursor_position` is the last event position delivered, `last_sequence` the
 * stream's own record number at that position (gap-free from 1) and `last_chain` that record's chain value, so the
 * records after a crash are rebuilt with the same numbers and chain. One process delivers a stream at a time, holding
 * the lease `audit-stream:<id>` of the `leases` table. `owner` is `instance` or the organization that created it;
 * `org_id` filters events by their resource owner. `secret` (https streams) is encrypted with the master key.
 */
export class AuditStreams1795830241966 implements MigrationInterface {
  name = 'AuditStreams1795830241966';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'audit_streams',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_audit_streams' },
          { name: 'owner', type: 'varchar', length: '64', isNullable: false },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'name', type: 'varchar', length: '200', isNullable: false },
          { name: 'type', type: 'varchar', length: '16', isNullable: false },
          { name: 'url', type: 'varchar', length: '2048', isNullable: false },
          { name: 'ca_certificate', type: 'text', isNullable: true },
          { name: 'event_types', type: 'text', isNullable: true },
          { name: 'secret', type: 'varchar', length: '255', isNullable: true },
          { name: 'cursor_position', type: 'bigint', isNullable: false },
          { name: 'last_sequence', type: 'bigint', isNullable: false, default: 0 },
          { name: 'last_chain', type: 'varchar', length: '64', isNullable: false },
          { name: 'failures', type: 'int', isNullable: false, default: 0 },
          { name: 'failing_since', type: 'bigint', isNullable: true },
          { name: 'next_attempt_at', type: 'bigint', isNullable: false, default: 0 },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          { name: 'delivered_at', type: 'bigint', isNullable: true },
          { name: 'created_at', type: 'bigint', isNullable: false },
        ],
        indices: [new TableIndex({ name: 'ix_audit_streams_owner', columnNames: ['owner', 'created_at', 'id'] })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('audit_streams');
  }
}
