import { Table, TableColumn, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Consent to agent clients (docs/agents.md, "Consent and connected agents"): what a person allowed a client to do at
 * a resource, per (user, client, resource); and the mark of an application that is such a client.
 */
export class AgentConsents1795764672233 implements MigrationInterface {
  name = 'AgentConsents1795764672233';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'agent_consents',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_agent_consents' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'user_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'client_id', type: 'varchar', length: '500', isNullable: false },
          { name: 'client_name', type: 'varchar', length: '200', isNullable: false },
          { name: 'resource', type: 'varchar', length: '500', isNullable: false },
          { name: 'scopes', type: 'text', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
          { name: 'changed_at', type: 'bigint', isNullable: false },
        ],
        indices: [
          new TableIndex({ name: 'ix_agent_consents_user', columnNames: ['user_id', 'client_id'] }),
          new TableIndex({ name: 'ix_agent_consents_org', columnNames: ['org_id'] }),
        ],
      }),
    );
    await runner.addColumn('applications', new TableColumn({ name: 'agent', type: 'varchar', length: '8', isNullable: true }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('applications', 'agent');
    await runner.dropTable('agent_consents', true, true, true);
  }
}
