import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processSetup, remoteService, untilReady } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { unique } from '../support/fixtures.js';
import { freePort } from '../support/service.js';
import { PATCH_OP, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PARALLEL = 20;

/** Entra ID sends one PATCH per member change, in parallel; with WORKERS=2 they land in two processes on one database. */
describe('SCIM Group PATCHes in parallel across two worker processes lose nothing', () => {
  let setup: ProcessSetup;
  let t: ScimTenant;

  before(async () => {
    setup = await processSetup();
    const management = await freePort();
    const service = await setup.spawn({ WORKERS: '2', MANAGEMENT_PORT: String(management) });
    await untilReady(`http://127.0.0.1:${management}`, 'both workers listening');
    const remote = remoteService(service.url, setup.adminToken());
    // New connections are dealt to the workers in turn: both answer.
    const workers = new Set<number>();
    for (let i = 0; i < 10; i++) workers.add((await remote.api('GET', '/healthz', { headers: { connection: 'close' } })).body.worker);
    assert.equal(workers.size, 2, 'two worker processes serve the port');
    t = await scimTenant(remote);
  });
  after(() => setup?.cleanup());

  it(`${PARALLEL} parallel adds, then ${PARALLEL} parallel removes of one group, each on a new connection`, async () => {
    const users: string[] = [];
    for (let i = 0; i < PARALLEL; i++) users.push((await createUser(t, userBody(unique('cluster')))).id);
    const created = await t.scim('POST', '/Groups', { body: { schemas: [GROUP], displayName: unique('cluster') } });
    assert.equal(created.status, 201, created.text);
    const path = `/Groups/${created.body.id}`;
    const patch = (operation: unknown) => t.scim('PATCH', path, { body: { schemas: [PATCH_OP], Operations: [operation] }, headers: { connection: 'close' } });
    const members = async () => ((await t.scim('GET', path)).body.members ?? []).map((m: { value: string }) => m.value).sort();

    const added = await Promise.all(users.map((id) => patch({ op: 'Add', path: 'members', value: [{ value: id }] })));
    assert.deepEqual([...new Set(added.map((r) => r.status))], [204], added.map((r) => r.text).join('\n'));
    assert.deepEqual(await members(), [...users].sort());
    const removed = await Promise.all(users.map((id) => patch({ op: 'Remove', path: 'members', value: [{ value: id }] })));
    assert.deepEqual([...new Set(removed.map((r) => r.status))], [204], removed.map((r) => r.text).join('\n'));
    assert.deepEqual(await members(), []);
  });
});
