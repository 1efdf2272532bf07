import { Table, TableColumn, TableForeignKey, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dynamic client registration (RFC 7591, RFC 7592; docs/agents.md, "Dynamic registration"): each organization's
 * `dynamicRegistration` setting (`off` for every existing one), the initial access tokens an organization owner
 * issues (stored as keyed hashes), and the clients that registered themselves, bound to one organization (null
 * until an openly registered client's first code names a resource).
 */
export class DynamicRegistration1795762689466 implements MigrationInterface {
  name = 'DynamicRegistration1795762689466';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.addColumn(
      'login_policies',
      new TableColumn({ name: 'dynamic_registration', type: 'varchar', length: '24', isNullable: false, default: "'off'" }),
    );
    await runner.createTable(
      new Table({
        name: 'agent_registration_tokens',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_agent_registration_tokens' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'token_hash', type: 'varchar', length: '100', isNullable: false },
          { name: 'expires_at', type: 'bigint', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({
            name: 'fk_agent_registration_tokens_org',
            columnNames: ['org_id'],
            referencedTableName: 'organizations',
            referencedColumnNames: ['id'],
          }),
        ],
        indices: [
          new TableIndex({ name: 'uq_agent_registration_tokens_hash', columnNames: ['token_hash'], isUnique: true }),
          new TableIndex({ name: 'ix_agent_registration_tokens_org', columnNames: ['org_id'] }),
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'dynamic_clients',
        engine,
        columns: [
          { name: 'client_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_dynamic_clients' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: true },
          // The registered metadata (RFC 7591 §2) as oidc-provider validated it, JSON.
          { name: 'metadata', type: 'text', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'last_used_at', type: 'bigint', isNullable: false },
        ],
        foreignKeys: [
          new TableForeignKey({ name: 'fk_dynamic_clients_org', columnNames: ['org_id'], referencedTableName: 'organizations', referencedColumnNames: ['id'] }),
        ],
        indices: [
          new TableIndex({ name: 'ix_dynamic_clients_org', columnNames: ['org_id'] }),
          new TableIndex({ name: 'ix_dynamic_clients_last_used', columnNames: ['last_used_at'] }),
        ],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('dynamic_clients');
    await runner.dropTable('agent_registration_tokens');
    await runner.dropColumn('login_policies', 'dynamic_registration');
  }
}
