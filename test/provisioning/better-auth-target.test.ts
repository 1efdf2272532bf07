import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { eventually } from '../faults/faults.helpers.js';
import { startBetterAuthTarget } from './support/better-auth-target.js';
import type { BetterAuthTarget } from './support/better-auth-target.js';
import { seedMembers, seedProvisioned } from './support/seed-members.js';

const SIZE = 300;
const LEAVING = 5;
const WAIT = 120_000;
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * docs/provisioning.md, "Groups" and "How it is pushed": Better Auth's SCIM plugin as a second independent target.
 * A group pushed from the record of pushed memberships, its members leaving removed one `remove` operation each
 * (Better Auth refuses one `remove` whose filter joins members with `or`), and attributes cleared here removed
 * there. Better Auth caps a group at 1,000 direct members, so no larger group can be pushed to it. Setup only: the
 * group's members are written straight to the tables and created at the target through its own SCIM API.
 */
describe('provisioning: Better Auth SCIM plugin as a target', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', PROVISIONING_RETRY_BASE_MS: '50', PROVISIONING_RETRY_WINDOW_MS: '600000' });
  let target: BetterAuthTarget;
  let orgId: string;
  let groupId: string;
  let targetId: string;
  let userIds: string[];
  const remoteIds = new Map<string, string>();
  const api = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${orgId}${path}`, { token: svc.adminToken, body });
  const byExternalId = async (collection: 'Users' | 'Groups', id: string) => {
    const found = await target.scim('GET', `/${collection}?filter=${encodeURIComponent(`externalId eq "${id}"`)}`);
    assert.equal(found.status, 200, JSON.stringify(found.body));
    return found.body.Resources[0] as Record<string, any> | undefined;
  };
  const members = async () => {
    const group = await byExternalId('Groups', groupId);
    if (!group) return undefined;
    const read = await target.scim('GET', `/Groups/${group.id}`);
    return new Set(((read.body.members ?? []) as { value: string }[]).map((m) => m.value));
  };

  before(async () => {
    target = await startBetterAuthTarget();
    orgId = (await createOrg(svc)).id;
    const group = await api('POST', '/groups', { displayName: unique('team') });
    assert.equal(group.status, 201, group.text);
    groupId = group.body.id;
    const created = await api('POST', '/provisioning/targets', {
      name: 'better-auth',
      baseUrl: target.baseUrl,
      auth: { type: 'bearer', token: target.token },
      pushGroups: 'all',
      enabled: false,
    });
    assert.equal(created.status, 201, created.text);
    targetId = created.body.id;
    userIds = await seedMembers(svc.dataSource, orgId, groupId, unique('ba'), SIZE);
    for (const userId of userIds) {
      const res = await target.scim('POST', '/Users', {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: `${userId}@example.com`,
        externalId: userId,
        emails: [{ value: `${userId}@example.com`, primary: true }],
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      remoteIds.set(userId, res.body.id);
    }
    await seedProvisioned(svc.dataSource, targetId, userIds, (id) => remoteIds.get(id)!);
    assert.equal((await api('PATCH', `/provisioning/targets/${targetId}`, { enabled: true })).status, 200);
  });
  after(async () => {
    await target?.close();
  });

  it('a group converges from the record; members leaving are removed one operation each, which Better Auth accepts', async () => {
    const started = Date.now();
    await eventually('every member there', async () => ((await members())?.size === SIZE ? true : undefined), WAIT);
    const pushedIn = Date.now() - started;
    const leaving = userIds.slice(0, LEAVING);
    for (const userId of leaving) assert.equal((await api('DELETE', `/groups/${groupId}/members/${userId}`)).status, 204);
    const left = await eventually(
      'the leavers gone there',
      async () => {
        const now = await members();
        return now?.size === SIZE - LEAVING ? now : undefined;
      },
      WAIT,
    );
    assert.ok(leaving.every((userId) => !left.has(remoteIds.get(userId)!)));
    const objects = (await api('GET', `/provisioning/targets/${targetId}/objects?status=failing`)).body;
    assert.equal(objects.total, 0, JSON.stringify(objects));
    console.log(`# ${SIZE}-member group pushed to Better Auth in ${pushedIn} ms`);
  });

  it('a title, a phone number and a middle name cleared here are removed there', async () => {
    const userName = unique('ba-person');
    const res = await api('POST', '/users/human', {
      userName,
      profile: { firstName: 'Ada', lastName: 'Lovelace' },
      email: { email: `${userName}@example.com` },
    });
    assert.equal(res.status, 201, res.text);
    const userId = res.body.userId as string;
    const scim = (body: unknown) => svc.api('PATCH', `/scim/v2/${orgId}/Users/${userId}`, { token: svc.adminToken, body });
    const set = await scim({
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'title', value: 'Countess' },
        { op: 'replace', path: 'name.middleName', value: 'Augusta' },
        { op: 'add', path: 'phoneNumbers', value: [{ value: '+41 44 668 18 00', type: 'work' }] },
      ],
    });
    assert.ok(set.status === 200 || set.status === 204, set.text);
    await eventually(
      'set there',
      async () => {
        const u = await byExternalId('Users', userId);
        return u?.title === 'Countess' && u.phoneNumbers?.length === 1 && u.name?.middleName === 'Augusta' ? true : undefined;
      },
      WAIT,
    );
    const cleared = await scim({
      schemas: [PATCH_OP],
      Operations: [
        { op: 'remove', path: 'title' },
        { op: 'remove', path: 'phoneNumbers' },
        { op: 'remove', path: 'name.middleName' },
      ],
    });
    assert.ok(cleared.status === 200 || cleared.status === 204, cleared.text);
    const u = await eventually(
      'removed there',
      async () => {
        const there = await byExternalId('Users', userId);
        return there && there.title === undefined && there.phoneNumbers === undefined && there.name?.middleName === undefined ? there : undefined;
      },
      WAIT,
    );
    assert.equal(u.name?.givenName, 'Ada', 'the rest stays');
  });
});
