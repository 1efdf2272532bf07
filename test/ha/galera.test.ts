import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMachine, postForm } from '../oidc/support/oidc-fixtures.js';
import { ENTERPRISE, PATCH_OP, USER_SCHEMA, scimTenant } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { createCaller, createOrg, unique } from '../support/fixtures.js';
import { createClient } from '../support/http.js';
import { spawnService } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';
import { startService } from '../support/service.js';
import type { TestService } from '../support/service.js';
import { SigningKeysService } from '../../src/oidc/keys/signing-keys.service.js';
import { galeraMissing, startGaleraCluster } from './support/galera-cluster.js';
import type { GaleraCluster } from './support/galera-cluster.js';

const missing = galeraMissing();
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/**
 * Portcullis on three MariaDB Galera nodes behind HAProxy (docs/high-availability.md), all started by
 * the test: every connection reads with `wsrep_sync_wait`; a node outside the primary component (Galera's 1047)
 * answers 503 with Retry-After on every surface, never 401 or 500; `kill -9` of the node taking the writes loses no
 * acknowledged write, and requests go on through the next node.
 */
// The cluster is this file's database whatever the pass: it runs once, in the pass without TEST_DATABASE_URL.
const skip = process.env.TEST_DATABASE_URL ? 'runs on its own cluster, in the other pass' : missing && !process.env.CI ? missing : false;

