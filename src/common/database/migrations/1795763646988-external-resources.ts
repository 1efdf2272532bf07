import { Table, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An organization's external resources (docs/agents.md, "Enterprise-managed authorization"): resources at another
 * authorization server for which this instance, as the enterprise IdP, issues ID-JAGs to the people granted in a project.
 */
export class ExternalResources1795763646988 implements MigrationInterface {
  name = 'ExternalResources1795763646988';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'external_resources',
        engine,
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_external_resources' },
          { name: 'org_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'project_id', type: 'varchar', length: '64', isNullable: false },
          { name: 'name', type: 'varchar', length: '200', isNullable: false },
          { name: 'issuer', type: 'varchar', length: '2000', isNullable: false },
          { name: 'resource', type: 'varchar', length: '2000', isNullable: false },
          { name: 'scopes', type: 'text', isNullable: false },
          { name: 'client_id_at_issuer', type: 'varchar', length: '255', isNullable: false },
          { name: 'created_at', type: 'bigint', isNullable: false },
        ],
        indices: [new TableIndex({ name: 'ix_external_resources_org', columnNames: ['org_id', 'created_at', 'id'] })],
      }),
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('external_resources', true, true, true);
  }
}
