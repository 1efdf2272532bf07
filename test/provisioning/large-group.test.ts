import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { eventually } from '../faults/faults.helpers.js';
import { ScimmyTarget } from './support/scimmy-target.js';
import type { SeenRequest } from './support/scimmy-target.js';
import { seedMembers, seedProvisioned } from './support/seed-members.js';

const PEER_TOKEN = 'peer-token-20k';
const SIZE = 5_000;
const LEAVING = 10;
const WAIT = 240_000;
/** Remote ids this long make the whole group (which scimmy answers to every PATCH) larger than the 1 MiB answer cap. */
const remoteIdOf = (userId: string) => `r-${userId}-`.padEnd(220, 'x');
/** The member ids a PATCH adds (`add` operations on `members`), in the order sent. */
const addedMembers = (body: unknown) =>
  ((body as { Operations?: { op: string; path?: string; value?: { value: string }[] }[] }).Operations ?? [])
    .filter((op) => op.op.toLowerCase() === 'add' && op.path === 'members')
    .flatMap((op) => (op.value ?? []).map((member) => member.value));

/**
 * docs/provisioning.md, "Groups": a large group is pushed to an independent SCIM server (scimmy) from the record of
 * pushed memberships, never reading the remote group with its members: the group, as scimmy answers it to every
 * PATCH, is larger than the 1 MiB answer cap. Members leaving are removed one `remove` operation each. Setup only:
 * the members are written straight to the tables and are already at the target (their provisioning objects say
 * so), since thousands of user pushes are not what this tests. The size is what scimmy takes within the default 10 s
 * request timeout: its PATCH validates the whole group again (about 15 s for 1,000 members added to 19,000, and 110 s
 * for 100 removals, on the loaded test machine); large-group-20k.test.ts pushes 20,000 members with the target's
 * `requestTimeoutMs` raised.
 */
describe('provisioning: a group larger than the answer cap', () => {
  const svc = useService({
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    PROVISIONING_RETRY_BASE_MS: '50',
    PROVISIONING_RETRY_WINDOW_MS: '600000',
    PROVISIONING_MEMBERS_PER_PATCH: '1000',
  });
  let peer: ScimmyTarget;
  let orgId: string;
  let groupId: string;
  let targetId: string;
  let userIds: string[];
  const api = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${orgId}${path}`, { token: svc.adminToken, body });
  const remoteGroup = () => peer.groups.find((g) => g.externalId === groupId);
  const recorded = async () =>
    Number((await svc.dataSource.query('SELECT COUNT(*) AS n FROM provisioning_members WHERE target_id = ? AND group_id = ?', [targetId, groupId]))[0].n);
  const remoteMembers = () => new Set(((remoteGroup()?.members ?? []) as { value: string }[]).map((m) => m.value));

  before(async () => {
    peer = await ScimmyTarget.start(PEER_TOKEN);
    orgId = (await createOrg(svc)).id;
    const group = await api('POST', '/groups', { displayName: unique('everyone') });
    assert.equal(group.status, 201, group.text);
    groupId = group.body.id;
    const created = await api('POST', '/provisioning/targets', {
      name: 'scimmy',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      pushGroups: 'all',
      enabled: false,
    });
    assert.equal(created.status, 201, created.text);
    targetId = created.body.id;
    const prefix = unique('big');
    userIds = await seedMembers(svc.dataSource, orgId, groupId, prefix, SIZE);
    const now = new Date().toISOString();
    for (const userId of userIds)
      peer.users.push({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        id: remoteIdOf(userId),
        externalId: userId,
        userName: userId,
        meta: { created: now },
      });
    await seedProvisioned(svc.dataSource, targetId, userIds, remoteIdOf);
  });
  after(async () => {
    await peer?.close();
  });

  it('is pushed in chunks from the record, without reading the remote group whole; members leaving are removed one operation each', async () => {
    const started = Date.now();
    assert.equal((await api('PATCH', `/provisioning/targets/${targetId}`, { enabled: true })).status, 200);
    await eventually('every member at the target', async () => (remoteMembers().size === SIZE ? true : undefined), WAIT);
    const pushedIn = Date.now() - started;
    const groupRequests = () => peer.requests.filter((r) => r.path.includes('/Groups'));
    const reads = groupRequests().filter((r) => r.method === 'GET');
    assert.ok(
      reads.every((r) => /excludedAttributes=members|attributes=/.test(r.path)),
      `every read of a group leaves the members out: ${reads.map((r) => r.path).join(', ')}`,
    );
    // A chunk is sent again only when its answer was cut off (the default 10 s timeout of docs/provisioning.md, "Outbound
    // calls", on a loaded machine): adding members already there changes nothing at the target. An answered chunk is
    // recorded and never sent again.
    const sends = groupRequests()
      .filter((r) => r.method === 'PATCH')
      .map((r) => ({ request: r, members: addedMembers(r.body) }))
      .filter((send) => send.members.length > 0);
    const chunks = new Map<string, { request: SeenRequest; members: string[] }>();
    for (const send of sends) {
      const key = send.members.join(' ');
      const earlier = chunks.get(key);
      assert.ok(!earlier || earlier.request.answered === false, `a chunk answered at ${earlier?.request.at} was sent again at ${send.request.at}`);
      chunks.set(key, send);
    }
    assert.deepEqual(
      [...chunks.values()].map((chunk) => chunk.members.length),
      Array(SIZE / 1000).fill(1000),
      'one PATCH per 1000 members, each answered (unread) beyond the cap',
    );
    assert.equal(new Set([...chunks.values()].flatMap((chunk) => chunk.members)).size, SIZE, 'the chunks are disjoint and cover the group');
    const resent = sends.length - chunks.size;
    // The record is written after each PATCH is answered.
    await eventually('the record holds every pushed member', async () => ((await recorded()) === SIZE ? true : undefined), WAIT);

    const before = groupRequests().length;
    const leaving = userIds.slice(0, LEAVING);
    for (const userId of leaving) assert.equal((await api('DELETE', `/groups/${groupId}/members/${userId}`)).status, 204);
    await eventually('the leavers gone at the target', async () => (remoteMembers().size === SIZE - LEAVING ? true : undefined), WAIT);
    const members = remoteMembers();
    assert.ok(
      leaving.every((userId) => !members.has(remoteIdOf(userId))),
      'the ones who left are gone',
    );
    const patches = groupRequests()
      .slice(before)
      .filter((r) => r.method === 'PATCH');
    assert.ok(patches.length >= 1, 'removed by PATCH');
    await eventually('the record follows', async () => ((await recorded()) === SIZE - LEAVING ? true : undefined), WAIT);
    console.log(
      `# ${SIZE}-member group pushed to scimmy in ${pushedIn} ms (${resent} chunk(s) sent again); ${LEAVING} removals in ${patches.length} PATCH(es)`,
    );
  });
});
