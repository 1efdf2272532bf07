import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCaller, unique, useService } from '../support/fixtures.js';
import { assertNoSecretsIn, badRequest, json, refused, row, setUpOrg, theEvent } from './helpers.js';
import type { Caller, OrgSetup } from './helpers.js';

describe('management API: project roles, grants and effective grants', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  const base = (org: OrgSetup, projectId: string) => `/management/v1/orgs/${org.org.id}/projects/${projectId}`;
  const roles = (org: OrgSetup, projectId: string) => `${base(org, projectId)}/roles`;
  const grants = (org: OrgSetup, projectId: string) => `${base(org, projectId)}/grants`;
  const effective = (org: OrgSetup, userId: string) => `/management/v1/orgs/${org.org.id}/users/${userId}/grants`;

  async function project(org: OrgSetup): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.org.id}/projects`, { token: org.owner.token, body: { name: unique('p') } });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  }

  async function role(org: OrgSetup, projectId: string, key: string): Promise<void> {
    const res = await svc.api('POST', roles(org, projectId), { token: org.owner.token, body: { key } });
    assert.equal(res.status, 201, res.text);
  }

  async function grant(org: OrgSetup, projectId: string, body: Record<string, unknown>): Promise<string> {
    const res = await svc.api('POST', grants(org, projectId), { token: org.owner.token, body });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body), ['grantId']);
    return res.body.grantId;
  }

  async function group(org: OrgSetup, members: string[] = []): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.org.id}/groups`, { token: org.manager.token, body: { displayName: unique('g') } });
    assert.equal(res.status, 201, res.text);
    for (const userId of members) {
      const put = await svc.api('PUT', `/management/v1/orgs/${org.org.id}/groups/${res.body.id}/members/${userId}`, { token: org.manager.token });
      assert.equal(put.status, 200, put.text);
    }
    return res.body.id;
  }

  async function storedRoles(grantId: string): Promise<unknown> {
    return json((await row(svc, 'SELECT roles FROM project_grants WHERE id = ?', [grantId])).roles);
  }

  async function eventCount(type: string, aggregateId: string): Promise<number> {
    const rows: { n: number | string }[] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM events WHERE type = ? AND aggregate_id = ?', [
      type,
      aggregateId,
    ]);
    return Number(rows[0].n);
  }

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
  });

  it('adds, lists, changes and removes roles, each with its event on the project', async () => {
    const p = await project(a);
    const created = await svc.api('POST', roles(a, p), {
      token: a.owner.token,
      body: { key: 'billing:approver', displayName: 'Approver', description: 'Approves' },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body, { key: 'billing:approver', displayName: 'Approver', description: 'Approves' });
    await role(a, p, 'Viewer.v2');
    await role(a, p, 'viewer.v2');
    const listed = await svc.api('GET', `${roles(a, p)}?limit=2`, { token: a.owner.token });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.total, 3);
    assert.deepEqual(
      listed.body.roles.map((r: { key: string }) => r.key),
      ['Viewer.v2', 'billing:approver'],
      'sorted by key, keys compared exactly (case differs: two roles)',
    );
    const added = await theEvent(svc, 'project.role.added', p, (e) => e.payload.key === 'billing:approver');
    assert.equal(added.aggregate.type.type, 'project');
    assert.equal(added.editor.userId, a.owner.userId);

    const patched = await svc.api('PATCH', `${roles(a, p)}/billing:approver`, { token: a.owner.token, body: { displayName: 'Approves bills' } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body, { key: 'billing:approver', displayName: 'Approves bills', description: 'Approves' });
    assert.deepEqual((await theEvent(svc, 'project.role.changed', p)).payload, { key: 'billing:approver' });

    const removed = await svc.api('DELETE', `${roles(a, p)}/Viewer.v2`, { token: a.owner.token });
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual((await theEvent(svc, 'project.role.removed', p)).payload, { key: 'Viewer.v2' });
    await refused(svc, 404, () => svc.api('DELETE', `${roles(a, p)}/Viewer.v2`, { token: a.owner.token }));
    await refused(svc, 404, () => svc.api('PATCH', `${roles(a, p)}/nope`, { token: a.owner.token, body: { displayName: 'x' } }));
  });

  it('refuses a malformed key with 400 naming key, a duplicate with 409, and stores nothing', async () => {
    const p = await project(a);
    await role(a, p, 'admin');
    const send = (body: unknown) => () => svc.api('POST', roles(a, p), { token: a.owner.token, body });
    for (const key of ['', 'has space', 'x'.repeat(101), 'ünïcode', 'a/b', 7]) await badRequest(svc, ['key'], send({ key }), `key ${JSON.stringify(key)}`);
    await badRequest(svc, ['key'], send({}));
    await badRequest(svc, ['displayName'], send({ key: 'ok', displayName: 'x'.repeat(201) }));
    await refused(svc, 400, send({ key: 'ok', extra: 1 }), 'an unknown field');
    const dup = await refused(svc, 409, send({ key: 'admin' }));
    assert.match(dup.body.message, /admin/);
    await role(a, p, 'x'.repeat(100));
  });

  it('grants a user and a group (roles or none), lists and filters them, and refuses bad grants with nothing stored', async () => {
    const p = await project(a);
    await role(a, p, 'editor');
    await role(a, p, 'viewer');
    const user = await createCaller(svc, a.org.id);
    const other = await createCaller(svc, a.org.id);
    const g = await group(a, [other.userId]);

    const userGrant = await grant(a, p, { userId: user.userId, roles: ['viewer', 'editor', 'viewer'] });
    assert.deepEqual(await storedRoles(userGrant), ['editor', 'viewer'], 'distinct, sorted');
    const added = await theEvent(svc, 'project.grant.added', userGrant);
    assert.equal(added.aggregate.type.type, 'grant');
    assert.deepEqual(added.payload, { projectId: p, userId: user.userId, roles: ['editor', 'viewer'] });
    assertNoSecretsIn(added.payload);
    const groupGrant = await grant(a, p, { groupId: g, roles: [] });

    const all = await svc.api('GET', grants(a, p), { token: a.owner.token });
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.total, 2);
    assert.deepEqual(all.body.grants, [
      { grantId: userGrant, userId: user.userId, roles: ['editor', 'viewer'] },
      { grantId: groupGrant, groupId: g, roles: [] },
    ]);
    const byGroup = await svc.api('GET', `${grants(a, p)}?groupId=${g}`, { token: a.owner.token });
    assert.deepEqual(byGroup.body, { grants: [{ grantId: groupGrant, groupId: g, roles: [] }], total: 1 });
    const byUser = await svc.api('GET', `${grants(a, p)}?userId=${user.userId}&limit=1`, { token: a.owner.token });
    assert.equal(byUser.body.total, 1);

    const send = (body: unknown) => () => svc.api('POST', grants(a, p), { token: a.owner.token, body });
    await badRequest(svc, ['roles'], send({ userId: other.userId, roles: ['nope'] }), 'an unknown role');
    await badRequest(svc, ['roles'], send({ userId: other.userId, roles: ['Editor'] }), 'keys compared exactly');
    await badRequest(svc, ['roles'], send({ userId: other.userId }), 'roles missing');
    await badRequest(svc, ['userId'], send({ roles: [] }), 'neither user nor group');
    await badRequest(svc, ['groupId'], send({ userId: other.userId, groupId: g, roles: [] }), 'both');
    await refused(svc, 404, send({ userId: b.member.userId, roles: [] }), 'a user of another organization');
    await refused(svc, 404, send({ userId: 'no-such-user', roles: [] }), 'an unknown user');
    await refused(svc, 404, send({ groupId: await group(b), roles: [] }), 'a group of another organization');
    await refused(svc, 409, send({ userId: user.userId, roles: [] }), 'a second grant for the user');
    await refused(svc, 409, send({ groupId: g, roles: ['viewer'] }), 'a second grant for the group');
    await refused(svc, 404, () => svc.api('POST', grants(a, 'no-such-project'), { token: a.owner.token, body: { userId: other.userId, roles: [] } }));

    const changed = await svc.api('PATCH', `${grants(a, p)}/${groupGrant}`, { token: a.owner.token, body: { roles: ['viewer'] } });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body, { grantId: groupGrant, groupId: g, roles: ['viewer'] });
    assert.deepEqual((await theEvent(svc, 'project.grant.changed', groupGrant)).payload, { projectId: p, groupId: g, roles: ['viewer'] });
    await badRequest(svc, ['roles'], () => svc.api('PATCH', `${grants(a, p)}/${groupGrant}`, { token: a.owner.token, body: { roles: ['gone'] } }));
    await refused(svc, 404, () => svc.api('PATCH', `${grants(a, p)}/nope`, { token: a.owner.token, body: { roles: [] } }));

    const removed = await svc.api('DELETE', `${grants(a, p)}/${userGrant}`, { token: a.owner.token });
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual((await theEvent(svc, 'project.grant.removed', userGrant)).payload, { projectId: p, userId: user.userId });
    await refused(svc, 404, () => svc.api('DELETE', `${grants(a, p)}/${userGrant}`, { token: a.owner.token }));
  });

  it('removing a role takes it out of every grant, one project.grant.changed per grant; the grants stay', async () => {
    const p = await project(a);
    await role(a, p, 'keep');
    await role(a, p, 'drop');
    const oneUser = (await createCaller(svc, a.org.id)).userId;
    const twoGroup = await group(a);
    const one = await grant(a, p, { userId: oneUser, roles: ['drop', 'keep'] });
    const two = await grant(a, p, { groupId: twoGroup, roles: ['drop'] });
    const three = await grant(a, p, { userId: (await createCaller(svc, a.org.id)).userId, roles: ['keep'] });
    const res = await svc.api('DELETE', `${roles(a, p)}/drop`, { token: a.owner.token });
    assert.equal(res.status, 204, res.text);
    assert.deepEqual(await storedRoles(one), ['keep']);
    assert.deepEqual(await storedRoles(two), []);
    assert.deepEqual(await storedRoles(three), ['keep']);
    assert.deepEqual((await theEvent(svc, 'project.grant.changed', one)).payload, { projectId: p, userId: oneUser, roles: ['keep'] });
    assert.deepEqual((await theEvent(svc, 'project.grant.changed', two)).payload, { projectId: p, groupId: twoGroup, roles: [] });
    assert.equal(await eventCount('project.grant.changed', three), 0);
  });

  it('removing a user, a group or a project removes its grants (each with project.grant.removed)', async () => {
    const p = await project(a);
    const user = await createCaller(svc, a.org.id);
    const g = await group(a);
    const userGrant = await grant(a, p, { userId: user.userId, roles: [] });
    const groupGrant = await grant(a, p, { groupId: g, roles: [] });
    assert.equal((await svc.api('DELETE', `/management/v1/orgs/${a.org.id}/users/${user.userId}`, { token: a.owner.token })).status, 204);
    assert.equal((await svc.api('DELETE', `/management/v1/orgs/${a.org.id}/groups/${g}`, { token: a.owner.token })).status, 204);
    for (const id of [userGrant, groupGrant]) {
      assert.equal(await eventCount('project.grant.removed', id), 1);
      assert.equal((await svc.dataSource.query('SELECT id FROM project_grants WHERE id = ?', [id])).length, 0);
    }
    const q = await project(a);
    await role(a, q, 'r');
    const last = await grant(a, q, { userId: (await createCaller(svc, a.org.id)).userId, roles: ['r'] });
    assert.equal((await svc.api('DELETE', base(a, q), { token: a.owner.token })).status, 204);
    assert.equal(await eventCount('project.grant.removed', last), 1);
    assert.equal((await svc.dataSource.query('SELECT role_key FROM project_roles WHERE project_id = ?', [q])).length, 0);
  });

  it('lists a user’s effective grants, its own and each group’s, for an ORG_USER_MANAGER, but not an owner’s', async () => {
    const p = await project(a);
    const q = await project(a);
    await role(a, p, 'x');
    await role(a, q, 'y');
    const user = await createCaller(svc, a.org.id);
    const g1 = await group(a, [user.userId]);
    const g2 = await group(a, [user.userId]);
    const own = await grant(a, p, { userId: user.userId, roles: ['x'] });
    const viaG1 = await grant(a, p, { groupId: g1, roles: [] });
    const viaG2 = await grant(a, q, { groupId: g2, roles: ['y'] });
    await grant(a, q, { groupId: await group(a), roles: ['y'] });
    const res = await svc.api('GET', effective(a, user.userId), { token: a.manager.token });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.total, 3);
    const expected = [
      { grantId: own, projectId: p, roles: ['x'], via: 'user' },
      { grantId: viaG1, projectId: p, roles: [], via: 'group', groupId: g1 },
      { grantId: viaG2, projectId: q, roles: ['y'], via: 'group', groupId: g2 },
    ];
    const byGrant = (x: { grantId: string }, y: { grantId: string }) => (x.grantId < y.grantId ? -1 : 1);
    assert.deepEqual([...res.body.grants].sort(byGrant), [...expected].sort(byGrant));
    await refused(svc, 403, () => svc.api('GET', effective(a, a.owner.userId), { token: a.manager.token }), 'an owner, whose role the manager lacks');
    await refused(svc, 404, () => svc.api('GET', effective(a, b.member.userId), { token: a.manager.token }), 'a user of another organization');
    await refused(svc, 404, () => svc.api('GET', effective(b, user.userId), { token: b.manager.token }), 'through another organization');
  });

  it('only an ORG_OWNER manages roles and grants; other organizations see 404', async () => {
    const p = await project(a);
    await role(a, p, 'r');
    const g = await grant(a, p, { userId: a.member.userId, roles: [] });
    const routes: Array<[string, string, unknown?]> = [
      ['POST', roles(a, p), { key: 'k' }],
      ['GET', roles(a, p)],
      ['PATCH', `${roles(a, p)}/r`, { displayName: 'x' }],
      ['DELETE', `${roles(a, p)}/r`],
      ['POST', grants(a, p), { userId: a.manager.userId, roles: [] }],
      ['GET', grants(a, p)],
      ['PATCH', `${grants(a, p)}/${g}`, { roles: ['r'] }],
      ['DELETE', `${grants(a, p)}/${g}`],
    ];
    const callers: Caller[] = [a.manager, a.member];
    for (const [method, url, body] of routes) {
      for (const caller of callers) await refused(svc, 403, () => svc.api(method, url, { token: caller.token, body }), `${method} ${url}`);
      await refused(svc, 404, () => svc.api(method, url, { token: b.owner.token, body }), `${method} ${url} by another organization's owner`);
    }
    const foreign: Array<[string, string, unknown?]> = [
      ['GET', `/management/v1/orgs/${b.org.id}/projects/${p}/roles`],
      ['POST', `/management/v1/orgs/${b.org.id}/projects/${p}/roles`, { key: 'k' }],
      ['DELETE', `/management/v1/orgs/${b.org.id}/projects/${p}/roles/r`],
      ['GET', `/management/v1/orgs/${b.org.id}/projects/${p}/grants`],
      ['PATCH', `/management/v1/orgs/${b.org.id}/projects/${p}/grants/${g}`, { roles: [] }],
      ['DELETE', `/management/v1/orgs/${b.org.id}/projects/${p}/grants/${g}`],
    ];
    for (const [method, url, body] of foreign) await refused(svc, 404, () => svc.api(method, url, { token: b.owner.token, body }), `${method} ${url}`);
  });
});
