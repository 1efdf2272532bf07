import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A per-organization version of the order of its human users by userName and by id
 * (`org_user_counts.order_version`), raised in the transaction of every write that can change it
 * (src/users/org-user-counts.ts). SCIM's sort-key checkpoints (src/users/user-order-checkpoints.ts) are
 * valid only for the version they were read at. Raised by the application rather than by triggers: on
 * MySQL with binary logging on (its default), creating a trigger needs SUPER or
 * `log_bin_trust_function_creators`, which managed databases do not give the service's user.
 */
export class UserOrderVersions1763702000000 implements MigrationInterface {
  name = 'UserOrderVersions1763702000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('org_user_counts', new TableColumn({ name: 'order_version', type: 'bigint', default: 0 }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('org_user_counts', 'order_version');
  }
}
