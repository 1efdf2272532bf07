import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbound SCIM provisioning (src/provisioning; docs/provisioning.md): an organization's targets, each
 * with its secret (encrypted with the master key) and its cursor over the event log (one process pushes to a
 * target at a time, holding the lease `provisioning:<id>` of the `leases` table); and the objects a target knows, one row per local user
 * or group with the remote id and how its last push went. Objects go with their target; targets are removed by the
 * service before their organization, each with its event.
 */
export class Provisioning1763703500000 implements MigrationInterface {
  name = 'Provisioning1763703500000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'provisioning_targets',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_provisioning_targets' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'name', type: 'varchar', length: '200', isNullable: false },
          { name: 'base_url', type: 'varchar', length: '2048', isNullable: false },
          // What the target is sent and how (scope, groups, names, onRemove) and the auth's public half (JSON).
          { name: 'settings', type: 'text', isNullable: false },
          // The bearer token or the OAuth client secret, encrypted (src/common/crypto/encryptor.ts).
          { name: 'secret', type: 'varchar', length: '4096', isNullable: false },
          { name: 'enabled', type: 'boolean', isNullable: false },
          { name: 'state', type: 'varchar', length: '16', isNullable: false },
          { name: 'cursor_position', type: 'bigint', isNullable: false },
          { name: 'next_attempt_at', type: 'bigint', isNullable: false, default: 0 },
          { name: 'last_success_at', type: 'bigint', isNullable: true },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_provisioning_targets_org',
            columnNames: ['org_id'],
            referencedTableName: 'organizations',
            referencedColumnNames: ['id'],
          }),
        ],
        indices: [new TableIndex({ name: 'ix_provisioning_targets_org', columnNames: ['org_id', 'created_at', 'id'] })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'provisioning_objects',
        engine,
        columns: [
          { name: 'target_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_provisioning_objects' },
          { name: 'kind', type: 'varchar', length: '8', isPrimary: true },
          { name: 'local_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'remote_id', type: 'varchar', length: '255', isNullable: true },
          // pending | provisioned | failing | conflict
          { name: 'status', type: 'varchar', length: '16', isNullable: false },
          // The event position that last marked it dirty; pushed oldest first.
          { name: 'dirty_position', type: 'bigint', isNullable: true },
          { name: 'attempts', type: 'int', isNullable: false, default: 0 },
          { name: 'last_status', type: 'int', isNullable: true },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          { name: 'first_attempt_at', type: 'bigint', isNullable: true },
          { name: 'next_attempt_at', type: 'bigint', isNullable: false, default: 0 },
          { name: 'pushed_at', type: 'bigint', isNullable: true },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_provisioning_objects_target',
            columnNames: ['target_id'],
            referencedTableName: 'provisioning_targets',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
        indices: [new TableIndex({ name: 'ix_provisioning_objects_status', columnNames: ['target_id', 'status', 'dirty_position'] })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('provisioning_objects', true, true, true);
    await runner.dropTable('provisioning_targets', true, true, true);
  }
}
