import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { eventually } from '../faults/faults.helpers.js';
import { startDownstreamPortcullis } from './support/downstream-portcullis.js';
import type { DownstreamPortcullis } from './support/downstream-portcullis.js';
import { ScimmyTarget } from './support/scimmy-target.js';

const PEER_TOKEN = 'peer-token-5d1f07';
const WAIT = 30_000;

interface RemoteGroup {
  id: string;
  externalId?: string;
  displayName: string;
  members?: { value: string }[];
}

const sorted = (ids: Iterable<string | undefined>) => [...ids].map(String).sort();

/**
 * docs/provisioning.md, "Groups": an organization's groups pushed to two real targets — an independent SCIM server (scimmy) and a
 * second Portcullis instance's SCIM API — with their members as chunked PATCHes (two members a request here), through
 * creation, members joining and leaving, a rename, a deletion, a user leaving the chosen groups, and a member the
 * target refuses (which holds back only its group).
 */
describe('provisioning: groups pushed to two real targets converge', () => {
  const svc = useService({
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    PROVISIONING_RETRY_BASE_MS: '50',
    PROVISIONING_RETRY_WINDOW_MS: '600000',
    PROVISIONING_MEMBERS_PER_PATCH: '2',
  });
  let downstream: DownstreamPortcullis;
  let peer: ScimmyTarget;
  let orgId: string;
  const admin = (method: string, path: string, body?: unknown) => svc.api(method, path, { token: svc.adminToken, body });
  const inOrg = (org: string) => (method: string, path: string, body?: unknown) => admin(method, `/management/v1/orgs/${org}${path}`, body);

  before(async () => {
    downstream = await startDownstreamPortcullis();
    peer = await ScimmyTarget.start(PEER_TOKEN);
    orgId = (await createOrg(svc)).id;
    const api = inOrg(orgId);
    const toPeer = await api('POST', '/provisioning/targets', {
      name: 'scimmy',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      pushGroups: 'all',
    });
    assert.equal(toPeer.status, 201, toPeer.text);
    // "scoped" with every user in scope is every group.
    const toPortcullis = await api('POST', '/provisioning/targets', {
      name: 'portcullis',
      baseUrl: downstream.baseUrl,
      auth: { type: 'bearer', token: downstream.token },
      pushGroups: 'scoped',
      onRemove: 'delete',
    });
    assert.equal(toPortcullis.status, 201, toPortcullis.text);
  });
  after(async () => {
    await peer?.close();
    await downstream?.close();
  });

  const person = async (org: string, userName = unique('member')) => {
    const res = await inOrg(org)('POST', '/users/human', { userName, profile: { firstName: 'G', lastName: 'M' }, email: { email: `${userName}@example.com` } });
    assert.equal(res.status, 201, res.text);
    return { userId: res.body.userId as string, userName };
  };
  const group = async (org: string, members: string[]) => {
    const created = await inOrg(org)('POST', '/groups', { displayName: unique('team') });
    assert.equal(created.status, 201, created.text);
    for (const userId of members) assert.equal((await inOrg(org)('PUT', `/groups/${created.body.id}/members/${userId}`)).status, 200);
    return created.body.id as string;
  };
  const peerGroup = (groupId: string) => peer.groups.find((g) => g.externalId === groupId) as RemoteGroup | undefined;
  /** The Portcullis ids of the peer group's members (the peer lists its own user ids). */
  const peerMembers = (g: RemoteGroup) => sorted((g.members ?? []).map((m) => peer.users.find((u) => u.id === m.value)?.externalId));
  const downstreamGroup = async (groupId: string): Promise<RemoteGroup | undefined> => {
    const res = await downstream.scim('GET', `/Groups?filter=${encodeURIComponent(`externalId eq "${groupId}"`)}`);
    assert.equal(res.status, 200, res.text);
    return res.body.Resources[0];
  };
  const downstreamMembers = async (g: RemoteGroup) => {
    const ids = [];
    for (const m of g.members ?? []) ids.push((await downstream.scim('GET', `/Users/${m.value}`)).body.externalId as string);
    return sorted(ids);
  };
  /** Both targets have the group under that name, listing exactly those people. */
  const atBoth = async (groupId: string, displayName: string, userIds: string[]) => {
    const atPeer = peerGroup(groupId);
    const atDownstream = await downstreamGroup(groupId);
    if (!atPeer || !atDownstream || atPeer.displayName !== displayName || atDownstream.displayName !== displayName) return undefined;
    const want = sorted(userIds);
    if (JSON.stringify(peerMembers(atPeer)) !== JSON.stringify(want) || JSON.stringify(await downstreamMembers(atDownstream)) !== JSON.stringify(want))
      return undefined;
    return true;
  };
  const nameOf = async (org: string, groupId: string) =>
    ((await inOrg(org)('GET', '/groups')).body.groups as { id: string; displayName: string }[]).find((g) => g.id === groupId)!.displayName;

  it('a group appears at both targets with its members, follows members joining and leaving and a rename, and is deleted with it', async () => {
    const [a, b, c] = [await person(orgId), await person(orgId), await person(orgId)];
    const groupId = await group(orgId, [a.userId, b.userId]);
    const name = await nameOf(orgId, groupId);
    await eventually('created with two members at both', () => atBoth(groupId, name, [a.userId, b.userId]), WAIT);
    assert.equal(peer.groups.filter((g) => g.externalId === groupId).length, 1, 'created once');

    assert.equal((await inOrg(orgId)('PUT', `/groups/${groupId}/members/${c.userId}`)).status, 200);
    assert.equal((await inOrg(orgId)('DELETE', `/groups/${groupId}/members/${a.userId}`)).status, 204);
    await eventually('one joined, one left, at both', () => atBoth(groupId, name, [b.userId, c.userId]), WAIT);

    // Renamed through the source's own SCIM API.
    const renamed = unique('renamed');
    const patch = await admin('PATCH', `/scim/v2/${orgId}/Groups/${groupId}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'displayName', value: renamed }],
    });
    assert.ok(patch.status === 200 || patch.status === 204, patch.text);
    await eventually('renamed at both', () => atBoth(groupId, renamed, [b.userId, c.userId]), WAIT);

    assert.equal((await inOrg(orgId)('DELETE', `/groups/${groupId}`)).status, 204);
    await eventually(
      'deleted at both',
      async () => (peerGroup(groupId) === undefined && (await downstreamGroup(groupId)) === undefined ? true : undefined),
      WAIT,
    );
    assert.ok(
      peer.users.some((u) => u.externalId === b.userId),
      'its members stay',
    );
  });

  it('a user leaving the chosen groups leaves the pushed groups; people outside the scope are never listed', async () => {
    const org = (await createOrg(svc)).id;
    const [stays, leaves, outsider] = [await person(org), await person(org), await person(org)];
    const chosen = await group(org, [stays.userId, leaves.userId]);
    const other = await group(org, [stays.userId, leaves.userId, outsider.userId]);
    const created = await inOrg(org)('POST', '/provisioning/targets', {
      name: 'chosen',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      scope: { users: 'groups', groupIds: [chosen] },
      pushGroups: 'all',
    });
    assert.equal(created.status, 201, created.text);
    const lists = (groupId: string, userIds: string[]) => async () => {
      const g = peerGroup(groupId);
      return g && JSON.stringify(peerMembers(g)) === JSON.stringify(sorted(userIds)) ? true : undefined;
    };
    await eventually('the chosen group with both', lists(chosen, [stays.userId, leaves.userId]), WAIT);
    await eventually('the other group with the two in scope', lists(other, [stays.userId, leaves.userId]), WAIT);
    assert.equal(
      peer.users.find((u) => u.externalId === outsider.userId),
      undefined,
    );

    assert.equal((await inOrg(org)('DELETE', `/groups/${chosen}/members/${leaves.userId}`)).status, 204);
    await eventually('gone from the chosen group', lists(chosen, [stays.userId]), WAIT);
    await eventually('gone from the other group too (out of scope)', lists(other, [stays.userId]), WAIT);
    await eventually(
      'deactivated as onRemove says',
      async () => (peer.users.find((u) => u.externalId === leaves.userId)?.active === false ? true : undefined),
      WAIT,
    );
  });

  it('pushGroups: "scoped" with a group scope pushes the chosen groups, "all" every group, "none" deletes those pushed', async () => {
    const org = (await createOrg(svc)).id;
    const member = await person(org);
    const chosen = await group(org, [member.userId]);
    const other = await group(org, [member.userId]);
    const created = await inOrg(org)('POST', '/provisioning/targets', {
      name: 'choice',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      scope: { users: 'groups', groupIds: [chosen] },
    });
    assert.equal(created.status, 201, created.text);
    const target = `/provisioning/targets/${created.body.id}`;
    await eventually('the member pushed', async () => peer.users.find((u) => u.externalId === member.userId), WAIT);
    await eventually('the log read', async () => ((await inOrg(org)('GET', `${target}/status`)).body.lag === 0 ? true : undefined), WAIT);
    assert.equal(peerGroup(chosen) ?? peerGroup(other), undefined, 'no groups with "none"');

    assert.equal((await inOrg(org)('PATCH', target, { pushGroups: 'scoped' })).status, 200);
    await eventually('the chosen group pushed', async () => peerGroup(chosen), WAIT);
    await eventually(
      'the log read again',
      async () =>
        (await inOrg(org)('GET', `${target}/status`)).body.lag === 0 && (await inOrg(org)('GET', `${target}/status`)).body.objects.pending === 0
          ? true
          : undefined,
      WAIT,
    );
    assert.equal(peerGroup(other), undefined, 'a group that is not chosen is not pushed with "scoped"');

    assert.equal((await inOrg(org)('PATCH', target, { pushGroups: 'all' })).status, 200);
    await eventually('every group pushed', async () => (peerGroup(other) && peerMembers(peerGroup(other)!)[0] === member.userId ? true : undefined), WAIT);

    assert.equal((await inOrg(org)('PATCH', target, { pushGroups: 'none' })).status, 200);
    await eventually('both deleted at the target', async () => (peerGroup(chosen) === undefined && peerGroup(other) === undefined ? true : undefined), WAIT);
    assert.ok(peer.users.find((u) => u.externalId === member.userId)?.active, 'the member stays');
  });

  it('members go in chunks: five members with two a request are three PATCHes after one POST', async () => {
    const org = (await createOrg(svc)).id;
    const people = [];
    for (let i = 0; i < 5; i++) people.push((await person(org)).userId);
    const groupId = await group(org, people);
    // Added after the group is complete: its first sync pushes the people, then the group once.
    const created = await inOrg(org)('POST', '/provisioning/targets', {
      name: 'chunks',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      pushGroups: 'all',
    });
    assert.equal(created.status, 201, created.text);
    await eventually(
      'the group with its five members',
      async () => {
        const g = peerGroup(groupId);
        return g && peerMembers(g).length === 5 ? g : undefined;
      },
      WAIT,
    );
    const remoteId = peerGroup(groupId)!.id;
    assert.deepEqual(sorted(peerMembers(peerGroup(groupId)!)), sorted(people));
    const patches = peer.requests.filter((r) => r.method === 'PATCH' && r.path === `/scim/v2/Groups/${remoteId}`);
    assert.equal(patches.length, 3, 'five members, two a PATCH');
    assert.equal(peer.groups.filter((g) => g.externalId === groupId).length, 1);
  });

  it('a POST whose answer is lost is not repeated: the retry finds the group by its externalId', async () => {
    const org = (await createOrg(svc)).id;
    const member = await person(org);
    const groupId = await group(org, [member.userId]);
    // The target carries out the POST but its answer comes after the pusher's 10 s timeout.
    peer.fault = { holdAnswerMs: 11_000, only: { method: 'POST', path: '/scim/v2/Groups' } };
    const created = await inOrg(org)('POST', '/provisioning/targets', {
      name: 'lost',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      pushGroups: 'all',
    });
    assert.equal(created.status, 201, created.text);
    await eventually(
      'the POST held',
      async () => (peer.requests.some((r) => r.method === 'POST' && r.path === '/scim/v2/Groups' && r.delayed) ? true : undefined),
      WAIT,
    );
    peer.fault = undefined;
    await eventually(
      'the group with its member after the retry',
      async () => {
        const g = peerGroup(groupId);
        return g && JSON.stringify(peerMembers(g)) === JSON.stringify([member.userId]) ? true : undefined;
      },
      WAIT,
    );
    assert.equal(peer.groups.filter((g) => g.externalId === groupId).length, 1, 'no duplicate');
    assert.ok(
      peer.requests.some((r) => r.method === 'GET' && r.path.startsWith('/scim/v2/Groups?filter=') && decodeURIComponent(r.path).includes(groupId)),
      'looked up by externalId',
    );
  });

  it('a member the target refuses holds back only its group; its next change brings both', async () => {
    const org = (await createOrg(svc)).id;
    const refused = await person(org, unique('refused'));
    const [a, b] = [await person(org), await person(org)];
    peer.refusedUserNames.add(refused.userName);
    const held = await group(org, [refused.userId, a.userId]);
    const free = await group(org, [b.userId]);
    const created = await inOrg(org)('POST', '/provisioning/targets', {
      name: 'held',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      pushGroups: 'all',
    });
    assert.equal(created.status, 201, created.text);
    const objects = async (query = '') =>
      (await inOrg(org)('GET', `/provisioning/targets/${created.body.id}/objects${query}`)).body.objects as {
        kind: string;
        localId: string;
        status: string;
        lastError?: string;
        lastStatus?: number;
      }[];

    await eventually('the other group pushed', async () => (peerGroup(free) ? true : undefined), WAIT);
    const heldBack = await eventually(
      'the group held back by its failing member',
      async () => (await objects('?status=failing')).find((o) => o.localId === held),
      WAIT,
    );
    assert.equal(heldBack.kind, 'group');
    assert.match(heldBack.lastError!, new RegExp(`held back by 1 member\\(s\\) failing at the target: ${refused.userId}`));
    const member = (await objects('?status=failing')).find((o) => o.localId === refused.userId)!;
    assert.equal(member.lastStatus, 400);
    assert.ok(
      peer.users.some((u) => u.externalId === a.userId),
      'the other member is pushed',
    );
    assert.equal(peerGroup(held), undefined, 'the group is not created without its member');

    peer.refusedUserNames.delete(refused.userName);
    assert.equal((await inOrg(org)('PATCH', `/users/${refused.userId}`, { profile: { firstName: 'Again' } })).status, 200);
    await eventually(
      'the group follows its member',
      async () => {
        const g = peerGroup(held);
        return g && JSON.stringify(peerMembers(g)) === JSON.stringify(sorted([refused.userId, a.userId])) ? true : undefined;
      },
      WAIT,
    );
  });
});
