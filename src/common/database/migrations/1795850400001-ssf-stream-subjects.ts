import { Table, TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The subjects a Shared Signals receiver added to its stream (SSF 1.0 §8.1.3; docs/signals.md, "Subjects"):
 * `ssf_stream_subjects`, one row per subject as the receiver named it (`iss_sub:<sub>` or `email:<address in lower
 * case>`), and `ssf_streams.subjects`: `all` until the receiver first adds one, then `added` — the stream carries
 * only its subjects from then on, even when every one is removed again.
 */
export class SsfStreamSubjects1795850400001 implements MigrationInterface {
  name = 'SsfStreamSubjects1795850400001';

  async up(runner: QueryRunner): Promise<void> {
    const engine = runner.connection.options.type === 'mysql' ? 'InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : undefined;
    await runner.createTable(
      new Table({
        name: 'ssf_stream_subjects',
        engine,
        columns: [
          { name: 'stream_id', type: 'varchar', length: '64', isPrimary: true, primaryKeyConstraintName: 'pk_ssf_stream_subjects' },
          { name: 'subject_key', type: 'varchar', length: '400', isPrimary: true },
          { name: 'created_at', type: 'bigint', isNullable: false },
        ],
      }),
    );
    await runner.addColumn('ssf_streams', new TableColumn({ name: 'subjects', type: 'varchar', length: '8', isNullable: false, default: "'all'" }));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('ssf_streams', 'subjects');
    await runner.dropTable('ssf_stream_subjects');
  }
}
