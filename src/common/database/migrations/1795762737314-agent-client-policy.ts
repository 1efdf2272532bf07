import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each organization decides whether its resources accept clients known by their Client ID Metadata Document
 * (docs/agents.md, "Client ID Metadata Documents"): `off` for every existing policy, and the hosts of an allowlist.
 */
export class AgentClientPolicy1795762737314 implements MigrationInterface {
  name = 'AgentClientPolicy1795762737314';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumns('login_policies', [
      new TableColumn({ name: 'agent_clients', type: 'varchar', length: '16', default: "'off'" }),
      new TableColumn({ name: 'agent_client_hosts', type: 'text', isNullable: true }),
    ]);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('login_policies', 'agent_client_hosts');
    await runner.dropColumn('login_policies', 'agent_clients');
  }
}
