import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { eventually as eventuallyBase } from '../faults/faults.helpers.js';
import { startDownstreamPortcullis } from './support/downstream-portcullis.js';
import type { DownstreamPortcullis } from './support/downstream-portcullis.js';
import { ScimmyTarget } from './support/scimmy-target.js';

const PEER_TOKEN = 'peer-token-0c9e51';

interface RemoteUser {
  id: string;
  externalId?: string;
  userName: string;
  active?: boolean;
  name?: { givenName?: string; familyName?: string };
}

/**
 * docs/provisioning.md, "What is pushed", users: one organization pushed to two real targets — an independent SCIM server (scimmy, with a fault
 * switch) and a second Portcullis instance's SCIM API — through creates, updates, deactivations and deletions, with
 * the failures docs/provisioning.md names visible in the status and objects endpoints. Schedules are shortened through settings.
 */
describe('provisioning: users pushed to two real targets converge', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', PROVISIONING_RETRY_BASE_MS: '50', PROVISIONING_RETRY_WINDOW_MS: '600000' });
  let downstream: DownstreamPortcullis;
  let peer: ScimmyTarget;
  let orgId: string;
  let scimmyTarget: string;
  let portcullisTarget: string;
  const targets = () => `/management/v1/orgs/${orgId}/provisioning/targets`;
  const admin = (method: string, path: string, body?: unknown) => svc.api(method, path, { token: svc.adminToken, body });

  before(async () => {
    downstream = await startDownstreamPortcullis();
    peer = await ScimmyTarget.start(PEER_TOKEN);
    orgId = (await createOrg(svc)).id;
    const toPeer = await admin('POST', targets(), {
      name: 'scimmy',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      onRemove: 'deactivate',
    });
    assert.equal(toPeer.status, 201, toPeer.text);
    scimmyTarget = toPeer.body.id;
    const toPortcullis = await admin('POST', targets(), {
      name: 'portcullis',
      baseUrl: downstream.baseUrl,
      auth: { type: 'bearer', token: downstream.token },
      onRemove: 'delete',
    });
    assert.equal(toPortcullis.status, 201, toPortcullis.text);
    portcullisTarget = toPortcullis.body.id;
  });
  after(async () => {
    await peer?.close();
    await downstream?.close();
  });

  const person = async (extra: Record<string, unknown> = {}) => {
    const userName = unique('person');
    const res = await admin('POST', `/management/v1/orgs/${orgId}/users/human`, {
      userName,
      profile: { firstName: 'Ada', lastName: 'Lovelace' },
      email: { email: `${userName}@example.com` },
      ...extra,
    });
    assert.equal(res.status, 201, res.text);
    return { userId: res.body.userId as string, userName };
  };
  const inPeer = (userId: string) => peer.users.find((u) => u.externalId === userId) as RemoteUser | undefined;
  const inDownstream = async (userId: string): Promise<RemoteUser | undefined> => {
    const res = await downstream.scim('GET', `/Users?filter=${encodeURIComponent(`externalId eq "${userId}"`)}`);
    assert.equal(res.status, 200, res.text);
    return res.body.Resources[0];
  };
  const both = async (userId: string, check: (u: RemoteUser | undefined) => boolean) => {
    const there = [inPeer(userId), await inDownstream(userId)];
    return there.every(check) ? there : undefined;
  };
  // On the loaded CI machine a push can take seconds; when one does not arrive, the targets' state (in the error, which
  // the test runner repeats at the end of its log) says why.
  const eventually = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000) =>
    eventuallyBase(what, check, timeoutMs).catch(async (error: unknown) => {
      const stateOf = async (targetId: string) => {
        const { state, lag, lastError, objects: counts } = await status(targetId);
        const unsettled = (await objects(targetId)).objects.filter((o: { status: string }) => o.status !== 'provisioned').slice(0, 5);
        return { state, lag, lastError, counts, unsettled };
      };
      const requests = peer.requests.slice(-8).map((r) => `${r.method} ${r.path}${r.faulted ? ` → ${r.faulted}` : ''} at ${r.at}`);
      const state = { scimmy: await stateOf(scimmyTarget), portcullis: await stateOf(portcullisTarget), lastPeerRequests: requests, fault: peer.fault ?? null };
      throw new Error(`${(error as Error).message}\nthe targets' state: ${JSON.stringify(state)}`);
    });
  const status = async (targetId: string) => (await admin('GET', `${targets()}/${targetId}/status`)).body;
  const objects = async (targetId: string, query = '') => (await admin('GET', `${targets()}/${targetId}/objects${query}`)).body;

  it('creates: every person appears at both targets once, externalId the Portcullis id, never a password; the objects name the remote ids', async () => {
    const people = [await person({ password: 'Never-Sent-Pa55!' }), await person(), await person()];
    for (const { userId, userName } of people) {
      const [atPeer, atDownstream] = await eventually(`${userId} at both targets`, () => both(userId, (u) => u?.active === true));
      assert.equal(atPeer!.userName, userName);
      assert.equal(atDownstream!.userName, userName);
      assert.equal(atPeer!.name?.givenName, 'Ada');
    }
    assert.equal(peer.users.filter((u) => people.some((p) => p.userId === u.externalId)).length, 3, 'no duplicates');
    assert.ok(!JSON.stringify(peer.users).includes('Never-Sent-Pa55!') && !JSON.stringify(peer.users).toLowerCase().includes('password'));
    const listed = await eventually('objects provisioned', async () => {
      const body = await objects(portcullisTarget, '?status=provisioned');
      return body.total >= 3 ? body : undefined;
    });
    for (const { userId } of people) {
      const object = listed.objects.find((o: { localId: string }) => o.localId === userId);
      assert.equal(object.kind, 'user');
      assert.equal(object.remoteId, (await inDownstream(userId))!.id);
      assert.ok(object.pushedAt);
    }
    const state = await eventually('no lag', async () => ((await status(scimmyTarget)).lag === 0 ? status(scimmyTarget) : undefined));
    assert.equal(state.state, 'active');
    assert.ok(state.objects.provisioned >= 3);
    assert.ok(state.lastSuccessAt);
  });

  it('updates: a changed profile reaches both targets (PATCH, as their ServiceProviderConfig allows); changes made while a target waits coalesce into one push', async () => {
    const { userId } = await person();
    await eventually('created', () => both(userId, (u) => u !== undefined));
    // The scimmy target is disabled while four changes are made: enabled again, it finds one dirty user.
    assert.equal((await admin('PATCH', `${targets()}/${scimmyTarget}`, { enabled: false })).status, 200);
    for (const firstName of ['Ada-1', 'Ada-2', 'Ada-3', 'Augusta']) {
      const res = await admin('PATCH', `/management/v1/orgs/${orgId}/users/${userId}`, { profile: { firstName } });
      assert.equal(res.status, 200, res.text);
    }
    await eventually('renamed downstream', async () => ((await inDownstream(userId))?.name?.givenName === 'Augusta' ? true : undefined));
    assert.equal(inPeer(userId)!.name?.givenName, 'Ada', 'a disabled target receives nothing');
    const before = peer.requests.length;
    assert.equal((await admin('PATCH', `${targets()}/${scimmyTarget}`, { enabled: true })).status, 200);
    await eventually('renamed at the peer', async () => (inPeer(userId)?.name?.givenName === 'Augusta' ? true : undefined));
    const remoteId = inPeer(userId)!.id;
    const pushes = peer.requests.slice(before).filter((r) => r.path.startsWith(`/scim/v2/Users/${remoteId}`));
    assert.deepEqual(
      pushes.map((r) => r.method),
      ['PATCH'],
      'four changes, one PATCH',
    );
  });

  it('an attribute cleared here (a title, a phone number, a middle name) is removed at both targets, not left behind', async () => {
    const { userId } = await person();
    const scim = (method: string, body?: unknown) => admin(method, `/scim/v2/${orgId}/Users/${userId}`, body);
    const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
    const set = await scim('PATCH', {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'title', value: 'Countess' },
        { op: 'replace', path: 'name.middleName', value: 'Augusta' },
        { op: 'add', path: 'phoneNumbers', value: [{ value: '+41 44 668 18 00', type: 'work' }] },
      ],
    });
    assert.ok(set.status === 200 || set.status === 204, set.text);
    const holds = (u: RemoteUser | undefined) => {
      const r = u as (RemoteUser & { title?: string; phoneNumbers?: unknown[]; name?: { middleName?: string } }) | undefined;
      return r?.title === 'Countess' && r.phoneNumbers?.length === 1 && r.name?.middleName === 'Augusta';
    };
    await eventually('title, phone and middle name at both', () => both(userId, holds));
    const cleared = await scim('PATCH', {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'remove', path: 'title' },
        { op: 'remove', path: 'phoneNumbers' },
        { op: 'remove', path: 'name.middleName' },
      ],
    });
    assert.ok(cleared.status === 200 || cleared.status === 204, cleared.text);
    const clearedThere = (u: RemoteUser | undefined) => {
      const r = u as (RemoteUser & { title?: string; phoneNumbers?: unknown[]; name?: { middleName?: string } }) | undefined;
      return r !== undefined && r.title === undefined && r.phoneNumbers === undefined && r.name?.middleName === undefined && r.name?.givenName === 'Ada';
    };
    const [atPeer, atDownstream] = await eventually('removed at both', () => both(userId, clearedThere));
    assert.equal(atPeer!.userName, atDownstream!.userName, 'the rest stays');
  });

  it('deactivation: active false at both; reactivation: active again', async () => {
    const { userId } = await person();
    await eventually('created', () => both(userId, (u) => u?.active === true));
    assert.equal((await admin('POST', `/management/v1/orgs/${orgId}/users/${userId}/deactivate`, {})).status, 200);
    await eventually('inactive at both', () => both(userId, (u) => u?.active === false));
    assert.equal((await admin('POST', `/management/v1/orgs/${orgId}/users/${userId}/reactivate`, {})).status, 200);
    await eventually('active again at both', () => both(userId, (u) => u?.active === true));
  });

  it('deletion: onRemove "delete" deletes the remote user, "deactivate" keeps it inactive; the object of a deleted one goes', async () => {
    const { userId } = await person();
    await eventually('created', () => both(userId, (u) => u?.active === true));
    assert.equal((await admin('DELETE', `/management/v1/orgs/${orgId}/users/${userId}`)).status, 204);
    await eventually('removed at both as each says', async () =>
      (await inDownstream(userId)) === undefined && inPeer(userId)?.active === false ? true : undefined,
    );
    await eventually('object gone at the deleting target', async () =>
      (await objects(portcullisTarget)).objects.some((o: { localId: string }) => o.localId === userId) ? undefined : true,
    );
  });

  it('a 404 on update re-creates the user; a 500 is retried until it succeeds; a 429 waits as Retry-After says', async () => {
    const { userId } = await person();
    await eventually('created', () => both(userId, (u) => u !== undefined));
    // Removed behind our back: the next change re-creates it.
    peer.users.splice(peer.users.indexOf(inPeer(userId)!), 1);
    await admin('PATCH', `/management/v1/orgs/${orgId}/users/${userId}`, { profile: { firstName: 'Back' } });
    await eventually('re-created', async () => (inPeer(userId)?.name?.givenName === 'Back' ? true : undefined));

    peer.fault = { status: 500, count: 3 };
    const second = await person();
    await eventually('created after three 500s', async () => inPeer(second.userId));
    assert.equal(peer.users.filter((u) => u.externalId === second.userId).length, 1);

    peer.fault = { status: 429, retryAfter: '1', count: 1 };
    const third = await person();
    await eventually('created after a 429', async () => inPeer(third.userId));
    const limited = peer.requests.findLast((r) => r.faulted === 429)!;
    const next = peer.requests.find((r) => r.at > limited.at && r.faulted === undefined)!;
    assert.ok(next.at - limited.at >= 950, `the next request came ${next.at - limited.at} ms after the 429`);
  });

  it('an answer that is not JSON, and a redirect (never followed), are retried with their error visible; nothing is lost or doubled', async () => {
    for (const [fault, error] of [
      [{ status: 201, body: '<html>not SCIM</html>' }, /answered 201 without a JSON object/],
      [{ status: 302, location: `${peer.url}/elsewhere` }, /answered 302/],
    ] as const) {
      peer.fault = { ...fault };
      const { userId } = await person();
      const retrying = await eventually('retrying with its error', async () =>
        (await objects(scimmyTarget, '?status=pending')).objects.find((o: { localId: string; attempts: number }) => o.localId === userId && o.attempts >= 2),
      );
      assert.match(retrying.lastError, error);
      assert.equal(retrying.lastStatus, fault.status);
      assert.ok(!peer.requests.some((r) => r.path.startsWith('/elsewhere')), 'the redirect is not followed');
      peer.fault = undefined;
      await eventually('pushed once the target answers again', async () => inPeer(userId));
      assert.equal(peer.users.filter((u) => u.externalId === userId).length, 1, 'no duplicate');
    }
  });

  it('a 400 fails the object at once, visible with its status and error; the next change pushes it again', async () => {
    // The target refuses this one user (not the next request, which some other push could take).
    const refused = unique('refused');
    peer.refusedUserNames.add(refused);
    const { userId } = await person({ userName: refused });
    const failing = await eventually('failing', async () =>
      (await objects(scimmyTarget, '?status=failing')).objects.find((o: { localId: string }) => o.localId === userId),
    );
    assert.equal(failing.lastStatus, 400);
    assert.match(failing.lastError, /answered 400/);
    assert.equal(failing.attempts, 1);
    assert.ok((await status(scimmyTarget)).objects.failing >= 1);
    peer.refusedUserNames.delete(refused);
    await admin('PATCH', `/management/v1/orgs/${orgId}/users/${userId}`, { profile: { firstName: 'Again' } });
    await eventually('pushed after the change', async () => (inPeer(userId)?.name?.givenName === 'Again' ? true : undefined));
  });

  it('refused credentials put the target in auth_failed with its error; a new token brings it back and nothing is lost', async () => {
    assert.equal((await admin('PATCH', `${targets()}/${scimmyTarget}`, { auth: { type: 'bearer', token: 'revoked' } })).status, 200);
    const { userId } = await person();
    const failed = await eventually('auth_failed', async () => ((await status(scimmyTarget)).state === 'auth_failed' ? status(scimmyTarget) : undefined));
    assert.match(failed.lastError, /refused the credentials \(401\)/);
    assert.equal(inPeer(userId), undefined);
    assert.equal((await admin('PATCH', `${targets()}/${scimmyTarget}`, { auth: { type: 'bearer', token: PEER_TOKEN } })).status, 200);
    await eventually('pushed with the new token', async () => inPeer(userId));
    assert.equal((await status(scimmyTarget)).state, 'active');
  });

  it('a user of the same userName already at the target, not ours, is a conflict (adopted only by a reconcile)', async () => {
    const userName = unique('taken');
    peer.users.push({ id: 'someone-else', userName, active: true, meta: {} });
    const res = await admin('POST', `/management/v1/orgs/${orgId}/users/human`, {
      userName,
      profile: { firstName: 'X', lastName: 'Y' },
      email: { email: `${userName}@example.com` },
    });
    assert.equal(res.status, 201, res.text);
    const conflict = await eventually('conflict', async () =>
      (await objects(scimmyTarget, '?status=conflict')).objects.find((o: { localId: string }) => o.localId === res.body.userId),
    );
    assert.match(conflict.lastError, /not this one/);
    assert.equal(peer.users.find((u) => u.id === 'someone-else')!.externalId, undefined, 'not adopted');
    // The other target has no such user: it converges.
    await eventually('created downstream', () => inDownstream(res.body.userId));
  });

  it('OAuth client credentials: a token is fetched once and reused until it runs out; a refused token is renewed once', async () => {
    const org = (await createOrg(svc)).id;
    const created = await admin('POST', `/management/v1/orgs/${org}/provisioning/targets`, {
      name: 'oauth',
      baseUrl: peer.baseUrl,
      auth: { type: 'oauth_client_credentials', tokenUrl: peer.tokenUrl, clientId: peer.client.id, clientSecret: peer.client.secret },
    });
    assert.equal(created.status, 201, created.text);
    const tokensBefore = peer.requests.filter((r) => r.path === '/oauth/token').length;
    const people: string[] = [];
    for (let i = 0; i < 3; i++) {
      const userName = unique('oauth');
      people.push(
        (
          await admin('POST', `/management/v1/orgs/${org}/users/human`, {
            userName,
            profile: { firstName: 'O', lastName: 'A' },
            email: { email: `${userName}@example.com` },
          })
        ).body.userId,
      );
    }
    for (const userId of people) await eventually('pushed by OAuth', async () => inPeer(userId));
    assert.equal(peer.requests.filter((r) => r.path === '/oauth/token').length - tokensBefore, 1, 'one token for all requests');
    // The peer forgets its tokens: the next request is refused once, a new token is fetched, and the push goes on.
    peer.tokens.clear();
    peer.tokens.add(PEER_TOKEN);
    const userName = unique('oauth');
    const late = (
      await admin('POST', `/management/v1/orgs/${org}/users/human`, {
        userName,
        profile: { firstName: 'O', lastName: 'A' },
        email: { email: `${userName}@example.com` },
      })
    ).body.userId;
    await eventually('pushed after renewing the token', async () => inPeer(late));
    assert.equal(peer.requests.filter((r) => r.path === '/oauth/token').length - tokensBefore, 2);
  });

  it('a target added later receives the people who exist (its first sync, from the start of the log); a new scope re-reads the log', async () => {
    const org = (await createOrg(svc)).id;
    const api = (method: string, path: string, body?: unknown) => admin(method, `/management/v1/orgs/${org}${path}`, body);
    const human = async () => {
      const res = await api('POST', '/users/human', {
        userName: unique('early'),
        profile: { firstName: 'E', lastName: 'A' },
        email: { email: `${unique('early')}@example.com` },
      });
      assert.equal(res.status, 201, res.text);
      return res.body.userId as string;
    };
    const [kept, leaver, removed] = [await human(), await human(), await human()];
    assert.equal((await api('DELETE', `/users/${removed}`)).status, 204);
    const created = await api('POST', '/provisioning/targets', {
      name: 'late',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      onRemove: 'deactivate',
    });
    assert.equal(created.status, 201, created.text);
    const target = `/provisioning/targets/${created.body.id}`;
    await eventually('both existing people pushed', async () => (inPeer(kept)?.active && inPeer(leaver)?.active ? true : undefined));
    // The cursor reaches the log's end before the marks it set are pushed: the removed person's mark goes last.
    await eventually('the log read to its end, nothing left over', async () => {
      const { lag } = (await api('GET', `${target}/status`)).body;
      const pending = (await api('GET', `${target}/objects?status=pending`)).body;
      return lag === 0 && pending.total === 0 ? true : undefined;
    });
    assert.equal(inPeer(removed), undefined, 'a person removed before the target existed is nothing to push');

    const chosen = (await api('POST', '/groups', { displayName: unique('chosen') })).body.id;
    assert.equal((await api('PUT', `/groups/${chosen}/members/${kept}`)).status, 200);
    const narrowed = await api('PATCH', target, { scope: { users: 'groups', groupIds: [chosen] } });
    assert.equal(narrowed.status, 200, narrowed.text);
    await eventually('the one outside the new scope deactivated', async () => (inPeer(leaver)?.active === false ? true : undefined));
    assert.equal(inPeer(kept)?.active, true);
    assert.equal(peer.users.filter((u) => u.externalId === kept || u.externalId === leaver).length, 2, 'no duplicates from reading the log again');
  });

  it('a group scope: members of the chosen groups are pushed, others never; a user leaving the groups is removed as onRemove says', async () => {
    const org = (await createOrg(svc)).id;
    const api = (method: string, path: string, body?: unknown) => admin(method, `/management/v1/orgs/${org}${path}`, body);
    const chosen = (await api('POST', '/groups', { displayName: unique('chosen') })).body.id;
    const other = (await api('POST', '/groups', { displayName: unique('other') })).body.id;
    const created = await api('POST', '/provisioning/targets', {
      name: 'scoped',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      scope: { users: 'groups', groupIds: [chosen] },
      onRemove: 'delete',
    });
    assert.equal(created.status, 201, created.text);
    const human = async () => {
      const userName = unique('scoped');
      const res = await api('POST', '/users/human', { userName, profile: { firstName: 'S', lastName: 'C' }, email: { email: `${userName}@example.com` } });
      assert.equal(res.status, 201, res.text);
      return res.body.userId as string;
    };
    const [member, outsider] = [await human(), await human()];
    assert.equal((await api('PUT', `/groups/${chosen}/members/${member}`)).status, 200);
    assert.equal((await api('PUT', `/groups/${other}/members/${outsider}`)).status, 200);
    await eventually('the member pushed', async () => inPeer(member));
    await eventually('the target took in the log', async () =>
      (await admin('GET', `/management/v1/orgs/${org}/provisioning/targets/${created.body.id}/status`)).body.lag === 0 ? true : undefined,
    );
    assert.equal(inPeer(outsider), undefined, 'a user outside the chosen groups is never pushed');
    assert.equal((await api('DELETE', `/groups/${chosen}/members/${member}`)).status, 204);
    await eventually('removed when it left the group', async () => (inPeer(member) === undefined ? true : undefined));
  });

  it('a chosen group removed: its members that no other chosen group holds leave the scope (onRemove); the others stay', async () => {
    const org = (await createOrg(svc)).id;
    const api = (method: string, path: string, body?: unknown) => admin(method, `/management/v1/orgs/${org}${path}`, body);
    const group = async (name: string) => (await api('POST', '/groups', { displayName: unique(name) })).body.id as string;
    const [removedGroup, keptGroup, otherGroup] = [await group('removed'), await group('kept'), await group('other')];
    const created = await api('POST', '/provisioning/targets', {
      name: 'two-groups',
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: PEER_TOKEN },
      scope: { users: 'groups', groupIds: [removedGroup, keptGroup] },
      pushGroups: 'all',
      onRemove: 'deactivate',
    });
    assert.equal(created.status, 201, created.text);
    const human = async () => {
      const res = await api('POST', '/users/human', {
        userName: unique('grouped'),
        profile: { firstName: 'G', lastName: 'R' },
        email: { email: `${unique('grouped')}@example.com` },
      });
      assert.equal(res.status, 201, res.text);
      return res.body.userId as string;
    };
    const [leaver, stayer] = [await human(), await human()];
    for (const [groupId, userId] of [
      [removedGroup, leaver],
      [removedGroup, stayer],
      [keptGroup, stayer],
      [otherGroup, leaver],
    ])
      assert.equal((await api('PUT', `/groups/${groupId}/members/${userId}`)).status, 200);
    await eventually('both pushed', async () => (inPeer(leaver)?.active && inPeer(stayer)?.active ? true : undefined));
    const otherAtPeer = () => peer.groups.find((g) => g.externalId === otherGroup);
    const listsLeaver = () => (otherAtPeer()?.members ?? []).some((m: { value: string }) => m.value === inPeer(leaver)!.id);
    await eventually('the other group lists the member at the peer', async () => (listsLeaver() ? true : undefined));
    assert.equal((await api('DELETE', `/groups/${removedGroup}`)).status, 204);
    await eventually('the member of the removed group alone deactivated', async () => (inPeer(leaver)?.active === false ? true : undefined));
    await eventually('settled', async () => {
      const body = (await api('GET', `/provisioning/targets/${created.body.id}/status`)).body;
      return body.lag === 0 && body.objects.pending === 0 ? true : undefined;
    });
    assert.equal(inPeer(stayer)?.active, true, 'a member another chosen group holds stays');
    assert.ok(otherAtPeer() && !listsLeaver(), 'the other pushed group no longer lists the one who left the scope');
  });
});
