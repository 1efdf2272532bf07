import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `applications.api_access`: whether the application's user tokens may carry the Portcullis API audience
 * (a first-party application such as the console). Off for every existing application: none was
 * registered with it, and before this column any application could ask for the API (SECURITY.md).
 */
export class ApplicationApiAccess1763701200000 implements MigrationInterface {
  name = 'ApplicationApiAccess1763701200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('applications', new TableColumn({ name: 'api_access', type: 'boolean', isNullable: false, default: false }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('applications', 'api_access');
  }
}
