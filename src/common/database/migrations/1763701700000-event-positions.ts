import { Table } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The one row every transaction that inserts events updates first (src/common/events/event-positions.ts):
 * its row lock makes MySQL/MariaDB hand out event positions in commit order. `taken` only counts.
 */
export class EventPositions1763701700000 implements MigrationInterface {
  name = 'EventPositions1763701700000';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'event_positions',
        engine,
        columns: [
          { name: 'id', type: 'int', isPrimary: true, primaryKeyConstraintName: 'pk_event_positions' },
          { name: 'taken', type: 'bigint', isNullable: false, default: 0 },
        ],
      }),
    );
    await runner.query('INSERT INTO event_positions (id, taken) VALUES (1, 0)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropTable('event_positions');
  }
}
