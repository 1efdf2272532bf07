import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { createClient } from '../support/http.js';
import type { ServiceProcess } from '../support/process.js';
import { humanUser, importBody, importedIds } from '../import/import.helpers.js';
import { PATCH_OP, scimTenant, userBody } from '../scim/scim-helpers.js';
import { processSetup, remoteService } from './faults.helpers.js';
import type { ProcessSetup } from './faults.helpers.js';

const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
/** Concurrent clients writing while the service is killed: enough for several requests to be in flight. */
const CLIENTS = 6;
/** The kill comes once this many writes were acknowledged (so some surely were, and others surely are in flight). */
const ACKNOWLEDGED_BEFORE_KILL = 60;

/**
 * kill -9 of the service during SCIM bulk writes and during imports. After a restart there is
 * no partial user, events match state one to one, and every write whose success the client saw is there.
 * Writes in flight at the kill may be there or not, but only whole.
 */
describe('faults: kill -9 during writes keeps every acknowledged write, whole', () => {
  let setup: ProcessSetup;
  before(async () => {
    setup = await processSetup();
  });
  after(() => setup?.cleanup());

  it('SCIM /Bulk: acknowledged creations and patches survive; users, contacts and events agree', async (t) => {
    const first = await setup.spawn();
    const tenant = await scimTenant(remoteService(first.url, setup.adminToken()));
    const acked = { created: new Map<string, string>(), patched: new Set<string>() };
    let killed = false;

    // Each client sends bulk requests one after the other: three new users, and a PATCH of one user
    // its previous request created (each user is patched at most once, so "acknowledged" is unambiguous).
    const client = async (c: number) => {
      let previous: string | undefined;
      for (let k = 0; !killed; k++) {
        const names = [0, 1, 2].map((i) => `bulk-${c}-${k}-${i}`);
        const operations: unknown[] = names.map((name, i) => ({ method: 'POST', path: '/Users', bulkId: `u${i}`, data: userBody(name) }));
        if (previous) {
          operations.push({
            method: 'PATCH',
            path: `/Users/${previous}`,
            data: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: `patched-${previous}` }] },
          });
        }
        const res = await tenant.scim('POST', '/Bulk', { body: { schemas: [BULK], Operations: operations } }).catch(() => undefined);
        if (!res) return; // the connection died with the service
        assert.equal(res.status, 200, res.text);
        const results: { method: string; status: string; location?: string }[] = res.body.Operations;
        results.forEach((op, i) => {
          assert.match(op.status, /^20[014]$/, JSON.stringify(op));
          if (op.method === 'POST') acked.created.set(names[i], op.location!.split('/').pop()!);
          else acked.patched.add(previous!);
        });
        previous = acked.created.get(names[0]);
      }
    };
    const clients = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    await untilAcknowledged(() => acked.created.size + acked.patched.size, first, clients);
    killed = true;
    const exit = await first.stop('SIGKILL');
    assert.equal(exit.signal, 'SIGKILL');
    await clients;
    assert.ok(acked.patched.size > 0, 'some patches were acknowledged before the kill');

    const second = await setup.spawn();
    const restarted = await scimTenantOn(second, tenant);
    const stored = await listUsers(restarted);
    for (const [userName, id] of acked.created) {
      assert.equal(stored.get(id)?.userName, userName, `acknowledged creation of ${userName} is there after the restart`);
    }
    for (const id of acked.patched) assert.equal(stored.get(id)?.displayName, `patched-${id}`, `acknowledged patch of ${id} is there`);
    assert.ok(stored.size >= acked.created.size);
    await second.stop('SIGTERM');

    const state = await setup.inspect((db) => consistency(db, [tenant.orgId]));
    assert.deepEqual(state.orphans, { usersWithoutAddedEvent: 0, addedEventsWithoutUser: 0, humansWithoutContact: 0, usersWithTwoAddedEvents: 0 });
    assert.equal(state.patchedUsers, state.profileChangedEvents, 'one profile change event per patched user, and no event for a lost patch');
    assert.ok(state.patchedUsers >= acked.patched.size);
    t.diagnostic(`acknowledged ${acked.created.size} creations and ${acked.patched.size} patches; stored ${stored.size} users, ${state.patchedUsers} patched`);
  });

  it('imports: every answered import is there in full; users, contacts and events agree', async (t) => {
    const first = await setup.spawn();
    const api = createClient(first.url);
    const token = setup.adminToken();
    const acked: { orgId: string; userIds: string[] }[] = [];
    let killed = false;

    // Each client imports one new organization of 25 users per request, one request after the other.
    const client = async (c: number) => {
      for (let k = 0; !killed; k++) {
        const orgId = `imp-${c}-${k}`;
        const users = Array.from({ length: 25 }, (_, i) => humanUser(`${orgId}-${i}`, `${orgId}-user-${i}`));
        const res = await api('POST', '/admin/v1/import', { token, body: importBody([{ orgId, org: { name: orgId }, humanUsers: users }], '1m') }).catch(
          () => undefined,
        );
        if (!res) return;
        assert.equal(res.status, 200, res.text.slice(0, 500));
        assert.equal(importedIds(res.body, orgId).length, users.length, res.text.slice(0, 500));
        acked.push({ orgId, userIds: users.map((u) => u.userId) });
      }
    };
    const clients = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    await untilAcknowledged(() => acked.length * 5, first, clients);
    killed = true;
    assert.equal((await first.stop('SIGKILL')).signal, 'SIGKILL');
    await clients;

    const second = await setup.spawn();
    assert.equal((await createClient(second.url)('GET', '/admin/v1/orgs', { token })).status, 200, 'the restarted service serves');
    await second.stop('SIGTERM');

    const orgIds = await setup.inspect(async (db) => (await db.query(`SELECT id FROM organizations WHERE id LIKE 'imp-%'`)).map((r: { id: string }) => r.id));
    const state = await setup.inspect(async (db) => {
      const found = new Set<string>((await db.query(`SELECT id FROM users WHERE org_id LIKE 'imp-%'`)).map((r: { id: string }) => r.id));
      const orgEvents = Number((await db.query(`SELECT COUNT(*) AS n FROM events WHERE type = 'org.added' AND aggregate_id LIKE 'imp-%'`))[0].n);
      return { found, orgEvents, ...(await consistency(db, orgIds)) };
    });
    for (const { orgId, userIds } of acked) {
      const missing = userIds.filter((id) => !state.found.has(id));
      assert.deepEqual(missing, [], `acknowledged import of ${orgId} is there in full`);
    }
    assert.ok(state.found.size >= acked.length * 25);
    assert.deepEqual(state.orphans, { usersWithoutAddedEvent: 0, addedEventsWithoutUser: 0, humansWithoutContact: 0, usersWithTwoAddedEvents: 0 });
    assert.equal(state.orgEvents, orgIds.length, 'one org.added event per stored organization');
    t.diagnostic(`acknowledged ${acked.length} imports (${acked.length * 25} users); stored ${orgIds.length} organizations, ${state.found.size} users`);
  });
});

