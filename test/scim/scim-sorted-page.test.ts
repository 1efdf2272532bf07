import { before, describe, it } from 'node:test';
import { useService } from '../support/fixtures.js';
import { PATCH_OP, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';
import { MANY, assertPage, reference, seedMany } from './sorted-page.helpers.js';

/** startIndex values around and between checkpoints (every 1,000 rows), the last page, past the end. */
const STARTS = [1, 999, 1000, 1001, 1002, 1500, 1999, 2000, 2001, 2002, 2250, MANY - 99, MANY, MANY + 1, MANY + 500];

/**
 * Deep sorted pages (RFC 7644 §3.4.2.4 `startIndex`) served from sort-key checkpoints are exactly the
 * pages OFFSET gives, in both orders, and stay so after inserts, deletes and renames between pages.
 */
describe('SCIM sorted pages deep in a large organization', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
    await seedMany(t, MANY, 'page');
  });

  for (const by of ['userName', 'id'] as const) {
    for (const descending of [false, true]) {
      it(`sortBy=${by}${descending ? ' descending' : ''}: every tested startIndex, counts 100, 1, 0 and 7`, async () => {
        const expected = await reference(t, by, descending);
        for (const start of STARTS) await assertPage(t, expected, by, descending, start);
        for (let i = 0; i < 20; i++)
          await assertPage(t, expected, by, descending, 1 + Math.floor(Math.random() * (expected.length + 50)), [100, 1, 0, 7][i % 4]);
      });
    }
  }

  it('pages after an insert, a delete and a rename in the organization are the new order, at once', async () => {
    const check = async () => {
      for (const descending of [false, true]) {
        const expected = await reference(t, 'userName', descending);
        for (const start of [1001, 1500, 2001, expected.length - 50]) await assertPage(t, expected, 'userName', descending, start);
      }
    };
    await check();
    const early = await createUser(t, userBody('aaaa.first'));
    await check();
    const victims = (await reference(t, 'userName', false)).slice(1200, 1203);
    for (const v of victims) await t.scim('DELETE', `/Users/${v.id}`);
    await check();
    const renamed = (await reference(t, 'userName', false))[1700];
    const res = await t.scim('PATCH', `/Users/${renamed.id}`, {
      body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: 'zzzz.last' }] },
    });
    if (res.status !== 200 && res.status !== 204) throw new Error(`PATCH userName: ${res.status} ${res.text}`);
    await check();
    // The management API renames through the same profile change as SCIM (src/users/user-profile.service.ts).
    const another = (await reference(t, 'userName', false))[1100];
    const managed = await svc.api('PATCH', `/management/v1/orgs/${t.orgId}/users/${another.id}`, { token: t.token, body: { userName: 'aaaa.managed' } });
    if (managed.status !== 200) throw new Error(`management PATCH userName: ${managed.status} ${managed.text}`);
    await check();
    // A write that leaves userName alone leaves the order alone: pages stay right either way.
    await t.scim('PATCH', `/Users/${early.id}`, { body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await check();
  });
});
