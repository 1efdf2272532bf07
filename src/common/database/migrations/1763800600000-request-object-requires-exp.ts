import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An application's stricter profile of signed request objects (docs/oauth-profiles.md, "Signed request objects"):
 * with it, a request object without `exp` is refused. Off for every existing application, whose request objects
 * are accepted without `exp` as RFC 9101 allows.
 */
export class RequestObjectRequiresExp1763800600000 implements MigrationInterface {
  name = 'RequestObjectRequiresExp1763800600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('applications', new TableColumn({ name: 'request_object_requires_exp', type: 'boolean', isNullable: false, default: false }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('applications', 'request_object_requires_exp');
  }
}
