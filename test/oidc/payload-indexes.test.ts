import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TOKEN_WITH_USER_STATEMENTS } from '../../src/oidc/adapter/oidc-payload.adapter.js';
import { useService } from '../support/fixtures.js';

/**
 * The look-ups of oidc_payloads by grant, uid, user code and client (revocation of a grant, the session by
 * its uid, device codes, an application's removal) stay index searches on SQLite, where those indexes are partial (NOT NULL rows only).
 */
describe('oidc_payloads look-ups use their indexes', () => {
  const svc = useService();

  it('grant_id, uid, user_code and client_id: an index search, never a scan', {
    skip: process.env.TEST_DATABASE_URL ? 'query plans checked on SQLite only' : false,
  }, async () => {
    const lookups = {
      ix_oidc_payloads_grant: 'DELETE FROM oidc_payloads WHERE model = ? AND grant_id = ?',
      ix_oidc_payloads_uid: 'SELECT payload FROM oidc_payloads WHERE model = ? AND uid = ? LIMIT 1',
      ix_oidc_payloads_user_code: 'SELECT payload FROM oidc_payloads WHERE model = ? AND user_code = ? LIMIT 1',
      // Removing an application (oidc-client-registrations.ts): by index, no payload read.
      ix_oidc_payloads_client: 'DELETE FROM oidc_payloads WHERE rowid IN (SELECT rowid FROM oidc_payloads WHERE client_id = ? LIMIT ?)',
    };
    for (const [index, sql] of Object.entries(lookups)) {
      const plan: { detail: string }[] = await svc.dataSource.query(`EXPLAIN QUERY PLAN ${sql}`, sql.includes('client_id') ? ['x', 10] : ['Session', 'x']);
      assert.ok(
        plan.some((step) => new RegExp(`USING (COVERING )?INDEX ${index}\\b`).test(step.detail)),
        `${sql}: ${plan.map((s) => s.detail).join('; ')}`,
      );
    }
    const [definition]: { sql: string }[] = await svc.dataSource.query("SELECT sql FROM sqlite_master WHERE name = 'ix_oidc_payloads_grant'");
    assert.match(definition.sql, /WHERE "grant_id" IS NOT NULL/, 'the index holds only rows with a grant');
  });

  // Introspection, userinfo and the refresh grant read a token with its user: the row by its primary key,
  // the user joined on the indexed account_id column, never through the payload's JSON.
  it('a token with its user: primary keys only, no JSON parsing', {
    skip: process.env.TEST_DATABASE_URL ? 'query plans checked on SQLite only' : false,
  }, async () => {
    for (const sql of Object.values(TOKEN_WITH_USER_STATEMENTS)) {
      assert.doesNotMatch(sql, /json_extract|JSON_VALUE/i);
      const parameters = sql.includes('IN (?, ?, ?)') ? ['x', 'AccessToken', 'ClientCredentials', 'RefreshToken'] : ['AccessToken', 'x'];
      const plan = ((await svc.dataSource.query(`EXPLAIN QUERY PLAN ${sql}`, parameters)) as { detail: string }[]).map((step) => step.detail);
      assert.ok(
        plan.some((d) => /^SEARCH p USING INDEX sqlite_autoindex_oidc_payloads_1 \(model=\? AND id_hash=\?\)/.test(d)),
        plan.join('; '),
      );
      assert.ok(
        plan.some((d) => /^SEARCH u USING (INDEX \S+|INTEGER PRIMARY KEY) \(/.test(d)),
        plan.join('; '),
      );
      assert.ok(!plan.some((d) => /^SCAN/.test(d)), plan.join('; '));
    }
  });
});
