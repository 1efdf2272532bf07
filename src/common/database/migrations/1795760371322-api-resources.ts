import { TableColumn, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An API application may be a resource server that clients name with `resource` (RFC 8707; docs/agents.md,
 * "Resources"): its resource URI, unique in the instance, and the scopes it defines. Absent for every existing
 * application; its token format uses the existing `access_token_type` column.
 */
export class ApiResources1795760371322 implements MigrationInterface {
  name = 'ApiResources1795760371322';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumns('applications', [
      new TableColumn({ name: 'resource_uri', type: 'varchar', length: '500', isNullable: true }),
      new TableColumn({ name: 'resource_scopes', type: 'text', isNullable: true }),
    ]);
    await runner.createIndex('applications', new TableIndex({ name: 'ux_applications_resource_uri', columnNames: ['resource_uri'], isUnique: true }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropIndex('applications', 'ux_applications_resource_uri');
    await runner.dropColumn('applications', 'resource_scopes');
    await runner.dropColumn('applications', 'resource_uri');
  }
}
