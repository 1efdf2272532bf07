import { after, before, describe, it } from 'node:test';
import { processSetup, remoteService } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { PATCH_OP, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';
import { MANY, assertPage, reference, seedMany } from './sorted-page.helpers.js';

/**
 * Sort-key checkpoints are kept per process; a write in one process must keep the other from serving a
 * page of the old order (the order version is in the database, src/users/user-order-checkpoints.ts).
 * Two service processes on one database, SQLite file or MariaDB.
 */
describe('SCIM sorted pages across two services on one database', () => {
  let setup: ProcessSetup;
  let a: ScimTenant;
  let b: ScimTenant;

  before(async () => {
    setup = await processSetup();
    const first = await setup.spawn();
    const second = await setup.spawn();
    a = await scimTenant(remoteService(first.url, setup.adminToken()));
    const other = remoteService(second.url, setup.adminToken());
    b = {
      ...a,
      scim: (method, path, options = {}) =>
        other.api(method, `${a.base}${path}`, {
          token: a.token,
          ...options,
          headers: { accept: 'application/scim+json', 'content-type': 'application/scim+json', ...options.headers },
        }),
    };
    await seedMany(a, MANY, 'cluster');
  });
  after(() => setup?.cleanup());

  it('a write through one service changes the deep pages the other serves, at once', async () => {
    const both = async () => {
      for (const descending of [false, true]) {
        const expected = await reference(a, 'userName', descending);
        for (const t of [a, b]) for (const start of [1001, 1777, 2001]) await assertPage(t, expected, 'userName', descending, start);
      }
    };
    await both();
    await createUser(a, userBody('aaaa.from-a'));
    await both();
    const victim = (await reference(a, 'userName', false))[1500];
    await b.scim('DELETE', `/Users/${victim.id}`);
    await both();
    const renamed = (await reference(a, 'userName', false))[1100];
    const res = await a.scim('PATCH', `/Users/${renamed.id}`, {
      body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: 'aaaa.renamed' }] },
    });
    if (res.status !== 200 && res.status !== 204) throw new Error(`PATCH userName: ${res.status} ${res.text}`);
    await both();
  });
});