describe('on a three-node Galera cluster', { skip }, () => {
  let cluster: GaleraCluster;
  let svc: TestService;
  let tenant: ScimTenant;
  let machine: { clientId: string; clientSecret: string };
  /** A second process, writing through node 2 while the first writes through node 1 (HAProxy's first choice). */
  let second: TestService;

  before(async () => {
    if (missing) throw new Error(`CI installs galera-4, haproxy and rsync: ${missing}`);
    cluster = await startGaleraCluster(`portcullis_ha_${process.pid}`);
    svc = await startService({ DATABASE_URL: cluster.url });
    // The same instance: its data directory holds the master key (and the admin token) the first process made.
    second = await startService({ DATABASE_URL: cluster.nodeUrl(1), DATA_DIR: svc.dataDir });
    tenant = await scimTenant(svc);
    machine = await createMachine(svc, tenant.orgId);
  });
  after(async () => {
    await second?.close();
    await svc?.close();
    await cluster?.close();
  });
  const scimOn = (service: TestService, method: string, path: string, body?: unknown) =>
    service.api(method, `${tenant.base}${path}`, {
      token: tenant.token,
      body,
      headers: { accept: 'application/scim+json', 'content-type': 'application/scim+json' },
    });

  const scimUser = () => {
    const userName = `${unique('galera')}@contoso.example`;
    return tenant.scim('POST', '/Users', {
      body: { schemas: [USER_SCHEMA, ENTERPRISE], userName, active: true, name: { givenName: 'Gal', familyName: 'Era' } },
    });
  };
  const token = () =>
    postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, { id: machine.clientId, secret: machine.clientSecret });

  it('reads with wsrep_sync_wait = 1 on every pooled connection', async () => {
    const rows = await Promise.all(Array.from({ length: 6 }, () => svc.dataSource.query('SELECT @@session.wsrep_sync_wait AS syncWait')));
    assert.deepEqual(
      rows.map(([r]) => Number(r.syncWait)),
      [1, 1, 1, 1, 1, 1],
    );
  });

  it('two processes writing one group through two nodes: certification conflicts are retried, no member is lost', async () => {
    const users: string[] = [];
    for (let i = 0; i < 20; i++) users.push((await scimUser()).body.id);
    const group = await scimOn(svc, 'POST', '/Groups', { schemas: [GROUP], displayName: unique('galera-group') });
    assert.equal(group.status, 201, group.text);
    const add = (service: TestService, userId: string) =>
      scimOn(service, 'PATCH', `/Groups/${group.body.id}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: userId }] }] });
    const answers = await Promise.all(users.map((userId, i) => add(i % 2 === 0 ? svc : second, userId)));
    assert.deepEqual(
      answers.map((a) => a.status).filter((s) => s !== 200 && s !== 204),
      [],
      answers.map((a) => a.text).join('\n'),
    );
    // Read through the other node: wsrep_sync_wait makes it see every write the first one committed.
    const read = await scimOn(second, 'GET', `/Groups/${group.body.id}`);
    assert.deepEqual(new Set(read.body.members.map((m: { value: string }) => m.value)), new Set(users));
  });

  it('feed readers on two nodes see every event exactly once, in increasing sequence, while two processes write through two nodes', async (t) => {
    const types = ['user.human.added'];
    let writing = true;
    const read = async (service: TestService) => {
      const seen: number[] = [];
      let cursor = '0';
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
        const page = await service.api('POST', '/admin/v1/events/_search', {
          token: svc.adminToken,
          body: { asc: true, sequence: cursor, resource_owner: tenant.orgId, event_types: types, limit: 25, wait: '1s' },
        });
        assert.equal(page.status, 200, page.text);
        const events = page.body.events as { sequence: string }[];
        for (const e of events) seen.push(Number(e.sequence));
        if (events.length > 0) cursor = events[events.length - 1].sequence;
        else if (!writing) break;
      }
      return seen;
    };
    const write = async (service: TestService) => {
      for (let i = 0; i < 6; i++) {
        const answers = await Promise.all(
          Array.from({ length: 5 }, () =>
            scimOn(service, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: `${unique('feed')}@contoso.example`, active: true }),
          ),
        );
        assert.deepEqual(
          answers.map((a) => a.status).filter((status) => status !== 201),
          [],
          answers.map((a) => a.text).join('\n'),
        );
      }
    };
    const readers = Promise.all([read(svc), read(second)]);
    await Promise.all([write(svc), write(second)]);
    writing = false;
    const [onFirst, onSecond] = await readers;
    const stored = (
      await svc.dataSource.query(`SELECT position FROM events WHERE resource_owner = ? AND type = ? ORDER BY position`, [tenant.orgId, types[0]])
    ).map((r: { position: unknown }) => Number(r.position));
    t.diagnostic(`${stored.length} events; positions ${stored[0]}..${stored[stored.length - 1]}`);
    for (const [name, seen] of [
      ['node 1', onFirst],
      ['node 2', onSecond],
    ] as const) {
      assert.deepEqual(seen, stored, `the reader on ${name} saw each stored event once, in order`);
    }
  });

  it('a node outside the primary component (1047) answers 503 with Retry-After on the API, SCIM, the token endpoint and the login UI', async () => {
    // HAProxy sends everything to node 1; with nodes 2 and 3 gone it has no quorum and refuses every statement on a table.
    await cluster.kill(1);
    await cluster.kill(2);
    try {
      const answers = await waitFor503([
        () => svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users`, { token: svc.adminToken }),
        () => tenant.scim('GET', '/Users?count=1'),
        () => token(),
        // The login UI: a mailed link's page looks its code up.
        async () => {
          const res = await fetch(`${svc.url}/ui/login/invitation?code=${unique('code')}.secret`);
          return { status: res.status, text: await res.text(), headers: res.headers };
        },
      ]);
      for (const answer of answers) {
        assert.equal(answer.status, 503, `${answer.status} ${answer.text}`);
        assert.ok(Number(answer.headers.get('retry-after')) > 0, 'Retry-After');
      }
    } finally {
      await cluster.bootstrapPrimary(0);
      await Promise.all([cluster.restart(1), cluster.restart(2)]);
    }
    assert.equal((await scimUser()).status, 201, 'back when the node has a primary component again');
  });

  it('kill -9 of the node taking the writes loses no acknowledged write; the next node takes over', async () => {
    const acknowledged: string[] = [];
    const refused: number[] = [];
    for (let i = 0; i < 40; i++) {
      if (i === 15) await cluster.kill(0);
      const res = await scimUser();
      if (res.status === 201) acknowledged.push(res.body.id);
      else refused.push(res.status);
    }
    assert.ok(
      refused.every((status) => status === 503),
      `a write that is not acknowledged answers 503: ${refused}`,
    );
    assert.ok(acknowledged.length >= 30, `writes go on through the next node: ${acknowledged.length} of 40 acknowledged`);
    for (const id of acknowledged) assert.equal((await tenant.scim('GET', `/Users/${id}`)).status, 200, `acknowledged ${id} is there`);
    await cluster.restart(0);
  });

  it("HAProxy's Galera check takes a node cut off from the others out of rotation: requests go on through the next node", async (t) => {
    await cluster.isolate(0, true);
    try {
      let acknowledged = 0;
      const refused: number[] = [];
      for (const deadline = Date.now() + 30_000; acknowledged < 5 && Date.now() < deadline; ) {
        const res = await scimUser();
        if (res.status === 201) acknowledged++;
        else refused.push(res.status);
      }
      assert.ok(
        refused.every((status) => status === 503),
        `until HAProxy moved, a write answers 503: ${refused}`,
      );
      assert.equal(acknowledged, 5, `writes go on through node 2 (refused meanwhile: ${refused.length})`);
      t.diagnostic(`${refused.length} writes answered 503 before HAProxy moved`);
    } finally {
      await cluster.isolate(0, false);
    }
  });
});

