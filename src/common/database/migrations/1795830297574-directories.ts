import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * LDAP and Active Directory (src/directories; docs/directories.md): an organization's directories, each with its
 * service account's password encrypted with the master key and the cursor of its last incremental sync; the hosts an
 * IAM_OWNER allows directories to reach; the users each directory brought, linked by the entry's stable id
 * (`entryUUID` / `objectGUID`), never its DN; and each sync's counts. A directory's rows go before it, by the
 * service; a link goes with its user.
 */
export class Directories1795830297574 implements MigrationInterface {
  name = 'Directories1795830297574';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'directories',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_directories' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'type', type: 'varchar', length: '20', isNullable: false },
          { name: 'name', type: 'varchar', length: '200', isNullable: false },
          // Everything but the bind password, as JSON (src/directories/directory-settings.ts).
          { name: 'settings', type: 'text', isNullable: false },
          // The service account's password, encrypted (src/common/crypto/encryptor.ts); never returned.
          { name: 'bind_password', type: 'varchar', length: '4096', isNullable: false },
          // Where the last sync left off: the highest modifyTimestamp (OpenLDAP) or uSNChanged and the DC (AD).
          { name: 'sync_cursor', type: 'varchar', length: '300', isNullable: true },
          { name: 'next_sync_at', type: 'bigint', isNullable: false, default: 0 },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({ name: 'fk_directories_org', columnNames: ['org_id'], referencedTableName: 'organizations', referencedColumnNames: ['id'] }),
        ],
        indices: [new TableIndex({ name: 'ix_directories_org', columnNames: ['org_id', 'created_at', 'id'] })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'directory_hosts',
        engine,
        columns: [
          { name: 'entry', type: 'varchar', length: '300', isPrimary: true, primaryKeyConstraintName: 'pk_directory_hosts' },
          { name: 'position', type: 'int', isNullable: false },
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'directory_users',
        engine,
        columns: [
          { name: 'directory_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_directory_users' },
          // entryUUID or objectGUID, as text.
          { name: 'external_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'dn', type: 'varchar', length: '1024', isNullable: false },
          // Disabled in the directory (AD userAccountControl bit 2, an OpenLDAP ppolicy lock) when last read.
          { name: 'disabled', type: 'boolean', isNullable: false, default: false },
          { name: 'synced_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_directory_users_directory',
            columnNames: ['directory_id'],
            referencedTableName: 'directories',
            referencedColumnNames: ['id'],
          }),
          new TableForeignKey({
            name: 'fk_directory_users_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
        indices: [new TableIndex({ name: 'ux_directory_users_user', columnNames: ['user_id'], isUnique: true })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'directory_syncs',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_directory_syncs' },
          { name: 'directory_id', type: 'varchar', length: '64', isNullable: false },
          // full | incremental
          { name: 'kind', type: 'varchar', length: '12', isNullable: false },
          // pending | running | finished | failed
          { name: 'state', type: 'varchar', length: '12', isNullable: false },
          { name: 'started_at', type: 'bigint', isNullable: false },
          { name: 'finished_at', type: 'bigint', isNullable: true },
          // {created, updated, deactivated, reactivated, unchanged, failed} and the first failures, as JSON.
          { name: 'counts', type: 'text', isNullable: false },
          { name: 'failures', type: 'text', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_directory_syncs_directory',
            columnNames: ['directory_id'],
            referencedTableName: 'directories',
            referencedColumnNames: ['id'],
          }),
        ],
        indices: [new TableIndex({ name: 'ix_directory_syncs_directory', columnNames: ['directory_id', 'started_at'] })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('directory_syncs');
    await runner.dropTable('directory_users');
    await runner.dropTable('directory_hosts');
    await runner.dropTable('directories');
  }
}
