import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `signing_keys.signs_from`: when a key starts to sign. A scheduled rotation publishes the next key in
 * JWKS a day before it signs, so relying parties that cache JWKS know its `kid` in time (README,
 * SIGNING_ALG). Every existing key has signed since it was created, so the active key of the previous
 * version keeps signing unchanged.
 */
export class SigningKeySchedule1763701470000 implements MigrationInterface {
  name = 'SigningKeySchedule1763701470000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.addColumn('signing_keys', new TableColumn({ name: 'signs_from', type: 'bigint', isNullable: false, default: 0 }));
    await runner.query('UPDATE signing_keys SET signs_from = created_at');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.dropColumn('signing_keys', 'signs_from');
  }
}
