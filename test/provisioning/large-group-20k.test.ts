import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { eventually } from '../faults/faults.helpers.js';
import { ScimmyTarget } from './support/scimmy-target.js';
import { seedMembers, seedProvisioned } from './support/seed-members.js';

// @own-process: about a minute of CPU and four to six minutes of wall time on a loaded 2-core machine (scimmy
// validates the whole group on every PATCH, in this process); test/durations.json lists it, so the runner starts it
// first, beside the other files, rather than last.

const PEER_TOKEN = 'peer-token-20k-slow';
const SIZE = 20_000;
const WAIT = 800_000;
const remoteIdOf = (userId: string) => `r-${userId}`;

/**
 * docs/provisioning.md, "Groups" and "Outbound calls": a group of 20,000 members reaches a slow target. scimmy
 * validates the whole group again on every PATCH, which takes longer than the default 10 s request timeout once the
 * group holds some thousands of members; with the target's `requestTimeoutMs` raised, every chunk is answered and
 * the target ends with exactly the group's members. Setup only: the members are written straight to the tables and
 * are already at the target (their provisioning objects say so), since 20,000 user pushes are not what this tests.
 */
describe('provisioning: a group of 20,000 members to a slow target', () => {
  const svc = useService({
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    PROVISIONING_RETRY_BASE_MS: '50',
    PROVISIONING_RETRY_WINDOW_MS: '3600000',
    PROVISIONING_MEMBERS_PER_PATCH: '1000',
  });
  let peer: ScimmyTarget;
  let orgId: string;
  let groupId: string;
  let targetId: string;
  let userIds: string[];
  const api = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${orgId}${path}`, { token: svc.adminToken, body });
  const remoteGroup = () => peer.groups.find((g) => g.externalId === groupId);
  const remoteMembers = () => ((remoteGroup()?.members ?? []) as { value: string }[]).map((m) => m.value);

  before(async () => {
    peer = await ScimmyTarget.start(PEER_TOKEN);
    orgId = (await createOrg(svc)).id;
    const group = await api('POST', '/groups', { displayName: unique('everyone') });
    assert.equal(group.status, 201, group.text);
    groupId = group.body.id;
    const created = await api('POST', '/provisioning/targets', {
      name: 'slow scimmy',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      pushGroups: 'all',
      requestTimeoutMs: 120_000,
      enabled: false,
    });
    assert.equal(created.status, 201, created.text);
    targetId = created.body.id;
    userIds = await seedMembers(svc.dataSource, orgId, groupId, unique('huge'), SIZE);
    assert.equal(userIds.length, SIZE);
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

  it('with requestTimeoutMs raised, every chunk is answered and the target ends with exactly the 20,000 members', async () => {
    const started = Date.now();
    assert.equal((await api('PATCH', `/provisioning/targets/${targetId}`, { enabled: true })).status, 200);
    await eventually(
      'the group provisioned',
      async () => {
        const objects = (await api('GET', `/provisioning/targets/${targetId}/objects`)).body.objects as { kind: string; status: string; lastError?: string }[];
        const group = objects.find((o) => o.kind === 'group');
        if (group?.status === 'failing') throw new Error(`the group is failing: ${group.lastError}`);
        return group?.status === 'provisioned' ? true : undefined;
      },
      WAIT,
      1000,
    );
    const pushedIn = Date.now() - started;
    const members = remoteMembers();
    assert.equal(members.length, SIZE, 'the target lists 20,000 members, none twice');
    const wanted = new Set(userIds.map(remoteIdOf));
    assert.ok(
      members.every((id) => wanted.has(id)),
      'only the group members',
    );
    assert.equal(new Set(members).size, SIZE);
    const patches = peer.requests.filter((r) => r.method === 'PATCH' && r.path.includes('/Groups'));
    const slowest = Math.max(...patches.map((r, i) => (patches[i + 1]?.at ?? Date.now()) - r.at));
    assert.ok(
      patches.every((r) => r.answered === true),
      'no chunk was cut off by the timeout',
    );
    console.log(`# ${SIZE}-member group pushed to scimmy in ${pushedIn} ms, ${patches.length} PATCHes, the slowest about ${slowest} ms`);
  });
});
