import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCaller, unique, useService } from '../support/fixtures.js';
import { assertNoSecretsIn, badRequest, refused, setUpOrg, theEvent } from './helpers.js';
import type { Caller, OrgSetup } from './helpers.js';

describe('management API: groups (create, list, members, delete)', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  const groups = (orgId: string) => `/management/v1/orgs/${orgId}/groups`;
  const member = (orgId: string, groupId: string, userId: string) => `${groups(orgId)}/${groupId}/members/${userId}`;

  async function createGroup(org: OrgSetup, displayName = unique('group'), caller: Caller = org.manager): Promise<string> {
    const res = await svc.api('POST', groups(org.org.id), { token: caller.token, body: { displayName } });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  }

  async function listed(
    org: OrgSetup,
    groupId: string,
  ): Promise<{ id: string; displayName: string; externalId: string | null; memberCount: number; grantProjects: { id: string; name: string }[] } | undefined> {
    const res = await svc.api('GET', groups(org.org.id), { token: org.manager.token });
    assert.equal(res.status, 200, res.text);
    return res.body.groups.find((g: { id: string }) => g.id === groupId);
  }

  async function memberIds(groupId: string): Promise<string[]> {
    const rows: { user_id: string }[] = await svc.dataSource.query('SELECT user_id FROM group_members WHERE group_id = ? ORDER BY user_id', [groupId]);
    return rows.map((r) => r.user_id);
  }

  async function events(type: string, groupId: string): Promise<number> {
    const rows: { n: number | string }[] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM events WHERE type = ? AND aggregate_id = ?', [type, groupId]);
    return Number(rows[0].n);
  }

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
  });

  it('creates a group (201), lists it with its external id and no members, and records group.added by its editor', async () => {
    const displayName = unique('Engineering');
    const res = await svc.api('POST', groups(a.org.id), { token: a.manager.token, body: { displayName: `  ${displayName} `, externalId: 'entra-42' } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body), ['id']);
    assert.deepEqual(await listed(a, res.body.id), { id: res.body.id, displayName, externalId: 'entra-42', memberCount: 0, grantProjects: [] });
    const event = await theEvent(svc, 'group.added', res.body.id);
    assert.equal(event.aggregate.resourceOwner, a.org.id);
    assert.equal(event.editor.userId, a.manager.userId);
    assert.deepEqual(event.payload, { displayName, externalId: 'entra-42' });
    assertNoSecretsIn(event.payload);
    assert.equal(await listed(b, res.body.id), undefined, "another organization's list does not show it");
  });

  it('refuses a display name taken in the organization, compared case-insensitively (also Greek sigma), with 409; another organization may use it', async () => {
    for (const [first, second] of [
      ['Ops-Team', 'OPS-team'],
      ['ΣΊΣΥΦΟΣ', 'σίσυφος'],
    ]) {
      const name = unique(first);
      await createGroup(a, name);
      const res = await refused(svc, 409, () =>
        svc.api('POST', groups(a.org.id), { token: a.manager.token, body: { displayName: name.replace(first, second) } }),
      );
      assert.match(res.body.message, /exists/);
      await createGroup(b, name);
    }
  });

  it('refuses bad input with 400 naming the field, and changes nothing', async () => {
    const send = (body: unknown) => () => svc.api('POST', groups(a.org.id), { token: a.manager.token, body });
    await badRequest(svc, ['displayName'], send({}));
    await badRequest(svc, ['displayName'], send({ displayName: '   ' }));
    await badRequest(svc, ['displayName'], send({ displayName: 'x'.repeat(256) }));
    await badRequest(svc, ['displayName'], send({ displayName: 'tab\there' }));
    await badRequest(svc, ['externalId'], send({ displayName: unique('g'), externalId: 7 }));
    await refused(svc, 400, send({ displayName: unique('g'), members: [] }), 'an unknown field');
  });

  it('adds and removes members idempotently: PUT 200 twice and one event, DELETE 204 twice and one event', async () => {
    const groupId = await createGroup(a);
    const user = await createCaller(svc, a.org.id);
    for (let i = 0; i < 2; i++) {
      const res = await svc.api('PUT', member(a.org.id, groupId, user.userId), { token: a.manager.token });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { groupId, userId: user.userId });
    }
    assert.deepEqual(await memberIds(groupId), [user.userId]);
    assert.equal((await listed(a, groupId))?.memberCount, 1);
    const added = await theEvent(svc, 'group.member.added', groupId);
    assert.deepEqual(added.payload, { userId: user.userId });
    assert.equal(added.editor.userId, a.manager.userId);

    for (let i = 0; i < 2; i++) assert.equal((await svc.api('DELETE', member(a.org.id, groupId, user.userId), { token: a.manager.token })).status, 204);
    assert.deepEqual(await memberIds(groupId), []);
    assert.equal((await theEvent(svc, 'group.member.removed', groupId)).payload.userId, user.userId);
  });

  it("lists a group's members a page at a time by user name, searched by name (case-folded), only in the group's organization", async () => {
    const groupId = await createGroup(a);
    const prefix = unique('pm');
    const people: Record<string, string> = {};
    for (const [suffix, firstName] of [
      ['c', 'Carl'],
      ['a', 'Zoë'],
      ['e', 'Eve'],
      ['b', 'Bea'],
      ['d', 'Dan'],
    ]) {
      const created = await svc.api('POST', `/management/v1/orgs/${a.org.id}/users/human`, {
        token: a.manager.token,
        body: { userName: `${prefix}-${suffix}`, profile: { firstName, lastName: 'Member' }, email: { email: `${prefix}-${suffix}@example.com` } },
      });
      assert.equal(created.status, 201, created.text);
      people[suffix] = created.body.userId;
      assert.equal((await svc.api('PUT', member(a.org.id, groupId, created.body.userId), { token: a.manager.token })).status, 200);
    }
    const page = async (params: string) => {
      const res = await svc.api('GET', `${groups(a.org.id)}/${groupId}/members?${params}`, { token: a.manager.token });
      assert.equal(res.status, 200, res.text);
      return res.body as { total: number; members: { userId: string; userName: string; displayName?: string }[] };
    };
    const names = (body: { members: { userName: string }[] }) => body.members.map((m) => m.userName);
    const first = await page('limit=2');
    assert.equal(first.total, 5);
    assert.deepEqual(names(first), [`${prefix}-a`, `${prefix}-b`]);
    assert.deepEqual(first.members[0], { userId: people.a, userName: `${prefix}-a`, displayName: 'Zoë Member' });
    assert.deepEqual(names(await page('limit=2&offset=2')), [`${prefix}-c`, `${prefix}-d`]);
    assert.deepEqual(names(await page('limit=2&offset=4')), [`${prefix}-e`]);
    const searched = await page('query=ZOË');
    assert.deepEqual([searched.total, names(searched)], [1, [`${prefix}-a`]]);
    assert.deepEqual(names(await page(`query=${prefix}-d%40example`)), [`${prefix}-d`], 'by e-mail');
    const none = await page('query=nobody-here');
    assert.deepEqual([none.total, none.members], [0, []]);

    const groupOfB = await createGroup(b);
    await refused(svc, 404, () => svc.api('GET', `${groups(a.org.id)}/${groupOfB}/members`, { token: a.manager.token }), "another organization's group");
    await refused(svc, 404, () => svc.api('GET', `${groups(b.org.id)}/${groupOfB}/members`, { token: a.manager.token }), "another organization's path");
    await refused(svc, 403, () => svc.api('GET', `${groups(a.org.id)}/${groupId}/members`, { token: a.member.token }), 'a user without roles');
    await badRequest(svc, ['limit'], () => svc.api('GET', `${groups(a.org.id)}/${groupId}/members?limit=0`, { token: a.manager.token }), 'limit 0');
    await badRequest(svc, ['filter'], () => svc.api('GET', `${groups(a.org.id)}/${groupId}/members?filter=x`, { token: a.manager.token }), 'unknown parameter');
  });

  it('answers 404 for a group or a user of another organization, and for unknown ids, changing nothing', async () => {
    const groupOfA = await createGroup(a);
    const groupOfB = await createGroup(b);
    const userOfA = await createCaller(svc, a.org.id);
    const userOfB = await createCaller(svc, b.org.id);
    await refused(svc, 404, () => svc.api('PUT', member(a.org.id, groupOfA, userOfB.userId), { token: a.manager.token }), 'user of another org');
    await refused(svc, 404, () => svc.api('PUT', member(a.org.id, groupOfB, userOfA.userId), { token: a.manager.token }), 'group of another org');
    await refused(svc, 404, () => svc.api('DELETE', member(a.org.id, groupOfB, userOfB.userId), { token: a.manager.token }), 'member removal in another org');
    await refused(svc, 404, () => svc.api('DELETE', `${groups(a.org.id)}/${groupOfB}`, { token: a.manager.token }), 'delete a group of another org');
    await refused(svc, 404, () => svc.api('PUT', member(a.org.id, 'no-such-group', userOfA.userId), { token: a.manager.token }), 'unknown group');
    await refused(svc, 404, () => svc.api('GET', groups(b.org.id), { token: a.manager.token }), "another organization's groups");
    assert.deepEqual(await memberIds(groupOfB), []);
  });

  it('needs ORG_USER_MANAGER (403 for a user without roles, 401 without a token) and acts on a member only when holding its roles', async () => {
    const groupId = await createGroup(a);
    await refused(svc, 403, () => svc.api('GET', groups(a.org.id), { token: a.member.token }));
    await refused(svc, 403, () => svc.api('POST', groups(a.org.id), { token: a.member.token, body: { displayName: unique('g') } }));
    await refused(svc, 403, () => svc.api('PUT', member(a.org.id, groupId, a.member.userId), { token: a.member.token }));
    await refused(svc, 401, () => svc.api('GET', groups(a.org.id), {}));
    // A manager may not change the groups of an owner (it lacks ORG_OWNER), but may add itself and a plain user.
    const res = await refused(svc, 403, () => svc.api('PUT', member(a.org.id, groupId, a.owner.userId), { token: a.manager.token }));
    assert.match(res.body.message, /ORG_OWNER/);
    assert.equal((await svc.api('PUT', member(a.org.id, groupId, a.manager.userId), { token: a.manager.token })).status, 200);
    assert.equal((await svc.api('PUT', member(a.org.id, groupId, a.member.userId), { token: a.manager.token })).status, 200);
    assert.equal((await svc.api('PUT', member(a.org.id, groupId, a.owner.userId), { token: a.owner.token })).status, 200);
    await refused(svc, 403, () => svc.api('DELETE', member(a.org.id, groupId, a.owner.userId), { token: a.manager.token }));
    assert.deepEqual(await memberIds(groupId), [a.manager.userId, a.member.userId, a.owner.userId].sort());
  });

  it('a removed user leaves its groups, each recording group.member.removed; deactivation keeps membership', async () => {
    const [g1, g2] = [await createGroup(a), await createGroup(a)];
    const human = await svc.api('POST', `/management/v1/orgs/${a.org.id}/users/human`, {
      token: a.manager.token,
      body: { userName: unique('leaver'), profile: { firstName: 'Lea', lastName: 'Ver' }, email: { email: 'lea@example.com' } },
    });
    assert.equal(human.status, 201, human.text);
    const userId: string = human.body.userId;
    for (const g of [g1, g2]) assert.equal((await svc.api('PUT', member(a.org.id, g, userId), { token: a.manager.token })).status, 200);

    const scim = (method: string, body?: unknown) => svc.api(method, `/scim/v2/${a.org.id}/Users/${userId}`, { token: a.manager.token, body });
    const off = await scim('PATCH', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    assert.ok(off.status === 200 || off.status === 204, off.text);
    assert.deepEqual([await memberIds(g1), await memberIds(g2)], [[userId], [userId]], 'deactivation keeps membership');

    assert.equal((await scim('DELETE')).status, 204);
    assert.deepEqual([await memberIds(g1), await memberIds(g2)], [[], []]);
    for (const g of [g1, g2]) {
      const event = await theEvent(svc, 'group.member.removed', g);
      assert.deepEqual(event.payload, { userId });
      assert.equal(event.editor.userId, a.manager.userId);
    }
  });

  it('deletes a group (204) with its memberships and records group.removed; a second delete is 404; the members stay', async () => {
    const groupId = await createGroup(a, unique('Temp'));
    const user = await createCaller(svc, a.org.id);
    assert.equal((await svc.api('PUT', member(a.org.id, groupId, user.userId), { token: a.manager.token })).status, 200);
    assert.equal((await svc.api('DELETE', `${groups(a.org.id)}/${groupId}`, { token: a.manager.token })).status, 204);
    assert.equal(await listed(a, groupId), undefined);
    assert.deepEqual(await memberIds(groupId), []);
    assert.equal((await theEvent(svc, 'group.removed', groupId)).editor.userId, a.manager.userId);
    await refused(svc, 404, () => svc.api('DELETE', `${groups(a.org.id)}/${groupId}`, { token: a.manager.token }));
    const still: unknown[] = await svc.dataSource.query('SELECT id FROM users WHERE id = ?', [user.userId]);
    assert.equal(still.length, 1);
  });

  it('parallel membership changes of one group lose nothing: 20 adds, 20 removes, 20 adds of one member', async () => {
    const groupId = await createGroup(a);
    const users = await Promise.all(Array.from({ length: 20 }, () => createCaller(svc, a.org.id)));
    const statuses = await Promise.all(users.map((u) => svc.api('PUT', member(a.org.id, groupId, u.userId), { token: a.manager.token }).then((r) => r.status)));
    assert.deepEqual(new Set(statuses), new Set([200]));
    assert.deepEqual(await memberIds(groupId), users.map((u) => u.userId).sort());
    assert.equal(await events('group.member.added', groupId), 20);

    const removed = await Promise.all(
      users.map((u) => svc.api('DELETE', member(a.org.id, groupId, u.userId), { token: a.manager.token }).then((r) => r.status)),
    );
    assert.deepEqual(new Set(removed), new Set([204]));
    assert.deepEqual(await memberIds(groupId), []);
    assert.equal(await events('group.member.removed', groupId), 20);

    const same = await Promise.all(
      users.map(() => svc.api('PUT', member(a.org.id, groupId, users[0].userId), { token: a.manager.token }).then((r) => r.status)),
    );
    assert.deepEqual(new Set(same), new Set([200]));
    assert.deepEqual(await memberIds(groupId), [users[0].userId]);
    assert.equal(await events('group.member.added', groupId), 21, 'one more event: the same member added 20 times at once is added once');
  });
});
