import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Look-up columns of `oidc_payloads` that most rows leave NULL (client-credentials tokens set none of them). */
const SPARSE = [
  { index: 'ix_oidc_payloads_grant', column: 'grant_id' },
  { index: 'ix_oidc_payloads_uid', column: 'uid' },
  { index: 'ix_oidc_payloads_user_code', column: 'user_code' },
];

/**
 * SQLite only: the three look-up indexes of `oidc_payloads` cover only rows that have the value, so a
 * token without grant, uid or user code (every client-credentials grant) writes three b-tree entries
 * fewer. Every query on them is `column = ?`, which SQLite matches to a `column IS NOT NULL` partial
 * index. MySQL has no partial indexes; there nothing changes.
 */
export class OidcPartialIndexes1763700600000 implements MigrationInterface {
  name = 'OidcPartialIndexes1763700600000';

  async up(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type === 'mysql') return;
    for (const { index, column } of SPARSE) {
      await runner.query(`DROP INDEX "${index}"`);
      await runner.query(`CREATE INDEX "${index}" ON "oidc_payloads" ("${column}") WHERE "${column}" IS NOT NULL`);
    }
  }

  async down(runner: QueryRunner): Promise<void> {
    if (runner.connection.options.type === 'mysql') return;
    for (const { index, column } of SPARSE) {
      await runner.query(`DROP INDEX "${index}"`);
      await runner.query(`CREATE INDEX "${index}" ON "oidc_payloads" ("${column}")`);
    }
  }
}
