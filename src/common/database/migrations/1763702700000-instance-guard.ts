import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A counter on the instance row that instance-wide guards write (docs/high-availability.md): on Galera a
 * `SELECT … FOR UPDATE` locks only on its own node, while a write is certified against every other node's, so two
 * guarded changes through two nodes cannot both commit.
 */
export class InstanceGuard1763702700000 implements MigrationInterface {
  name = 'InstanceGuard1763702700000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('instance', new TableColumn({ name: 'guard_version', type: 'int', isNullable: false, default: 0 }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('instance', 'guard_version');
  }
}
