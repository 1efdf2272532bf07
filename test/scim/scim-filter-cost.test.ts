import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import { assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const MAX_CLAUSES = 10;
const SEARCH = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';

/** Issue 33 item 14: a list filter carries at most ten comparisons, on Users and Groups, by GET and .search. */
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