describe('on a three-node Galera cluster, guarded invariants', { skip }, () => {
  let cluster: GaleraCluster;
  let first: TestService;
  let second: TestService;
  let listedCaller: { org: { id: string }; caller: { token: string } };

  before(async () => {
    if (missing) throw new Error(`CI installs galera-4, haproxy and rsync: ${missing}`);
    cluster = await startGaleraCluster(`portcullis_guards_${process.pid}`);
    // EdDSA: a key pair in microseconds, where the key rotation races make 200 (RS256 takes ~100 ms each).
    first = await startService({ DATABASE_URL: cluster.nodeUrl(0), SIGNING_ALG: 'EdDSA' });
    second = await startService({ DATABASE_URL: cluster.nodeUrl(1), DATA_DIR: first.dataDir, SIGNING_ALG: 'EdDSA' });
    const org = await createOrg(first);
    listedCaller = { org, caller: await createCaller(first, org.id, { org: ['ORG_OWNER'] }) };
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await cluster?.close();
  });

  it('100 races of a project removal and an application added to it through two nodes leave no application without its project', async (t) => {
    const org = await createOrg(first);
    const caller = await createCaller(first, org.id, { org: ['ORG_OWNER'] });
    const outcomes = new Map<string, number>();
    for (let round = 0; round < 100; round++) {
      const project = await first.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: caller.token, body: { name: unique('race') } });
      assert.equal(project.status, 201, project.text);
      const [removed, added] = await Promise.all([
        first.api('DELETE', `/management/v1/orgs/${org.id}/projects/${project.body.id}`, { token: caller.token }),
        second.api('POST', `/management/v1/orgs/${org.id}/projects/${project.body.id}/apps/api`, {
          token: caller.token,
          body: { name: unique('app'), authMethod: 'client_secret_basic' },
        }),
      ]);
      const key = `${removed.status}/${added.status}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      assert.ok(['204/404', '409/201'].includes(key), `round ${round}: ${key}: ${removed.text} ${added.text}`);
    }
    t.diagnostic(`outcomes (removal/addition): ${JSON.stringify(Object.fromEntries(outcomes))}`);
    const [{ n }] = await first.dataSource.query('SELECT COUNT(*) AS n FROM applications a LEFT JOIN projects p ON p.id = a.project_id WHERE p.id IS NULL');
    assert.equal(Number(n), 0, JSON.stringify([...outcomes]));
  });

  it('100 races of a group removal and a member added to it through two nodes leave no membership of a removed group', async (t) => {
    const org = await createOrg(first);
    const caller = await createCaller(first, org.id, { org: ['ORG_USER_MANAGER'] });
    const member = await createCaller(first, org.id, {});
    const outcomes = new Map<string, number>();
    for (let round = 0; round < 100; round++) {
      const group = await first.api('POST', `/management/v1/orgs/${org.id}/groups`, { token: caller.token, body: { displayName: unique('race') } });
      assert.equal(group.status, 201, group.text);
      const [removed, added] = await Promise.all([
        first.api('DELETE', `/management/v1/orgs/${org.id}/groups/${group.body.id}`, { token: caller.token }),
        second.api('PUT', `/management/v1/orgs/${org.id}/groups/${group.body.id}/members/${member.userId}`, { token: caller.token }),
      ]);
      const key = `${removed.status}/${added.status}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      // The member is added first and goes with the group, or the group is gone first and the addition finds none.
      assert.ok(['204/200', '204/404'].includes(key), `round ${round}: ${key}: ${removed.text} ${added.text}`);
    }
    t.diagnostic(`outcomes (removal/addition): ${JSON.stringify(Object.fromEntries(outcomes))}`);
    const [{ n }] = await first.dataSource.query('SELECT COUNT(*) AS n FROM group_members m LEFT JOIN org_groups g ON g.id = m.group_id WHERE g.id IS NULL');
    assert.equal(Number(n), 0, 'no membership outlives its group');
  });

  it('100 races of two key rotations through two nodes leave exactly one signing key, the later rotation’s', async (t) => {
    const keysOf = async () => (await first.api('GET', '/admin/v1/keys', { token: first.adminToken })).body.keys as { keyId: string; status: string }[];
    const rotate = (service: TestService) => service.api('POST', '/admin/v1/keys/rotate', { token: first.adminToken, body: {} });
    const winners = new Map<string, number>();
    for (let round = 0; round < 100; round++) {
      const [a, b] = await Promise.all([rotate(first), rotate(second)]);
      assert.deepEqual([a.status, b.status], [200, 200], `round ${round}: ${a.text} ${b.text}`);
      const active = (await keysOf()).filter((key) => key.status === 'active');
      assert.equal(active.length, 1, `round ${round}: ${JSON.stringify(active)}`);
      // The rotations ran one after the other: the active key is one of the two, and the other one is retired.
      const winner = [a.body.activeKeyId, b.body.activeKeyId].indexOf(active[0]!.keyId);
      assert.notEqual(winner, -1, `round ${round}: the active key ${active[0]!.keyId} is neither rotation's`);
      winners.set(winner === 0 ? 'through node 1' : 'through node 2', (winners.get(winner === 0 ? 'through node 1' : 'through node 2') ?? 0) + 1);
    }
    t.diagnostic(`the later rotation: ${JSON.stringify(Object.fromEntries(winners))}`);
  });

  it('100 races of two processes creating the first signing key through two nodes leave exactly one', async (t) => {
    const keys = [first, second].map((service) => service.app.get(SigningKeysService));
    const unretired = async () => Number((await first.dataSource.query('SELECT COUNT(*) AS n FROM signing_keys WHERE retired_at IS NULL'))[0].n);
    let created = 0;
    for (let round = 0; round < 100; round++) {
      // An empty key table, as a new instance has: each process's poll would create the first key now.
      await first.dataSource.query('DELETE FROM signing_keys');
      await Promise.all(keys.map((service) => service.ensureSchedule()));
      assert.equal(await unretired(), 1, `round ${round}`);
      created++;
    }
    t.diagnostic(`${created} first keys, one per round`);
  });

  // It leaves the bootstrap admin deactivated: the test after it uses a caller made before.
  it('100 races of two owners deactivating each other through two nodes always leave one active', async (t) => {
    const [{ id: defaultOrg }] = await first.dataSource.query(`SELECT id FROM organizations WHERE name = 'default'`);
    const x = await createCaller(first, defaultOrg, { instance: ['IAM_OWNER'] });
    const y = await createCaller(first, defaultOrg, { instance: ['IAM_OWNER'] });
    // X and Y become the only active owners: the bootstrap admin and admin client step down.
    for (const { id } of await first.dataSource.query(`SELECT id FROM users WHERE org_id = ? AND user_name IN ('admin', 'admin-client')`, [defaultOrg])) {
      const res = await first.api('POST', `/management/v1/orgs/${defaultOrg}/users/${id}/deactivate`, { token: x.token, body: {} });
      assert.equal(res.status, 200, res.text);
    }
    const deactivate = (service: TestService, actor: { token: string }, target: { userId: string }) =>
      service.api('POST', `/management/v1/orgs/${defaultOrg}/users/${target.userId}/deactivate`, { token: actor.token, body: {} });
    const active = async (userId: string) => (await first.dataSource.query(`SELECT state FROM users WHERE id = ?`, [userId]))[0].state === 'active';
    const outcomes = new Map<string, number>();
    for (let round = 0; round < 100; round++) {
      const [byX, byY] = await Promise.all([deactivate(first, x, y), deactivate(second, y, x)]);
      const key = `${byX.status}/${byY.status}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      const [xActive, yActive] = [await active(x.userId), await active(y.userId)];
      assert.ok(xActive || yActive, `round ${round}: no active IAM_OWNER is left (${key}: ${byX.text} ${byY.text})`);
      // The survivor brings the other back for the next round.
      const [survivor, other] = xActive ? [x, y] : [y, x];
      if (!(xActive && yActive)) {
        const back = await first.api('POST', `/management/v1/orgs/${defaultOrg}/users/${other.userId}/reactivate`, { token: survivor.token, body: {} });
        assert.equal(back.status, 200, back.text);
      }
    }
    t.diagnostic(`outcomes (by X/by Y): ${JSON.stringify(Object.fromEntries(outcomes))}`);
    // Every round: one deactivation succeeds, the other is refused (409) or finds its caller deactivated (401).
    assert.deepEqual(
      [...outcomes.keys()].filter((k) => !['200/409', '409/200', '200/401', '401/200'].includes(k)),
      [],
      JSON.stringify([...outcomes]),
    );
  });

  // Two operating-system processes of their own, as an operator starts them (node dist/src/main.js), logging at info.
  it('a process given the three nodes as a host list starts on a healthy one and moves on when its node dies', async () => {
    const { org, caller } = listedCaller;
    const hostList = (order: number[]) => {
      const nodes = order.map((i) => new URL(cluster.nodeUrl(i)));
      return `mysql://root@${nodes.map((u) => u.host).join(',')}${nodes[0]!.pathname}`;
    };
    const env = { DATABASE_URL: hostList([0, 1, 2]), DATA_DIR: first.dataDir, SIGNING_ALG: 'EdDSA' };
    const listed = await spawnService(env);
    let late: ServiceProcess | undefined;
    try {
      const project = (service: ServiceProcess) =>
        createClient(service.url)('POST', `/management/v1/orgs/${org.id}/projects`, { token: caller.token, body: { name: unique('listed') } });
      assert.equal((await project(listed)).status, 201);
      await cluster.kill(0);
      const acknowledged: string[] = [];
      const refused: number[] = [];
      for (const deadline = Date.now() + 30_000; acknowledged.length < 5 && Date.now() < deadline; ) {
        const res = await project(listed);
        if (res.status === 201) acknowledged.push(res.body.id);
        else refused.push(res.status);
      }
      assert.ok(
        refused.every((status) => status === 503),
        `until it moved, a write answers 503: ${refused}`,
      );
      assert.equal(acknowledged.length, 5, `it moved to another node and writes again (refused meanwhile: ${refused.length})`);
      const [, port1, port2] = [0, 1, 2].map((i) => new URL(cluster.nodeUrl(i)).port);
      assert.match(listed.output(), new RegExp(`now using 127\\.0\\.0\\.1:(${port1}|${port2})`), 'the log names the node it moved to');
      for (const id of acknowledged)
        assert.equal((await second.api('GET', `/management/v1/orgs/${org.id}/projects/${id}`, { token: caller.token })).status, 200);
      // Started while the first node listed is down: it starts on the next.
      late = await spawnService(env);
      assert.equal((await project(late)).status, 201);
    } finally {
      await late?.stop();
      await listed.stop();
      await cluster.restart(0);
    }
  });
});

/**
 * Each request, repeated until it answers 503: until the node notices the others are gone (a few seconds) it still
 * serves. Anything but a success or 503 on the way (a 401, a 500) fails the test.
 */
async function waitFor503(requests: (() => Promise<{ status: number; text: string; headers: Headers }>)[]) {
  const deadline = Date.now() + 20_000;
  const answers = [];
  for (const request of requests) {
    for (;;) {
      const answer = await request();
      if (answer.status === 503 || Date.now() > deadline) {
        answers.push(answer);
        break;
      }
      assert.ok(answer.status < 300 || answer.status === 400, `before the outage shows, the request succeeds: ${answer.status} ${answer.text.slice(0, 300)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return answers;
}
