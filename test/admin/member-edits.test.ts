import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createCaller, unique, useService } from '../support/fixtures.js';
import { INVALID_TOKENS, badRequest, refused, setUpOrg, theEvent, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';

const instanceMembers = '/admin/v1/members';
const orgMembers = (orgId: string) => `/management/v1/orgs/${orgId}/members`;

async function memberships(svc: { dataSource: { query(sql: string, p: unknown[]): Promise<unknown[]> } }, userId: string): Promise<unknown[]> {
  return svc.dataSource.query('SELECT scope_type, scope_id, roles FROM memberships WHERE user_id = ? ORDER BY scope_type, scope_id', [userId]);
}

/** docs/product-rules.md, "Changing and removing resources": listing and removing members. */
describe('admin and management API: listing and removing members', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  let adminClientId: string;

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
    [{ id: adminClientId }] = await svc.dataSource.query("SELECT id FROM users WHERE user_name = 'admin-client'");
  });

  describe('instance members', () => {
    it('lists the instance members with their roles and total, paged', async () => {
      const iam = await createCaller(svc, a.org.id, { instance: ['IAM_OWNER'] });
      const res = await svc.api('GET', instanceMembers, { token: svc.adminToken });
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.members.some((m: { userId: string; roles: string[] }) => m.userId === iam.userId && m.roles.join() === 'IAM_OWNER'));
      assert.ok(res.body.members.some((m: { userId: string }) => m.userId === adminClientId));
      assert.equal(res.body.total, res.body.members.length);
      // Each member with its names for the console (a display name where it has one), and nothing else.
      const shapes = ['userId,roles,loginName', 'userId,roles,loginName,displayName'];
      assert.ok(
        res.body.members.every((m: object) => shapes.includes(Object.keys(m).join())),
        JSON.stringify(res.body.members),
      );
      const listed = res.body.members.find((m: { userId: string }) => m.userId === iam.userId);
      assert.match(listed.loginName, /@/, 'a member is named by its login name');
      const page = await svc.api('GET', `${instanceMembers}?limit=1&offset=1`, { token: svc.adminToken });
      assert.deepEqual(page.body, { members: [res.body.members[1]], total: res.body.total });
      await badRequest(svc, ['limit'], () => svc.api('GET', `${instanceMembers}?limit=5000`, { token: svc.adminToken }));
    });

    it("removes a user's instance roles: 204, the membership gone, instance.member.removed, and the role no longer works", async () => {
      const iam = await createCaller(svc, a.org.id, { instance: ['IAM_OWNER'] });
      assert.equal((await svc.api('GET', '/admin/v1/orgs', { token: iam.token })).status, 200);
      const res = await svc.api('DELETE', `${instanceMembers}/${iam.userId}`, { token: svc.adminToken });
      assert.equal(res.status, 204, res.text);
      assert.deepEqual(await memberships(svc, iam.userId), []);
      const event = await theEvent(svc, 'instance.member.removed', 'instance', (e) => e.payload.userId === iam.userId);
      assert.equal(event.aggregate.type.type, 'instance');
      assert.equal(event.editor.userId, adminClientId);
      assert.deepEqual(event.payload, { userId: iam.userId });
      await refused(svc, 403, () => svc.api('GET', '/admin/v1/orgs', { token: iam.token }), 'no longer IAM_OWNER');
      await refused(svc, 404, () => svc.api('DELETE', `${instanceMembers}/${iam.userId}`, { token: svc.adminToken }), 'twice');
    });

    it('answers 404 for a user without instance roles and for unknown users; 401 and 403 as elsewhere; nothing changed', async () => {
      await refused(svc, 404, () => svc.api('DELETE', `${instanceMembers}/${a.owner.userId}`, { token: svc.adminToken }), 'no instance role');
      await refused(svc, 404, () => svc.api('DELETE', `${instanceMembers}/${randomUUID()}`, { token: svc.adminToken }), 'unknown');
      for (const token of INVALID_TOKENS) {
        await refused(svc, 401, () => svc.api('GET', instanceMembers, tokenOption(token)));
        await refused(svc, 401, () => svc.api('DELETE', `${instanceMembers}/${adminClientId}`, tokenOption(token)));
      }
      for (const caller of [a.owner, a.manager, a.member]) {
        await refused(svc, 403, () => svc.api('GET', instanceMembers, { token: caller.token }));
        await refused(svc, 403, () => svc.api('DELETE', `${instanceMembers}/${adminClientId}`, { token: caller.token }));
      }
    });
  });

  describe('organization members', () => {
    it("lists the organization's members with their roles on it, and only its own", async () => {
      const res = await svc.api('GET', orgMembers(a.org.id), { token: a.owner.token });
      assert.equal(res.status, 200, res.text);
      const byUser = Object.fromEntries(res.body.members.map((m: { userId: string; roles: string[] }) => [m.userId, m.roles]));
      assert.deepEqual(byUser, { [a.owner.userId]: ['ORG_OWNER'], [a.manager.userId]: ['ORG_USER_MANAGER'] });
      assert.equal(res.body.total, 2);
    });

    it("removes a user's roles on the organization: 204, org.member.removed, and the role no longer works", async () => {
      const manager = await createCaller(svc, a.org.id, { org: ['ORG_USER_MANAGER'] });
      const probe = () =>
        svc.api('POST', `/management/v1/orgs/${a.org.id}/users/machine`, { token: manager.token, body: { userName: unique('probe'), name: 'probe' } });
      assert.equal((await probe()).status, 201);
      const res = await svc.api('DELETE', `${orgMembers(a.org.id)}/${manager.userId}`, { token: a.owner.token });
      assert.equal(res.status, 204, res.text);
      assert.deepEqual(await memberships(svc, manager.userId), []);
      const event = await theEvent(svc, 'org.member.removed', a.org.id, (e) => e.payload.userId === manager.userId);
      assert.equal(event.aggregate.type.type, 'org');
      assert.equal(event.aggregate.resourceOwner, a.org.id);
      assert.equal(event.editor.userId, a.owner.userId);
      assert.equal((await probe()).status, 403, 'no longer ORG_USER_MANAGER');
    });

    it('peers may remove each other; a caller who lacks a role of the target is refused with 403 and nothing changed', async () => {
      const peer = await createCaller(svc, a.org.id, { org: ['ORG_OWNER'] });
      const res = await svc.api('DELETE', `${orgMembers(a.org.id)}/${peer.userId}`, { token: a.owner.token });
      assert.equal(res.status, 204, res.text);
      // An IAM_OWNER who is also a member of the organization: an ORG_OWNER does not hold IAM_OWNER.
      const iam = await createCaller(svc, a.org.id, { org: ['ORG_USER_MANAGER'], instance: ['IAM_OWNER'] });
      const refusal = await refused(svc, 403, () => svc.api('DELETE', `${orgMembers(a.org.id)}/${iam.userId}`, { token: a.owner.token }));
      assert.match(refusal.body.message, /IAM_OWNER/);
      assert.equal((await memberships(svc, iam.userId)).length, 2);
      const byAdmin = await svc.api('DELETE', `${orgMembers(a.org.id)}/${iam.userId}`, { token: svc.adminToken });
      assert.equal(byAdmin.status, 204, byAdmin.text);
    });

    it('answers 401, 403 below ORG_OWNER, and 404 across organizations or without a membership; nothing changed', async () => {
      for (const token of INVALID_TOKENS) {
        await refused(svc, 401, () => svc.api('GET', orgMembers(a.org.id), tokenOption(token)));
        await refused(svc, 401, () => svc.api('DELETE', `${orgMembers(a.org.id)}/${a.manager.userId}`, tokenOption(token)));
      }
      for (const caller of [a.manager, a.member]) {
        await refused(svc, 403, () => svc.api('GET', orgMembers(a.org.id), { token: caller.token }));
        await refused(svc, 403, () => svc.api('DELETE', `${orgMembers(a.org.id)}/${a.manager.userId}`, { token: caller.token }));
      }
      await refused(svc, 404, () => svc.api('GET', orgMembers(b.org.id), { token: a.owner.token }), "B's members");
      await refused(svc, 404, () => svc.api('DELETE', `${orgMembers(b.org.id)}/${b.manager.userId}`, { token: a.owner.token }), "B's member on B");
      await refused(svc, 404, () => svc.api('DELETE', `${orgMembers(a.org.id)}/${b.manager.userId}`, { token: a.owner.token }), "B's member under A");
      await refused(svc, 404, () => svc.api('DELETE', `${orgMembers(a.org.id)}/${a.member.userId}`, { token: a.owner.token }), 'no roles');
      await refused(svc, 404, () => svc.api('DELETE', `${orgMembers(a.org.id)}/${randomUUID()}`, { token: a.owner.token }), 'unknown');
      await refused(svc, 404, () => svc.api('GET', orgMembers(randomUUID()), { token: svc.adminToken }), 'admin, unknown org');
    });
  });
});

describe('admin API: the last active IAM_OWNER keeps its role', () => {
  const svc = useService();

  it('refuses to remove the last active IAM_OWNER (409, nothing changed), and allows it while another remains', async () => {
    const users: { id: string; user_name: string }[] = await svc.dataSource.query(
      "SELECT id, user_name FROM users WHERE user_name IN ('admin', 'admin-client')",
    );
    const admin = users.find((u) => u.user_name === 'admin')!;
    const adminClient = users.find((u) => u.user_name === 'admin-client')!;
    // Two IAM_OWNERs: the human admin may go.
    const res = await svc.api('DELETE', `${instanceMembers}/${admin.id}`, { token: svc.adminToken });
    assert.equal(res.status, 204, res.text);
    // Now the calling admin-client is the last one.
    const refusal = await refused(svc, 409, () => svc.api('DELETE', `${instanceMembers}/${adminClient.id}`, { token: svc.adminToken }));
    assert.match(refusal.body.message, /last active IAM_OWNER/);
    assert.equal((await memberships(svc, adminClient.id)).length, 1);
    assert.equal((await svc.api('GET', instanceMembers, { token: svc.adminToken })).status, 200, 'still IAM_OWNER');
  });
});
