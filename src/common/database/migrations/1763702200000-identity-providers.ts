import { Table, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Federation (src/federation; docs/federation.md): an organization's upstream identity providers, the e-mail
 * domains each claims for home-realm discovery (one IdP per domain in the whole instance, so a typed login name
 * leads to one place), and the upstream identities linked to users, (idp_id, subject) → user. A user has at
 * most one identity per IdP: a second subject of the same IdP never links to an already linked user. Domains and
 * identities go with their IdP or user; IdPs are removed by the service before their organization.
 */
export class IdentityProviders1763702200000 implements MigrationInterface {
  name = 'IdentityProviders1763702200000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    const cascade = (name: string, column: string, table: string) =>
      new TableForeignKey({ name, columnNames: [column], referencedTableName: table, referencedColumnNames: ['id'], onDelete: 'CASCADE' });
    // An organization's IdPs are removed by the service, each with its event (OrgResources), before the organization.
    const orgKey = new TableForeignKey({
      name: 'fk_identity_providers_org',
      columnNames: ['org_id'],
      referencedTableName: 'organizations',
      referencedColumnNames: ['id'],
    });
    await runner.createTable(
      new Table({
        name: 'identity_providers',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_identity_providers' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'type', type: 'varchar', length: '8', isNullable: false },
          { name: 'name', type: 'varchar', length: '200', isNullable: false },
          { name: 'settings', type: 'text', isNullable: false },
          { name: 'client_secret', type: 'varchar', length: '1024', isNullable: true },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [orgKey],
        indices: [new TableIndex({ name: 'ix_identity_providers_org', columnNames: ['org_id', 'created_at', 'id'] })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'idp_domains',
        engine,
        columns: [
          { name: 'domain', type: 'varchar', length: '253', isPrimary: true, primaryKeyConstraintName: 'pk_idp_domains' },
          { name: 'idp_id', type: 'varchar', length: '64', isNullable: false },
        ],
        foreignKeys: [cascade('fk_idp_domains_idp', 'idp_id', 'identity_providers')],
        indices: [new TableIndex({ name: 'ix_idp_domains_idp', columnNames: ['idp_id'] })],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'user_identities',
        engine,
        columns: [
          { name: 'idp_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_user_identities' },
          { name: 'subject', type: 'varchar', length: '255', isPrimary: true },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'linked_at', type: 'bigint', isNullable: false },
          { name: 'last_used_at', type: 'bigint', isNullable: true },
        ],
        foreignKeys: [cascade('fk_user_identities_idp', 'idp_id', 'identity_providers'), cascade('fk_user_identities_user', 'user_id', 'users')],
        indices: [new TableIndex({ name: 'uq_user_identities_user', columnNames: ['user_id', 'idp_id'], isUnique: true })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('user_identities', true, true, true);
    await runner.dropTable('idp_domains', true, true, true);
    await runner.dropTable('identity_providers', true, true, true);
  }
}
