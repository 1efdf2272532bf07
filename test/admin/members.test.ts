import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createCaller, unique, useService } from '../support/fixtures.js';
import { INVALID_TOKENS, assertNoSecretsIn, badRequest, refused, row, setUpOrg, theEvent, tokenOption } from './helpers.js';
import type { Caller, OrgSetup } from './helpers.js';

describe('admin and management API: members', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  let adminClientId: string;
  const instanceMember = (userId: string) => `/admin/v1/members/${userId}`;
  const orgMember = (orgId: string, userId: string) => `/management/v1/orgs/${orgId}/members/${userId}`;

  /** What a caller may do, probed through real requests that change nothing when refused. */
  async function can(caller: Caller, orgId: string): Promise<{ listOrgs: number; createUser: number; createProject: number }> {
    const listOrgs = (await svc.api('GET', '/admin/v1/orgs', { token: caller.token })).status;
    const createUser = (
      await svc.api('POST', `/management/v1/orgs/${orgId}/users/machine`, { token: caller.token, body: { userName: unique('probe'), name: 'probe' } })
    ).status;
    const createProject = (await svc.api('POST', `/management/v1/orgs/${orgId}/projects`, { token: caller.token, body: { name: unique('probe') } })).status;
    return { listOrgs, createUser, createProject };
  }

  async function membership(userId: string, scopeType: string, scopeId: string) {
    return row(svc, 'SELECT roles FROM memberships WHERE user_id = ? AND scope_type = ? AND scope_id = ?', [userId, scopeType, scopeId]);
  }

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
    [{ id: adminClientId }] = await svc.dataSource.query("SELECT id FROM users WHERE user_name = 'admin-client'");
  });

  describe('PUT /admin/v1/members/{userId}', () => {
    it("grants IAM_OWNER: 200, the membership, instance.member.added, and the user's PAT now lists organizations", async () => {
      const user = await createCaller(svc, a.org.id);
      await refused(svc, 403, () => svc.api('GET', '/admin/v1/orgs', { token: user.token }));

      const res = await svc.api('PUT', instanceMember(user.userId), { token: svc.adminToken, body: { roles: ['IAM_OWNER'] } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { userId: user.userId, roles: ['IAM_OWNER'] });
      assert.equal((await membership(user.userId, 'instance', 'instance')).roles, 'IAM_OWNER');

      const event = await theEvent(svc, 'instance.member.added', 'instance', (e) => e.payload.userId === user.userId);
      assert.equal(event.aggregate.type.type, 'instance');
      assert.equal(event.aggregate.resourceOwner, 'instance');
      assert.equal(event.editor.userId, adminClientId);
      assert.deepEqual(event.payload, { userId: user.userId, roles: ['IAM_OWNER'] });
      assertNoSecretsIn(event.payload);

      const listed = await svc.api('GET', '/admin/v1/orgs', { token: user.token });
      assert.equal(listed.status, 200, listed.text);
      const ids = listed.body.orgs.map((o: { id: string }) => o.id);
      assert.ok(ids.includes(a.org.id) && ids.includes(b.org.id));
    });

    it('makes an IAM_OWNER hold every organization role, in every organization', async () => {
      const iam = await createCaller(svc, a.org.id, { instance: ['IAM_OWNER'] });
      assert.deepEqual(await can(iam, b.org.id), { listOrgs: 200, createUser: 201, createProject: 201 });
      const target = await createCaller(svc, b.org.id);
      const res = await svc.api('PUT', orgMember(b.org.id, target.userId), { token: iam.token, body: { roles: ['ORG_USER_MANAGER'] } });
      assert.equal(res.status, 200, res.text);
      assert.equal((await theEvent(svc, 'org.member.added', b.org.id, (e) => e.payload.userId === target.userId)).editor.userId, iam.userId);

      // An IAM_OWNER made by another IAM_OWNER is recorded with that editor.
      const next = await createCaller(svc, b.org.id);
      assert.equal((await svc.api('PUT', instanceMember(next.userId), { token: iam.token, body: { roles: ['IAM_OWNER'] } })).status, 200);
      assert.equal((await theEvent(svc, 'instance.member.added', 'instance', (e) => e.payload.userId === next.userId)).editor.userId, iam.userId);
    });

    it('grants instance roles to human users too', async () => {
      const human = await svc.api('POST', `/management/v1/orgs/${a.org.id}/users/human`, {
        token: a.manager.token,
        body: { userName: unique('operator'), profile: { firstName: 'Op', lastName: 'Erator' }, email: { email: 'op@example.com' } },
      });
      assert.equal(human.status, 201, human.text);
      const res = await svc.api('PUT', instanceMember(human.body.userId), { token: svc.adminToken, body: { roles: ['IAM_OWNER'] } });
      assert.equal(res.status, 200, res.text);
      assert.equal((await membership(human.body.userId, 'instance', 'instance')).roles, 'IAM_OWNER');
    });

    it('answers bad bodies with 400 naming the field, and changes nothing', async () => {
      const target = await createCaller(svc, a.org.id);
      const cases: unknown[] = [
        {},
        { roles: 'IAM_OWNER' },
        { roles: [] },
        { roles: ['ORG_OWNER'] },
        { roles: ['iam_owner'] },
        { roles: [42] },
        { roles: null },
      ];
      for (const body of cases) {
        await badRequest(svc, ['roles'], () => svc.api('PUT', instanceMember(target.userId), { token: svc.adminToken, body }), JSON.stringify(body));
      }
      await badRequest(svc, ['scope'], () =>
        svc.api('PUT', instanceMember(target.userId), { token: svc.adminToken, body: { roles: ['IAM_OWNER'], scope: 'x' } }),
      );
      assert.equal((await svc.dataSource.query('SELECT * FROM memberships WHERE user_id = ?', [target.userId])).length, 0);
    });

    it('answers 401 without a valid token, 403 without IAM_OWNER, and 404 for unknown users, changing nothing', async () => {
      const target = await createCaller(svc, a.org.id);
      for (const token of INVALID_TOKENS) {
        await refused(svc, 401, () => svc.api('PUT', instanceMember(target.userId), { ...tokenOption(token), body: { roles: ['IAM_OWNER'] } }));
      }
      for (const caller of [a.owner, a.manager, a.member, target]) {
        const res = await refused(svc, 403, () => svc.api('PUT', instanceMember(target.userId), { token: caller.token, body: { roles: ['IAM_OWNER'] } }));
        assert.match(res.body.message, /IAM_OWNER/);
      }
      // Not even for oneself: an ORG_OWNER cannot promote itself.
      await refused(svc, 403, () => svc.api('PUT', instanceMember(a.owner.userId), { token: a.owner.token, body: { roles: ['IAM_OWNER'] } }));
      await refused(svc, 404, () => svc.api('PUT', instanceMember(randomUUID()), { token: svc.adminToken, body: { roles: ['IAM_OWNER'] } }));
    });
  });

  describe('PUT /management/v1/orgs/{orgId}/members/{userId}', () => {
    it('sets organization roles: 200, the membership, org.member.added, and the new permissions', async () => {
      const user = await createCaller(svc, a.org.id);
      assert.deepEqual(await can(user, a.org.id), { listOrgs: 403, createUser: 403, createProject: 403 });

      const res = await svc.api('PUT', orgMember(a.org.id, user.userId), { token: a.owner.token, body: { roles: ['ORG_USER_MANAGER'] } });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { userId: user.userId, roles: ['ORG_USER_MANAGER'] });
      assert.equal((await membership(user.userId, 'org', a.org.id)).roles, 'ORG_USER_MANAGER');

      const event = await theEvent(svc, 'org.member.added', a.org.id, (e) => e.payload.userId === user.userId);
      assert.equal(event.aggregate.type.type, 'org');
      assert.equal(event.aggregate.resourceOwner, a.org.id);
      assert.equal(event.editor.userId, a.owner.userId);
      assert.deepEqual(event.payload, { userId: user.userId, roles: ['ORG_USER_MANAGER'] });
      assertNoSecretsIn(event.payload);

      assert.deepEqual(await can(user, a.org.id), { listOrgs: 403, createUser: 201, createProject: 403 });
    });

    it('makes an ORG_OWNER hold ORG_USER_MANAGER', async () => {
      const user = await createCaller(svc, a.org.id);
      const res = await svc.api('PUT', orgMember(a.org.id, user.userId), { token: a.owner.token, body: { roles: ['ORG_OWNER'] } });
      assert.equal(res.status, 200, res.text);
      assert.equal((await membership(user.userId, 'org', a.org.id)).roles, 'ORG_OWNER');
      assert.deepEqual(await can(user, a.org.id), { listOrgs: 403, createUser: 201, createProject: 201 });
      // Its roles reach no other organization.
      assert.deepEqual(await can(user, b.org.id), { listOrgs: 403, createUser: 404, createProject: 404 });
    });

    it('replaces the roles on every call: promotion and demotion', async () => {
      const user = await createCaller(svc, a.org.id);
      const put = (roles: string[]) => svc.api('PUT', orgMember(a.org.id, user.userId), { token: a.owner.token, body: { roles } });

      const both = await put(['ORG_USER_MANAGER', 'ORG_OWNER']);
      assert.equal(both.status, 200, both.text);
      assert.deepEqual([...both.body.roles].sort(), ['ORG_OWNER', 'ORG_USER_MANAGER']);
      assert.deepEqual((await membership(user.userId, 'org', a.org.id)).roles.split(',').sort(), ['ORG_OWNER', 'ORG_USER_MANAGER']);
      assert.equal((await can(user, a.org.id)).createProject, 201);

      assert.equal((await put(['ORG_USER_MANAGER'])).status, 200);
      assert.equal((await membership(user.userId, 'org', a.org.id)).roles, 'ORG_USER_MANAGER');
      assert.deepEqual(await can(user, a.org.id), { listOrgs: 403, createUser: 201, createProject: 403 });
      const rows = await svc.dataSource.query("SELECT roles FROM memberships WHERE user_id = ? AND scope_type = 'org'", [user.userId]);
      assert.equal(rows.length, 1, 'one membership per user and organization');
    });

    it('lets an IAM_OWNER set members of any organization', async () => {
      const user = await createCaller(svc, b.org.id);
      const res = await svc.api('PUT', orgMember(b.org.id, user.userId), { token: svc.adminToken, body: { roles: ['ORG_OWNER'] } });
      assert.equal(res.status, 200, res.text);
      assert.equal((await membership(user.userId, 'org', b.org.id)).roles, 'ORG_OWNER');
      assert.equal((await theEvent(svc, 'org.member.added', b.org.id, (e) => e.payload.userId === user.userId)).editor.userId, adminClientId);
    });

    it('answers bad bodies with 400 naming the field, and changes nothing', async () => {
      const target = await createCaller(svc, a.org.id);
      const cases: unknown[] = [
        {},
        { roles: 'ORG_OWNER' },
        { roles: [] },
        { roles: ['IAM_OWNER'] },
        { roles: ['ORG_ADMIN'] },
        { roles: ['ORG_OWNER', 'org_user_manager'] },
        { roles: [{ role: 'ORG_OWNER' }] },
      ];
      for (const body of cases) {
        await badRequest(svc, ['roles'], () => svc.api('PUT', orgMember(a.org.id, target.userId), { token: a.owner.token, body }), JSON.stringify(body));
      }
      await badRequest(svc, ['orgId'], () =>
        svc.api('PUT', orgMember(a.org.id, target.userId), { token: a.owner.token, body: { roles: ['ORG_OWNER'], orgId: b.org.id } }),
      );
      assert.equal((await svc.dataSource.query('SELECT * FROM memberships WHERE user_id = ?', [target.userId])).length, 0);
    });

    it('answers 401 without a valid token and 403 to an ORG_USER_MANAGER or a member without roles, changing nothing', async () => {
      const target = await createCaller(svc, a.org.id);
      for (const token of INVALID_TOKENS) {
        await refused(svc, 401, () => svc.api('PUT', orgMember(a.org.id, target.userId), { ...tokenOption(token), body: { roles: ['ORG_OWNER'] } }));
      }
      for (const caller of [a.manager, a.member]) {
        const res = await refused(svc, 403, () =>
          svc.api('PUT', orgMember(a.org.id, target.userId), { token: caller.token, body: { roles: ['ORG_USER_MANAGER'] } }),
        );
        assert.match(res.body.message, /ORG_OWNER/);
      }
      // A user manager cannot promote itself.
      await refused(svc, 403, () => svc.api('PUT', orgMember(a.org.id, a.manager.userId), { token: a.manager.token, body: { roles: ['ORG_OWNER'] } }));
      assert.equal((await membership(a.manager.userId, 'org', a.org.id)).roles, 'ORG_USER_MANAGER');
    });

    it('answers 404 across organizations and for unknown users, and changes nothing', async () => {
      const userB = await createCaller(svc, b.org.id);
      const cases: Array<[string, string, string]> = [
        ["A's owner on B's path", orgMember(b.org.id, userB.userId), a.owner.token],
        ["A's owner on A's path with B's user", orgMember(a.org.id, userB.userId), a.owner.token],
        ["instance admin on A's path with B's user", orgMember(a.org.id, userB.userId), svc.adminToken],
        ['unknown user', orgMember(a.org.id, randomUUID()), a.owner.token],
        ['unknown organization', orgMember(randomUUID(), a.member.userId), svc.adminToken],
      ];
      for (const [label, path, token] of cases) {
        await refused(svc, 404, () => svc.api('PUT', path, { token, body: { roles: ['ORG_OWNER'] } }), label);
      }
    });
  });
});
