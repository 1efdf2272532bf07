import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What SCIM filtering and sorting need beyond the foundation schema (RFC 7644 §3.4.2.2–3):
 * - `user_contacts`: every e-mail address and phone number of a user with its type, lower-cased, so
 *   `emails[type eq "work"]`, `emails.value co "x"` and `phoneNumbers.value eq "+1…"` run on an index
 *   instead of scanning the JSON document;
 * - sort indexes on the sortable attributes (docs/product-rules.md, "SCIM"), each ending in `id` so ties break stably.
 * Explicit names for every index and constraint; works on SQLite and MySQL.
 */
export class ScimSearch1763700100000 implements MigrationInterface {
  name = 'ScimSearch1763700100000';

  async up(runner: QueryRunner): Promise<void> {
    const mysql = runner.connection.options.type === 'mysql';
    await runner.createTable(
      new Table({
        name: 'user_contacts',
        columns: [
          { name: 'user_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_user_contacts' },
          { name: 'kind', type: 'varchar', length: '8', isPrimary: true, primaryKeyConstraintName: 'pk_user_contacts' },
          { name: 'position', type: 'int', isPrimary: true, primaryKeyConstraintName: 'pk_user_contacts' },
          { name: 'org_id', type: 'varchar', length: '64' },
          { name: 'value_lower', type: 'varchar', length: '320' },
          { name: 'type_lower', type: 'varchar', length: '64', isNullable: true },
          { name: 'is_primary', type: 'boolean', default: mysql ? 0 : false },
        ],
        indices: [
          new TableIndex({ name: 'ix_user_contacts_org_value', columnNames: ['org_id', 'kind', 'value_lower'] }),
          new TableIndex({ name: 'ix_user_contacts_org_type', columnNames: ['org_id', 'kind', 'type_lower'] }),
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_user_contacts_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          }),
        ],
        engine: mysql ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined,
      }),
    );
    // (org, type, key, id): SCIM lists human users only, so `type` sits before the key; with `id` last
    // the index alone answers "ids of page N" (a deferred join), so deep pages do not read skipped rows.
    const sortIndexes: [string, string[]][] = [
      ['ix_users_scim_created', ['org_id', 'type', 'created_at', 'id']],
      ['ix_users_scim_changed', ['org_id', 'type', 'changed_at', 'id']],
      ['ix_users_scim_family_name', ['org_id', 'type', 'family_name', 'id']],
      ['ix_users_scim_given_name', ['org_id', 'type', 'given_name', 'id']],
      ['ix_users_scim_user_name', ['org_id', 'type', 'user_name_lower', 'id']],
      ['ix_users_scim_email', ['org_id', 'type', 'email_lower', 'id']],
    ];
    for (const [name, columnNames] of sortIndexes) await runner.createIndex('users', new TableIndex({ name, columnNames }));
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const name of [
      'ix_users_scim_email',
      'ix_users_scim_user_name',
      'ix_users_scim_given_name',
      'ix_users_scim_family_name',
      'ix_users_scim_changed',
      'ix_users_scim_created',
    ]) {
      await runner.dropIndex('users', name);
    }
    await runner.dropTable('user_contacts', true, true, true);
  }
}
