import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { eventually } from '../faults/faults.helpers.js';
import { startDownstreamPortcullis } from './support/downstream-portcullis.js';
import type { DownstreamPortcullis } from './support/downstream-portcullis.js';
import { ScimmyTarget } from './support/scimmy-target.js';

const PEER_TOKEN = 'peer-token-7d31aa';
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
/** A target that pushes no groups (and never did) plans none. */
const NO_GROUPS = { create: { count: 0, items: [] }, update: { count: 0, items: [] }, delete: { count: 0, items: [] } };

interface PlanItem {
  localId: string;
  remoteId: string | null;
  userName: string;
}

/**
 * docs/provisioning.md, "Reconcile" and "Retry": reconcile of a drifted target and retry of one object, end to end against the scimmy peer: the target
 * drifts (a user changed there, a user deleted there, a stray user of ours out of scope, a namesake without
 * externalId); the dry run names each and changes nothing (only GETs reach the target); a reconcile converges it
 * (the namesake adopted, no duplicate).
 */
describe('provisioning: reconcile and retry', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', PROVISIONING_RETRY_BASE_MS: '50', PROVISIONING_RETRY_WINDOW_MS: '600000' });
  let peer: ScimmyTarget;
  let orgId: string;
  let chosen: string;
  let targetId: string;
  const api = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${orgId}${path}`, { token: svc.adminToken, body });
  const target = () => `/provisioning/targets/${targetId}`;
  const inPeer = (userId: string) => peer.users.filter((u) => u.externalId === userId);
  const objectOf = async (userId: string) =>
    ((await api('GET', `${target()}/objects`)).body.objects as { localId: string; status: string; attempts: number }[]).find((o) => o.localId === userId);

  const person = async (inGroup: boolean) => {
    const userName = unique('rec');
    const res = await api('POST', '/users/human', {
      userName,
      profile: { firstName: 'Ada', lastName: 'Lovelace' },
      email: { email: `${userName}@example.com` },
    });
    assert.equal(res.status, 201, res.text);
    const userId = res.body.userId as string;
    if (inGroup) assert.equal((await api('PUT', `/groups/${chosen}/members/${userId}`)).status, 200);
    return { userId, userName };
  };
  /** A user created at the target by someone else (through its SCIM API, as another client would). */
  const createAtPeer = async (body: Record<string, unknown>) => {
    const res = await fetch(`${peer.baseUrl}/Users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PEER_TOKEN}`, 'content-type': 'application/scim+json' },
      body: JSON.stringify({ schemas: [USER_SCHEMA], ...body }),
    });
    const text = await res.text();
    assert.equal(res.status, 201, text);
    return (JSON.parse(text) as { id: string }).id;
  };
  /** The cursor at the log's end and its marks settled (the cursor moves before the marks it set are pushed or dropped). */
  const settled = (path: string, call = api) =>
    eventually(
      'the log read to its end, nothing pending',
      async () => {
        const { lag, objects } = (await call('GET', `${path}/status`)).body;
        return lag === 0 && objects.pending === 0 ? true : undefined;
      },
      30_000,
    );
  const pushed = (userId: string) =>
    eventually(`${userId} provisioned`, async () => ((await objectOf(userId))?.status === 'provisioned' ? true : undefined), 30_000);

  before(async () => {
    peer = await ScimmyTarget.start(PEER_TOKEN);
    orgId = (await createOrg(svc)).id;
    chosen = (await api('POST', '/groups', { displayName: unique('chosen') })).body.id;
    const created = await api('POST', '/provisioning/targets', {
      name: 'scimmy',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      scope: { users: 'groups', groupIds: [chosen] },
      onRemove: 'deactivate',
    });
    assert.equal(created.status, 201, created.text);
    targetId = created.body.id;
  });
  let downstream: DownstreamPortcullis | undefined;
  after(async () => {
    await peer?.close();
    await downstream?.close();
  });

  it('a drifted target: the dry run names each drift and changes nothing; a reconcile converges it, adopting the namesake without a duplicate', async () => {
    const changed = await person(true);
    const deleted = await person(true);
    const outsider = await person(false);
    await pushed(changed.userId);
    await pushed(deleted.userId);
    // A namesake without externalId at the target: pushing the person answers 409, and the object is a conflict.
    const namesake = unique('rec');
    const namesakeRemoteId = await createAtPeer({ userName: namesake, name: { givenName: 'Someone', familyName: 'Else' }, active: true });
    const res = await api('POST', '/users/human', {
      userName: namesake,
      profile: { firstName: 'Ada', lastName: 'Lovelace' },
      email: { email: `${namesake}@example.com` },
    });
    assert.equal(res.status, 201, res.text);
    const adoptee = res.body.userId as string;
    assert.equal((await api('PUT', `/groups/${chosen}/members/${adoptee}`)).status, 200);
    await eventually('the namesake a conflict', async () => ((await objectOf(adoptee))?.status === 'conflict' ? true : undefined), 30_000);
    // The drift: changed at the target, deleted at the target, and a stray of ours (a person outside the scope).
    const atPeer = inPeer(changed.userId)[0];
    atPeer.name.givenName = 'Drifted';
    peer.users.splice(peer.users.indexOf(inPeer(deleted.userId)[0]), 1);
    const strayRemoteId = await createAtPeer({ userName: outsider.userName, externalId: outsider.userId, active: true });
    await settled(target());

    const seen = peer.requests.length;
    const usersBefore = JSON.stringify(peer.users);
    const objectsBefore = (await api('GET', `${target()}/objects`)).body;
    const dry = await api('POST', `${target()}/reconcile`, { dryRun: true });
    assert.equal(dry.status, 200, dry.text);
    const item = (localId: string, remoteId: string | null, userName: string): PlanItem => ({ localId, remoteId, userName });
    assert.deepEqual(dry.body.plan, {
      create: { count: 1, items: [item(deleted.userId, null, deleted.userName)] },
      update: { count: 1, items: [item(changed.userId, atPeer.id, changed.userName)] },
      deactivate: { count: 1, items: [item(outsider.userId, strayRemoteId, outsider.userName)] },
      delete: { count: 0, items: [] },
      adopt: { count: 1, items: [item(adoptee, namesakeRemoteId, namesake)] },
      groups: NO_GROUPS,
    });
    assert.deepEqual([...new Set(peer.requests.slice(seen).map((r) => r.method))], ['GET'], 'a dry run only reads');
    assert.equal(JSON.stringify(peer.users), usersBefore);
    assert.deepEqual((await api('GET', `${target()}/objects`)).body, objectsBefore, 'a dry run marks nothing');
    const asDelete = await api('PATCH', target(), { onRemove: 'delete' });
    assert.equal(asDelete.status, 200, asDelete.text);
    const dryDelete = await api('POST', `${target()}/reconcile`, { dryRun: true });
    assert.deepEqual(
      [dryDelete.body.plan.deactivate.count, dryDelete.body.plan.delete.items],
      [0, [item(outsider.userId, strayRemoteId, outsider.userName)]],
      'onRemove "delete" deletes the same stray',
    );
    assert.equal((await api('PATCH', target(), { onRemove: 'deactivate' })).status, 200);

    const run = await api('POST', `${target()}/reconcile`, {});
    assert.equal(run.status, 202, run.text);
    assert.equal(typeof run.body.runId, 'string');
    const [requested] = await searchEvents(svc, { event_types: ['provisioning.reconcile.requested'], aggregate_id: targetId });
    assert.deepEqual(requested.payload, {
      runId: run.body.runId,
      create: 1,
      update: 1,
      deactivate: 1,
      delete: 0,
      adopt: 1,
      groups: { create: 0, update: 0, delete: 0 },
    });

    await eventually('the changed user put right', async () => (inPeer(changed.userId)[0]?.name?.givenName === 'Ada' ? true : undefined), 30_000);
    await eventually('the deleted user created again', async () => (inPeer(deleted.userId).length === 1 ? true : undefined), 30_000);
    await eventually('the stray deactivated', async () => (inPeer(outsider.userId)[0]?.active === false ? true : undefined), 30_000);
    await eventually('the namesake adopted', async () => (inPeer(adoptee)[0]?.id === namesakeRemoteId ? true : undefined), 30_000);
    await pushed(adoptee);
    const named = peer.users.filter((u) => String(u.userName).toLowerCase() === namesake.toLowerCase());
    assert.equal(named.length, 1, 'adopted, not duplicated');
    assert.equal(named[0].name.givenName, 'Ada');
    assert.equal(inPeer(changed.userId).length, 1);
    for (const userId of [changed.userId, deleted.userId]) await pushed(userId);

    const again = await api('POST', `${target()}/reconcile`, { dryRun: true });
    assert.equal(again.status, 200, again.text);
    for (const action of ['create', 'update', 'deactivate', 'delete', 'adopt'])
      assert.equal(again.body.plan[action].count, 0, `nothing left to ${action}: ${again.text}`);
  });

  it('a second Portcullis instance as the target (onRemove "delete"): the same drifts planned exactly, nothing changed by the dry run, converged by a reconcile', async () => {
    downstream = await startDownstreamPortcullis();
    const { scim } = downstream;
    const there = async () => {
      const res = await scim('GET', '/Users?count=100');
      assert.equal(res.status, 200, res.text);
      return res.body.Resources as { id: string; externalId?: string; userName: string; name?: { givenName?: string } }[];
    };
    const byExternalId = async (userId: string) => (await there()).filter((u) => u.externalId === userId);

    const org = (await createOrg(svc)).id;
    const local = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${org}${path}`, { token: svc.adminToken, body });
    const group = (await local('POST', '/groups', { displayName: unique('chosen') })).body.id;
    const created = await local('POST', '/provisioning/targets', {
      name: 'portcullis',
      baseUrl: downstream.baseUrl,
      auth: { type: 'bearer', token: downstream.token },
      scope: { users: 'groups', groupIds: [group] },
      onRemove: 'delete',
    });
    assert.equal(created.status, 201, created.text);
    const path = `/provisioning/targets/${created.body.id}`;
    const status = async (userId: string) =>
      ((await local('GET', `${path}/objects`)).body.objects as { localId: string; status: string }[]).find((o) => o.localId === userId)?.status;
    const member = async (userName = unique('dn'), inGroup = true) => {
      const res = await local('POST', '/users/human', {
        userName,
        profile: { firstName: 'Ada', lastName: 'Lovelace' },
        email: { email: `${userName}@example.com` },
      });
      assert.equal(res.status, 201, res.text);
      if (inGroup) assert.equal((await local('PUT', `/groups/${group}/members/${res.body.userId}`)).status, 200);
      return { userId: res.body.userId as string, userName };
    };
    const changed = await member();
    const deleted = await member();
    const outsider = await member(undefined, false);
    const namesake = unique('dn');
    const namesakeAt = await scim('POST', '/Users', { schemas: [USER_SCHEMA], userName: namesake, name: { givenName: 'Someone', familyName: 'Else' } });
    assert.equal(namesakeAt.status, 201, namesakeAt.text);
    const adoptee = await member(namesake);
    for (const userId of [changed.userId, deleted.userId])
      await eventually('provisioned', async () => ((await status(userId)) === 'provisioned' ? true : undefined), 30_000);
    await eventually('the namesake a conflict', async () => ((await status(adoptee.userId)) === 'conflict' ? true : undefined), 30_000);
    const [changedThere] = await byExternalId(changed.userId);
    const [deletedThere] = await byExternalId(deleted.userId);
    const drift = await scim('PATCH', `/Users/${changedThere.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'name.givenName', value: 'Drifted' }],
    });
    assert.ok(drift.status < 300, drift.text);
    assert.equal((await scim('DELETE', `/Users/${deletedThere.id}`)).status, 204);
    const stray = await scim('POST', '/Users', { schemas: [USER_SCHEMA], userName: outsider.userName, externalId: outsider.userId });
    assert.equal(stray.status, 201, stray.text);

    await settled(path, local);
    const before = JSON.stringify(await there());
    const dry = await local('POST', `${path}/reconcile`, { dryRun: true });
    assert.equal(dry.status, 200, dry.text);
    const item = (localId: string, remoteId: string | null, userName: string) => ({ localId, remoteId, userName });
    assert.deepEqual(dry.body.plan, {
      create: { count: 1, items: [item(deleted.userId, null, deleted.userName)] },
      update: { count: 1, items: [item(changed.userId, changedThere.id, changed.userName)] },
      deactivate: { count: 0, items: [] },
      delete: { count: 1, items: [item(outsider.userId, stray.body.id, outsider.userName)] },
      adopt: { count: 1, items: [item(adoptee.userId, namesakeAt.body.id, namesake)] },
      groups: NO_GROUPS,
    });
    assert.equal(JSON.stringify(await there()), before, 'a dry run changes nothing at the target');

    assert.equal((await local('POST', `${path}/reconcile`, { dryRun: false })).status, 202);
    await eventually(
      'converged',
      async () => {
        const users = await there();
        const one = (userId: string) => users.filter((u) => u.externalId === userId);
        const ok =
          one(changed.userId)[0]?.name?.givenName === 'Ada' &&
          one(deleted.userId).length === 1 &&
          one(outsider.userId).length === 0 &&
          one(adoptee.userId)[0]?.id === namesakeAt.body.id &&
          users.filter((u) => u.userName.toLowerCase() === namesake.toLowerCase()).length === 1;
        return ok ? true : undefined;
      },
      30_000,
    );
    await eventually('the adoptee provisioned', async () => ((await status(adoptee.userId)) === 'provisioned' ? true : undefined), 30_000);
    const again = await local('POST', `${path}/reconcile`, { dryRun: true });
    for (const action of ['create', 'update', 'deactivate', 'delete', 'adopt'])
      assert.equal(again.body.plan[action].count, 0, `nothing left to ${action}: ${again.text}`);
  });

  it('groups: a renamed group, a member removed there, a group deleted there and one of ours gone here are planned and converged', async () => {
    const org = (await createOrg(svc)).id;
    const inOrg = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${org}${path}`, { token: svc.adminToken, body });
    const people: string[] = [];
    for (let i = 0; i < 3; i++) {
      const userName = unique('grp');
      const res = await inOrg('POST', '/users/human', { userName, profile: { firstName: 'G', lastName: 'R' }, email: { email: `${userName}@example.com` } });
      assert.equal(res.status, 201, res.text);
      people.push(res.body.userId);
    }
    const group = async (members: string[]) => {
      const displayName = unique('team');
      const created = await inOrg('POST', '/groups', { displayName });
      assert.equal(created.status, 201, created.text);
      for (const userId of members) assert.equal((await inOrg('PUT', `/groups/${created.body.id}/members/${userId}`)).status, 200);
      return { id: created.body.id as string, displayName };
    };
    const [renamed, removedThere, goneHere] = [await group([people[0], people[1]]), await group([people[2]]), await group([people[0]])];
    const created = await inOrg('POST', '/provisioning/targets', {
      name: 'groups',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      pushGroups: 'all',
    });
    assert.equal(created.status, 201, created.text);
    const path = `/provisioning/targets/${created.body.id}`;
    const atPeer = (groupId: string) => peer.groups.find((g) => g.externalId === groupId);
    const members = (groupId: string) =>
      ((atPeer(groupId)?.members ?? []) as { value: string }[]).map((m) => peer.users.find((u) => u.id === m.value)?.externalId).sort();
    await eventually(
      'the three groups at the target',
      async () => (atPeer(renamed.id) && atPeer(removedThere.id) && atPeer(goneHere.id) ? true : undefined),
      30_000,
    );
    await eventually('their members there', async () => (members(renamed.id).length === 2 ? true : undefined), 30_000);
    await settled(path, inOrg);

    // Drift, while the target is disabled: at the target a rename and a member removed, a group deleted; here a group removed.
    assert.equal((await inOrg('PATCH', path, { enabled: false })).status, 200);
    atPeer(renamed.id)!.displayName = 'renamed there';
    atPeer(renamed.id)!.members = (atPeer(renamed.id)!.members as { value: string }[]).filter(
      (m) => peer.users.find((u) => u.id === m.value)?.externalId !== people[1],
    );
    peer.groups.splice(peer.groups.indexOf(atPeer(removedThere.id)!), 1);
    assert.equal((await inOrg('DELETE', `/groups/${goneHere.id}`)).status, 204);

    const before = peer.requests.length;
    const dry = await inOrg('POST', `${path}/reconcile`, { dryRun: true });
    assert.equal(dry.status, 200, dry.text);
    const ids = (action: 'create' | 'update' | 'delete') => (dry.body.plan.groups[action].items as { localId: string }[]).map((i) => i.localId);
    assert.deepEqual(ids('update'), [renamed.id]);
    assert.deepEqual(ids('create'), [removedThere.id]);
    assert.deepEqual(ids('delete'), [goneHere.id]);
    const reads = peer.requests.slice(before);
    assert.ok(
      reads.every((r) => r.method === 'GET'),
      'a dry run only reads',
    );
    assert.ok(
      reads.filter((r) => r.path.startsWith('/scim/v2/Groups')).every((r) => /excludedAttributes=members|attributes=id/.test(r.path)),
      'no group is read with its members',
    );
    assert.equal(atPeer(renamed.id)!.displayName, 'renamed there', 'nothing changed');

    assert.equal((await inOrg('POST', `${path}/reconcile`, {})).status, 202);
    assert.equal((await inOrg('PATCH', path, { enabled: true })).status, 200);
    await eventually(
      'converged',
      async () =>
        atPeer(renamed.id)?.displayName === renamed.displayName &&
        JSON.stringify(members(renamed.id)) === JSON.stringify([people[0], people[1]].sort()) &&
        JSON.stringify(members(removedThere.id)) === JSON.stringify([people[2]]) &&
        atPeer(goneHere.id) === undefined
          ? true
          : undefined,
      30_000,
    );
    await settled(path, inOrg);
    const again = await inOrg('POST', `${path}/reconcile`, { dryRun: true });
    assert.deepEqual(
      ['create', 'update', 'delete'].map((a) => again.body.plan.groups[a].count),
      [0, 0, 0],
      'a converged target plans nothing for groups',
    );
  });

  it('groups: members added at the target are removed by a reconcile, which restores the name and the members removed there', async () => {
    const org = (await createOrg(svc)).id;
    const inOrg = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${org}${path}`, { token: svc.adminToken, body });
    const people: string[] = [];
    for (let i = 0; i < 5; i++) {
      const userName = unique('extra');
      const res = await inOrg('POST', '/users/human', { userName, profile: { firstName: 'E', lastName: 'X' }, email: { email: `${userName}@example.com` } });
      assert.equal(res.status, 201, res.text);
      people.push(res.body.userId);
    }
    const members = people.slice(0, 4);
    const displayName = unique('team');
    const groupId = (await inOrg('POST', '/groups', { displayName })).body.id as string;
    for (const userId of members) assert.equal((await inOrg('PUT', `/groups/${groupId}/members/${userId}`)).status, 200);
    const created = await inOrg('POST', '/provisioning/targets', {
      name: 'extras',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      pushGroups: 'all',
    });
    assert.equal(created.status, 201, created.text);
    const path = `/provisioning/targets/${created.body.id}`;
    const atPeer = () => peer.groups.find((g) => g.externalId === groupId);
    const remoteIdOf = (userId: string) => peer.users.find((u) => u.externalId === userId)?.id as string;
    const listed = () => ((atPeer()?.members ?? []) as { value: string }[]).map((m) => m.value).sort();
    const wanted = () => members.map(remoteIdOf).sort();
    await eventually('the group and its members at the target', async () => (people.every(remoteIdOf) && listed().length === 4 ? true : undefined), 30_000);
    await settled(path, inOrg);

    // Drift at the target, while the target is disabled: renamed, two members removed, two other users added (a
    // person of ours outside the group, and a user someone else created there).
    assert.equal((await inOrg('PATCH', path, { enabled: false })).status, 200);
    const foreign = await createAtPeer({ userName: unique('foreign'), active: true });
    const group = atPeer()!;
    group.displayName = 'renamed there';
    group.members = [
      ...(group.members as { value: string }[]).filter((m) => m.value !== remoteIdOf(members[0]) && m.value !== remoteIdOf(members[1])),
      { value: remoteIdOf(people[4]) },
      { value: foreign },
    ];

    const dry = await inOrg('POST', `${path}/reconcile`, { dryRun: true });
    assert.equal(dry.status, 200, dry.text);
    assert.deepEqual(
      (dry.body.plan.groups.update.items as { localId: string }[]).map((i) => i.localId),
      [groupId],
    );
    assert.equal((await inOrg('POST', `${path}/reconcile`, {})).status, 202);
    assert.equal((await inOrg('PATCH', path, { enabled: true })).status, 200);
    await eventually(
      'the name and the members removed there restored',
      async () => (atPeer()?.displayName === displayName && wanted().every((id) => listed().includes(id)) ? true : undefined),
      30_000,
    );
    await settled(path, inOrg);
    assert.deepEqual(listed(), wanted(), 'the target lists exactly the group members here, none of those added there');
    assert.ok(
      peer.users.some((u) => u.id === foreign),
      'the user added there stays at the target, only out of the group',
    );
    const again = await inOrg('POST', `${path}/reconcile`, { dryRun: true });
    assert.deepEqual(
      ['create', 'update', 'delete'].map((a) => again.body.plan.groups[a].count),
      [0, 0, 0],
      'a converged target plans nothing for groups',
    );
  });

  it('a failing object (the target answered 400) retried through the route is pushed', async () => {
    // The person joins the chosen group after the pusher has read the creation: a membership event read after a
    // failed push marks the object pending again (a new change), which would take the 400's 'failing' away.
    const { userId, userName } = await person(false);
    await settled(target());
    // The target refuses this one user (not the next request, which another push could take).
    peer.refusedUserNames.add(userName);
    assert.equal((await api('PUT', `/groups/${chosen}/members/${userId}`)).status, 200);
    await eventually('failing', async () => ((await objectOf(userId))?.status === 'failing' ? true : undefined), 30_000);
    assert.equal(inPeer(userId).length, 0);
    peer.refusedUserNames.delete(userName);
    const retried = await api('POST', `${target()}/objects/user/${userId}/retry`, {});
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.localId, userId);
    assert.equal(retried.body.attempts, 0);
    assert.equal(retried.body.status, 'pending');
    await pushed(userId);
    assert.equal(inPeer(userId).length, 1);
    const [event] = await searchEvents(svc, { event_types: ['provisioning.retry.requested'], aggregate_id: targetId });
    assert.deepEqual(event.payload, { kind: 'user', localId: userId });
  });

  it('a failing group (the target answered 400 to its POST) retried through the route is pushed', async () => {
    const org = (await createOrg(svc)).id;
    const local = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${org}${path}`, { token: svc.adminToken, body });
    const groupId = (await local('POST', '/groups', { displayName: unique('retried') })).body.id as string;
    peer.fault = { status: 400, count: 1, only: { method: 'POST', path: '/scim/v2/Groups' } };
    const created = await local('POST', '/provisioning/targets', {
      name: 'groups',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      pushGroups: 'all',
    });
    assert.equal(created.status, 201, created.text);
    const path = `/provisioning/targets/${created.body.id}`;
    const status = async () =>
      ((await local('GET', `${path}/objects`)).body.objects as { kind: string; localId: string; status: string }[]).find(
        (o) => o.kind === 'group' && o.localId === groupId,
      )?.status;
    await eventually('the group failing', async () => ((await status()) === 'failing' ? true : undefined), 30_000);
    const retried = await local('POST', `${path}/objects/group/${groupId}/retry`, {});
    assert.equal(retried.status, 200, retried.text);
    assert.deepEqual([retried.body.kind, retried.body.status, retried.body.attempts], ['group', 'pending', 0]);
    await eventually('the group provisioned', async () => ((await status()) === 'provisioned' ? true : undefined), 30_000);
    assert.equal(peer.groups.filter((g) => g.externalId === groupId).length, 1);
  });

  it("bad input: unknown target or object 404, another organization's target 404, dryRun not a boolean or an unknown kind 400; nothing changes", async () => {
    const events = async () =>
      (await searchEvents(svc, { event_types: ['provisioning.reconcile.requested', 'provisioning.retry.requested'], aggregate_id: targetId })).length;
    const before = await events();
    assert.equal((await api('POST', '/provisioning/targets/no-such-target/reconcile', { dryRun: true })).status, 404);
    assert.equal((await api('POST', '/provisioning/targets/no-such-target/objects/user/x/retry', {})).status, 404);
    assert.equal((await api('POST', `${target()}/objects/user/no-such-user/retry`, {})).status, 404);
    const other = (await createOrg(svc)).id;
    for (const path of [`/reconcile`, `/objects/user/${orgId}/retry`]) {
      const res = await svc.api('POST', `/management/v1/orgs/${other}/provisioning/targets/${targetId}${path}`, {
        token: svc.adminToken,
        body: { dryRun: false },
      });
      assert.equal(res.status, 404, res.text);
    }
    const notBoolean = await api('POST', `${target()}/reconcile`, { dryRun: 'yes' });
    assert.equal(notBoolean.status, 400, notBoolean.text);
    assert.match(notBoolean.text, /dryRun/);
    const badKind = await api('POST', `${target()}/objects/robot/x/retry`, {});
    assert.equal(badKind.status, 400, badKind.text);
    assert.match(badKind.text, /kind/);
    assert.equal(await events(), before);
  });
});
