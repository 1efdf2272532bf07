import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { snapshot } from '../admin/helpers.js';
import { createCaller, createOrg, unique, useService } from '../support/fixtures.js';
import type { ApiResponse } from '../support/http.js';
import { PASSWORD, createHuman } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { PATCH_OP, assertScimError } from '../scim/scim-helpers.js';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';

interface Party {
  userId: string;
  token: string;
}

/**
 * A membership of a group that holds a project grant is a grant (docs/application-access.md, "Groups that hold
 * a grant"): every surface that changes a group's members — management API, SCIM PATCH, PUT and Bulk — refuses a
 * human ORG_USER_MANAGER and anyone changing their own membership, and lets an ORG_OWNER or a machine
 * ORG_USER_MANAGER (an IdP's SCIM provisioning) through.
 */
describe('group membership that carries a grant is a grant', () => {
  const svc = useService();
  let org: { id: string; primaryDomain: string };
  let projectName: string;
  /** Holds a grant of the project; `plain` holds none. */
  let granted: string;
  let plain: string;
  let humanManager: Party;
  let humanOwner: Party;
  let machineManager: Party;
  let machineOwner: Party;

  /** A human of the organization holding `role`, signed in at the console (its token carries the API audience). */
  async function human(role: string): Promise<Party> {
    const { userId, userName } = await createHuman(svc, org.id);
    const member = await svc.api('PUT', `/management/v1/orgs/${org.id}/members/${userId}`, { token: svc.adminToken, body: { roles: [role] } });
    assert.equal(member.status, 200, member.text);
    const { tokens, error } = await signIn(svc, {
      clientId: 'console',
      redirectUri: `${svc.config.publicUrl}/console/callback`,
      loginName: `${userName}@${org.primaryDomain}`,
      password: PASSWORD,
      scope: 'openid urn:portcullis:iam:api:aud',
    });
    assert.ok(tokens, error);
    return { userId, token: tokens.access_token };
  }

  async function group(displayName = unique('g')): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.id}/groups`, { token: svc.adminToken, body: { displayName } });
    assert.equal(res.status, 201, res.text);
    return res.body.id;
  }

  const membersPath = (groupId: string, userId: string) => `/management/v1/orgs/${org.id}/groups/${groupId}/members/${userId}`;
  const scim = (caller: Party, method: string, path: string, body: unknown) =>
    svc.api(method, `/scim/v2/${org.id}${path}`, { token: caller.token, body, headers: { 'content-type': 'application/scim+json' } });
  const addBy = (caller: Party, groupId: string, userId: string) =>
    scim(caller, 'PATCH', `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: 'Add', path: 'members', value: [{ value: userId }] }] });
  const removeBy = (caller: Party, groupId: string, userId: string) =>
    scim(caller, 'PATCH', `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${userId}"]` }] });

  async function members(groupId: string): Promise<string[]> {
    const rows: { user_id: string }[] = await svc.dataSource.query('SELECT user_id FROM group_members WHERE group_id = ? ORDER BY user_id', [groupId]);
    return rows.map((r) => r.user_id);
  }

  async function addAsAdmin(groupId: string, userId: string): Promise<void> {
    const res = await svc.api('PUT', membersPath(groupId, userId), { token: svc.adminToken });
    assert.equal(res.status, 200, res.text);
  }

  /** The request is refused with 403 naming the project, and no table gained or lost a row. */
  async function refused(label: string, send: () => Promise<ApiResponse>, scimEnvelope = false): Promise<ApiResponse> {
    const before = await snapshot(svc);
    const res = await send();
    if (scimEnvelope) assertScimError(res, 403);
    else assert.equal(res.status, 403, `${label}: ${res.text}`);
    assert.deepEqual(await snapshot(svc), before, `${label}: a refused request changed the database`);
    return res;
  }

  before(async () => {
    const created = await createOrg(svc);
    org = { id: created.id, primaryDomain: created.primaryDomain };
    projectName = unique('payroll');
    const project = await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: svc.adminToken, body: { name: projectName } });
    assert.equal(project.status, 201, project.text);
    granted = await group();
    plain = await group();
    const grant = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${project.body.id}/grants`, {
      token: svc.adminToken,
      body: { groupId: granted, roles: [] },
    });
    assert.equal(grant.status, 201, grant.text);
    humanManager = await human('ORG_USER_MANAGER');
    humanOwner = await human('ORG_OWNER');
    machineManager = await createCaller(svc, org.id, { org: ['ORG_USER_MANAGER'] });
    machineOwner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
  });

  it('refuses a human ORG_USER_MANAGER on every surface (403 naming the project) and changes nothing', async () => {
    const outsider = await createHuman(svc, org.id);
    const insider = await createHuman(svc, org.id);
    await addAsAdmin(granted, insider.userId);

    const put = await refused('management add', () => svc.api('PUT', membersPath(granted, outsider.userId), { token: humanManager.token }));
    assert.match(put.body.message, new RegExp(projectName), put.text);
    assert.match(put.body.message, /ORG_OWNER/, 'the answer says who may change the members');
    await refused('management remove', () => svc.api('DELETE', membersPath(granted, insider.userId), { token: humanManager.token }));
    await refused('management add of itself', () => svc.api('PUT', membersPath(granted, humanManager.userId), { token: humanManager.token }));
    const patched = await refused('SCIM PATCH add', () => addBy(humanManager, granted, outsider.userId), true);
    assert.match(patched.body.detail, new RegExp(projectName), patched.text);
    await refused('SCIM PATCH remove', () => removeBy(humanManager, granted, insider.userId), true);
    const displayName = (await svc.api('GET', `/scim/v2/${org.id}/Groups/${granted}`, { token: svc.adminToken })).body.displayName;
    await refused(
      'SCIM PUT',
      () =>
        scim(humanManager, 'PUT', `/Groups/${granted}`, { schemas: [GROUP], displayName, members: [{ value: insider.userId }, { value: outsider.userId }] }),
      true,
    );
    const bulk = await scim(humanManager, 'POST', '/Bulk', {
      schemas: [BULK],
      Operations: [
        {
          method: 'PATCH',
          path: `/Groups/${granted}`,
          data: { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: outsider.userId }] }] },
        },
      ],
    });
    assert.equal(bulk.status, 200, bulk.text);
    assert.equal(bulk.body.Operations[0].status, '403', bulk.text);
    assert.deepEqual(await members(granted), [insider.userId].sort(), 'the members are as before');

    // The rule is about grants: a group that holds none is the manager's to change.
    const ordinary = await svc.api('PUT', membersPath(plain, outsider.userId), { token: humanManager.token });
    assert.equal(ordinary.status, 200, ordinary.text);
  });

  it('lists which groups hold a grant, naming the projects', async () => {
    const res = await svc.api('GET', `/management/v1/orgs/${org.id}/groups`, { token: humanManager.token });
    assert.equal(res.status, 200, res.text);
    const byId = new Map(res.body.groups.map((g: { id: string; grantProjects: { name: string }[] }) => [g.id, g.grantProjects.map((p) => p.name)]));
    assert.deepEqual(byId.get(granted), [projectName]);
    assert.deepEqual(byId.get(plain), []);
  });

  it('lets an ORG_OWNER change the members of such a group', async () => {
    const user = await createHuman(svc, org.id);
    const added = await svc.api('PUT', membersPath(granted, user.userId), { token: humanOwner.token });
    assert.equal(added.status, 200, added.text);
    assert.ok((await members(granted)).includes(user.userId));
    const removed = await removeBy(humanOwner, granted, user.userId);
    assert.equal(removed.status, 204, removed.text);
    assert.ok(!(await members(granted)).includes(user.userId));
  });

  it("lets a machine ORG_USER_MANAGER (an IdP's SCIM provisioning) change them", async () => {
    const user = await createHuman(svc, org.id);
    const added = await addBy(machineManager, granted, user.userId);
    assert.ok(added.status === 200 || added.status === 204, added.text);
    assert.ok((await members(granted)).includes(user.userId));
    const removed = await svc.api('DELETE', membersPath(granted, user.userId), { token: machineManager.token });
    assert.equal(removed.status, 204, removed.text);
    assert.ok(!(await members(granted)).includes(user.userId));
  });

  it('refuses anyone changing their own membership of such a group, owners and machines included', async () => {
    await refused('a human ORG_OWNER adds itself', () => svc.api('PUT', membersPath(granted, humanOwner.userId), { token: humanOwner.token }));
    await refused('a machine ORG_USER_MANAGER adds itself by SCIM', () => addBy(machineManager, granted, machineManager.userId), true);
    await addAsAdmin(granted, machineOwner.userId);
    await refused('a machine ORG_OWNER removes itself', () => svc.api('DELETE', membersPath(granted, machineOwner.userId), { token: machineOwner.token }));
    assert.ok((await members(granted)).includes(machineOwner.userId));
    assert.ok(!(await members(granted)).includes(humanOwner.userId));
    assert.ok(!(await members(granted)).includes(machineManager.userId));
  });
});