/** Waits until `count()` reaches the threshold while the service keeps running; fails informatively otherwise. */
async function untilAcknowledged(count: () => number, service: ServiceProcess, clients: Promise<unknown>): Promise<void> {
  let failure: unknown;
  clients.catch((error: unknown) => (failure = error));
  const deadline = Date.now() + 30_000;
  while (count() < ACKNOWLEDGED_BEFORE_KILL) {
    if (failure) throw failure;
    if (Date.now() > deadline) assert.fail(`only ${count()} writes acknowledged in 30 s:\n${service.output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function scimTenantOn(service: ServiceProcess, tenant: Awaited<ReturnType<typeof scimTenant>>) {
  const api = createClient(service.url);
  return (method: string, path: string) => api(method, `${tenant.base}${path}`, { token: tenant.token, headers: { accept: 'application/scim+json' } });
}

/** Every user of the tenant as SCIM lists it, by id. */
async function listUsers(scim: Awaited<ReturnType<typeof scimTenantOn>>): Promise<Map<string, { userName: string; displayName?: string }>> {
  const users = new Map<string, { userName: string; displayName?: string }>();
  for (let start = 1; ; start += 100) {
    const page = await scim('GET', `/Users?startIndex=${start}&count=100`);
    assert.equal(page.status, 200, page.text);
    for (const u of page.body.Resources ?? []) users.set(u.id, u);
    if (start + 100 > page.body.totalResults) return users;
  }
}

/** Cross-checks users, their contact index rows and their events, straight from the database. */
async function consistency(db: DataSource, orgIds: string[]) {
  const orgs = orgIds.map(() => '?').join(', ') || `''`;
  const count = async (sql: string) => Number((await db.query(sql, orgIds))[0].n);
  const humans = `SELECT id FROM users WHERE type = 'human' AND org_id IN (${orgs})`;
  return {
    orphans: {
      usersWithoutAddedEvent: await count(
        `SELECT COUNT(*) AS n FROM (${humans}) u WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.aggregate_id = u.id AND e.type = 'user.human.added')`,
      ),
      addedEventsWithoutUser: await count(
        `SELECT COUNT(*) AS n FROM events e WHERE e.resource_owner IN (${orgs}) AND e.type = 'user.human.added' AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = e.aggregate_id)`,
      ),
      humansWithoutContact: await count(`SELECT COUNT(*) AS n FROM (${humans}) u WHERE NOT EXISTS (SELECT 1 FROM user_contacts c WHERE c.user_id = u.id)`),
      usersWithTwoAddedEvents: await count(
        `SELECT COUNT(*) AS n FROM (SELECT aggregate_id FROM events WHERE resource_owner IN (${orgs}) AND type = 'user.human.added' GROUP BY aggregate_id HAVING COUNT(*) > 1) d`,
      ),
    },
    patchedUsers: await count(`SELECT COUNT(*) AS n FROM users WHERE org_id IN (${orgs}) AND display_name LIKE 'patched-%'`),
    profileChangedEvents: await count(`SELECT COUNT(*) AS n FROM events WHERE resource_owner IN (${orgs}) AND type = 'user.human.profile.changed'`),
  };
}
