import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { unique, useService } from '../support/fixtures.js';
import { assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const MAX_CLAUSES = 10;
const SEARCH = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';

/** A list filter carries at most ten comparisons, on Users and Groups, by GET and .search. */
describe('SCIM: comparisons per filter are bounded', () => {
  const svc = useService();
  let t: ScimTenant;
  let userName: string;
  before(async () => {
    t = await scimTenant(svc);
    userName = unique('costly');
    await createUser(t, userBody(userName, { emails: [{ value: `${userName}@example.com`, type: 'work' }] }));
  });

  /** `n` comparisons, the last of which finds the user. */
  const filter = (n: number) => [...Array.from({ length: n - 1 }, (_, i) => `emails[value co "nobody${i}"]`), `userName eq "${userName}"`].join(' or ');

  for (const resource of ['Users', 'Groups']) {
    it(`${resource}: ${MAX_CLAUSES} comparisons are answered, ${MAX_CLAUSES + 1} are 400 invalidFilter by GET and by .search`, async () => {
      const groupFilter = (n: number) => Array.from({ length: n }, (_, i) => `displayName eq "g${i}"`).join(' or ');
      const of = (n: number) => (resource === 'Users' ? filter(n) : groupFilter(n));
      const ok = await t.scim('GET', `/${resource}?filter=${encodeURIComponent(of(MAX_CLAUSES))}`);
      assert.equal(ok.status, 200, ok.text);
      if (resource === 'Users') assert.equal(ok.body.totalResults, 1);
      const refused = await t.scim('GET', `/${resource}?filter=${encodeURIComponent(of(MAX_CLAUSES + 1))}`);
      assertScimError(refused, 400, 'invalidFilter');
      assert.match(refused.body.detail, /11 comparisons; at most 10/);
      const searched = await t.scim('POST', `/${resource}/.search`, { body: { schemas: [SEARCH], filter: of(MAX_CLAUSES + 1) } });
      assertScimError(searched, 400, 'invalidFilter');
    });
  }
});

/**
 * A filter that may scan the organization runs as a bounded read (MariaDB's
 * max_statement_time; on SQLite a read thread, so the request thread stays free) and past the limit answers
 * 400 tooMany (RFC 7644 §3.12). The limit here is the smallest allowed, 10 ms, against 20,000 users with an
 * e-mail each: ten substring comparisons over them take well over that on either database. A filter an index
 * serves (`userName eq`) is not bounded and answers as ever.
 */
describe('SCIM: a costly filter is stopped at the read time limit', () => {
  const svc = useService({ LIST_READ_TIME_LIMIT_MS: '10' });
  let t: ScimTenant;
  let userName: string;
  before(async () => {
    t = await scimTenant(svc);
    userName = unique('seeded');
    await seedUsers(svc.dataSource, t.orgId, t.callerId, 20_000, userName);
  });

  it('ten substring comparisons over every e-mail: 400 tooMany, by GET and by .search; nothing else is refused', async () => {
    const costly = Array.from({ length: MAX_CLAUSES }, (_, i) => `emails[value co "nobody${i}"]`).join(' or ');
    const refused = await t.scim('GET', `/Users?filter=${encodeURIComponent(costly)}`);
    assertScimError(refused, 400, 'tooMany');
    assert.match(refused.body.detail, /longer than 10 ms/);
    const searched = await t.scim('POST', '/Users/.search', { body: { schemas: [SEARCH], filter: costly } });
    assertScimError(searched, 400, 'tooMany');
    // The same organization answers a look-up an index serves, and the service is healthy.
    const found = await t.scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}-7"`)}`);
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.totalResults, 1);
    assert.equal((await svc.api('GET', '/healthz')).status, 200);
  });
});

/**
 * `count` human users of the organization with one e-mail each, written straight to the tables in two
 * statements (setup only: 20,000 through the API would take most of a minute). Numbers come from a cross join
 * of digits; times are copied from the caller's row, so every column has its database's own format.
 */
async function seedUsers(dataSource: DataSource, orgId: string, callerId: string, count: number, prefix: string): Promise<void> {
  const cat = (...parts: string[]) => (dataSource.options.type === 'better-sqlite3' ? parts.join(' || ') : `CONCAT(${parts.join(', ')})`);
  const digits =
    'SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9';
  const numbers = `SELECT a.n + 10 * b.n + 100 * c.n + 1000 * d.n + 10000 * e.n AS x FROM (${digits}) a, (${digits}) b, (${digits}) c, (${digits}) d, (${digits}) e`;
  await dataSource.query(
    `INSERT INTO users (id, org_id, type, user_name, user_name_lower, state, email_verified, phone_verified, password_change_required, failed_password_checks, version, created_at, changed_at)
     SELECT ${cat('?', 'x')}, ?, 'human', ${cat('?', 'x')}, ${cat('?', 'x')}, 'active', 0, 0, 0, 0, 1, t.created_at, t.changed_at
     FROM (${numbers}) s, (SELECT created_at, changed_at FROM users WHERE id = ?) t WHERE x < ?`,
    [`${prefix}-id-`, orgId, `${prefix}-`, `${prefix.toLowerCase()}-`, callerId, count],
  );
  await dataSource.query(
    `INSERT INTO user_contacts (user_id, kind, position, org_id, value_lower, type_lower, is_primary)
     SELECT id, 'email', 0, org_id, ${cat('user_name_lower', "'@example.com'")}, 'work', 1 FROM users WHERE org_id = ? AND id LIKE ?`,
    [orgId, `${prefix}-id-%`],
  );
}
