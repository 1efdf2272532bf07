import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Rows whose insert, delete or change of these columns moves human users within the userName and id orders. */
const ORDER_COLUMNS = ['user_name_lower', 'id', 'org_id', 'type'];

/**
 * A per-organization version of the order of its human users by userName and by id
 * (`org_user_counts.order_version`), raised by triggers in the transaction of every write that can change
 * it. SCIM's sort-key checkpoints (src/users/user-order-checkpoints.ts) are valid only for the version they
 * were read at; triggers rather than calls in each write path, so that no path (SCIM, admin, import,
 * console, another process) can forget it.
 */
export class UserOrderVersions1763702000000 implements MigrationInterface {
  name = 'UserOrderVersions1763702000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('org_user_counts', new TableColumn({ name: 'order_version', type: 'bigint', default: 0 }));
    const bump = (orgIds: string) => `UPDATE org_user_counts SET order_version = order_version + 1 WHERE org_id IN (${orgIds})`;
    if (runner.connection.options.type === 'mysql') {
      const changed = ORDER_COLUMNS.map((c) => `NOT (OLD.${c} <=> NEW.${c})`).join(' OR ');
      await runner.query(`CREATE TRIGGER tr_users_order_insert AFTER INSERT ON users FOR EACH ROW BEGIN IF NEW.type = 'human' THEN ${bump('NEW.org_id')}; END IF; END`);
      await runner.query(`CREATE TRIGGER tr_users_order_delete AFTER DELETE ON users FOR EACH ROW BEGIN IF OLD.type = 'human' THEN ${bump('OLD.org_id')}; END IF; END`);
      await runner.query(`CREATE TRIGGER tr_users_order_update AFTER UPDATE ON users FOR EACH ROW BEGIN IF ${changed} THEN ${bump('OLD.org_id, NEW.org_id')}; END IF; END`);
    } else {
      const changed = ORDER_COLUMNS.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(' OR ');
      await runner.query(`CREATE TRIGGER tr_users_order_insert AFTER INSERT ON users WHEN NEW.type = 'human' BEGIN ${bump('NEW.org_id')}; END`);
      await runner.query(`CREATE TRIGGER tr_users_order_delete AFTER DELETE ON users WHEN OLD.type = 'human' BEGIN ${bump('OLD.org_id')}; END`);
      await runner.query(`CREATE TRIGGER tr_users_order_update AFTER UPDATE OF ${ORDER_COLUMNS.join(', ')} ON users WHEN ${changed} BEGIN ${bump('OLD.org_id, NEW.org_id')}; END`);
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const name of ['tr_users_order_update', 'tr_users_order_delete', 'tr_users_order_insert']) await runner.query(`DROP TRIGGER IF EXISTS ${name}`);
    await runner.dropColumn('org_user_counts', 'order_version');
  }
}
