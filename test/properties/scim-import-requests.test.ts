import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createCaller, createOrg, useService } from '../support/fixtures.js';
import { databaseState } from '../attack/support/db-state.js';

const SEED = Number(process.env.PROPERTY_SEED ?? 20261121);
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const FILTER_PIECES = [
  'userName',
  'emails[type eq "work"]',
  'eq',
  'co',
  'pr',
  'and',
  'or',
  'not',
  '(',
  ')',
  '[',
  ']',
  '"x"',
  "'",
  "' OR '1'='1",
  '--',
  ';',
  '%',
  '_',
  '\\',
  'true',
  'null',
  '1e999',
  'name.familyName',
  'meta.lastModified gt "2011-05-13T04:42:34Z"',
];

/**
 * Random filters at SCIM list and .search, and random JSON at SCIM writes and the import: never a
 * 5xx, and a refused request (4xx) leaves every table as it was, so a rejected PUT or PATCH leaves the
 * user byte-identical.
 */
describe('property: random filters and bodies at SCIM and the import', () => {
  const svc = useService();
  let scim: string;
  let token: string;
  let userId: string;

  before(async () => {
    const org = await createOrg(svc);
    token = (await createCaller(svc, org.id, { org: ['ORG_USER_MANAGER'] })).token;
    scim = `/scim/v2/${org.id}`;
    const created = await svc.api('POST', `${scim}/Users`, {
      token,
      body: { schemas: [USER], userName: 'bjensen', name: { givenName: 'Barbara' }, emails: [{ value: 'b@example.com', type: 'work' }] },
    });
    assert.equal(created.status, 201, created.text);
    userId = created.body.id;
  });

  it('random filters at GET /Users and POST /Users/.search: 200 or 400 with the SCIM error shape, never a write', async () => {
    const filter = fc.oneof(
      fc.array(fc.constantFrom(...FILTER_PIECES), { minLength: 1, maxLength: 8 }).map((p) => p.join(' ')),
      fc.string({ maxLength: 40 }),
    );
    const before = await databaseState(svc);
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(filter, fc.boolean(), async (text, viaSearch) => {
        const res = viaSearch
          ? await svc.api('POST', `${scim}/Users/.search`, { token, body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'], filter: text } })
          : await svc.api('GET', `${scim}/Users?filter=${encodeURIComponent(text)}`, { token });
        statuses.add(res.status);
        assert.ok(res.status === 200 || res.status === 400, `${JSON.stringify(text)} → ${res.status} ${res.text}`);
        if (res.status === 400) assert.equal(res.body?.scimType, 'invalidFilter', res.text);
      }),
      { numRuns: 600, seed: SEED },
    );
    assert.deepEqual([...statuses].sort(), [200, 400], 'both answers were exercised');
    assert.equal(await databaseState(svc), before);
  });

  it('random JSON at SCIM POST, PUT, PATCH, Bulk and the import: never 5xx; a refusal changes nothing', async () => {
    const targets: Array<[string, string]> = [
      ['POST', `${scim}/Users`],
      ['PUT', `${scim}/Users/${userId}`],
      ['PATCH', `${scim}/Users/${userId}`],
      ['POST', `${scim}/Bulk`],
      ['POST', '/admin/v1/import'],
    ];
    const body = fc.oneof(
      fc.json({ maxDepth: 3 }),
      fc.string({ maxLength: 30 }),
      fc
        .record(
          {
            schemas: fc.constantFrom([USER], ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'], 'x'),
            userName: fc.anything({ maxDepth: 1 }),
            Operations: fc.anything({ maxDepth: 3 }),
            emails: fc.anything({ maxDepth: 2 }),
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            dataOrgs: fc.record({
              orgs: fc.array(
                fc.record({ orgId: fc.anything({ maxDepth: 0 }), humanUsers: fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 2 }) }, { requiredKeys: [] }),
                { maxLength: 2 },
              ),
            }),
            timeout: fc.anything({ maxDepth: 0 }),
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
    );
    const seen = new Map<string, Set<number>>();
    await fc.assert(
      fc.asyncProperty(fc.nat(1000), body, async (index, raw) => {
        const [method, path] = targets[index % targets.length];
        const isImport = path === '/admin/v1/import';
        const before = await databaseState(svc);
        const res = await svc.api(method, path, {
          token: isImport ? svc.adminToken : token,
          rawBody: raw,
          headers: { 'content-type': isImport ? 'application/json' : 'application/scim+json' },
        });
        seen.set(method + path, (seen.get(method + path) ?? new Set()).add(res.status));
        assert.ok(res.status < 500, `${method} ${path} ${raw} → ${res.status} ${res.text}`);
        if (res.status >= 400) assert.equal(await databaseState(svc), before, `${method} ${path} ${raw} → ${res.status} changed the database`);
      }),
      // The example is the 500 this property found: an import with `"orgId": null`.
      { numRuns: 700, seed: SEED, examples: [[4, '{"dataOrgs":{"orgs":[{"orgId":null}]}}']] },
    );
    assert.equal(seen.size, targets.length, 'every target was exercised');
  });
});
