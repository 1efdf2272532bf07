import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Applications lose the `agent` mark: no application is an agent client. Clients that registered themselves are
 * marked where they are read, a dynamic registration from `dynamic_clients` and a metadata document's client from its
 * document (docs/agents.md, "Consent and connected agents"); nothing ever set the column.
 */
export class DropApplicationAgent1795774845896 implements MigrationInterface {
  name = 'DropApplicationAgent1795774845896';

  async up(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('applications', 'agent');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.addColumn('applications', new TableColumn({ name: 'agent', type: 'varchar', length: '8', isNullable: true }));
  }
}
