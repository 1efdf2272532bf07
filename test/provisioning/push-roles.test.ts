import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { eventually } from '../faults/faults.helpers.js';
import SCIMMY from 'scimmy';
import { ScimmyTarget } from './support/scimmy-target.js';

const PEER_TOKEN = 'peer-token-roles-5e1';

interface RemoteUser {
  externalId?: string;
  roles?: { value: string; type?: string }[];
}

/**
 * docs/provisioning.md, "Roles": a target with `rolesFrom` pushes each user's roles in that project (RFC 7643 §4.1.2:
 * `value` the key, `type` the project's name) to the scimmy-based peer; a grant given, changed or taken (a user's own
 * or a group's) pushes the users it reaches again. `rolesFrom` must name a project of the target's organization.
 */
describe('provisioning: roles of a project pushed with the users', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', PROVISIONING_RETRY_BASE_MS: '50', PROVISIONING_RETRY_WINDOW_MS: '600000' });
  let peer: ScimmyTarget;
  let orgId: string;
  let projectId: string;
  let projectName: string;
  let targetId = '';
  const org = (path: string) => `/management/v1/orgs/${orgId}${path}`;
  const admin = async (method: string, path: string, body?: unknown, status?: number) => {
    const res = await svc.api(method, path, { token: svc.adminToken, body });
    if (status !== undefined) assert.equal(res.status, status, `${method} ${path}: ${res.text}`);
    return res;
  };
  const rolesAtPeer = (userId: string, expected: string[]) =>
    eventually(`roles ${JSON.stringify(expected)} at the peer`, async () => {
      const user = peer.users.find((u) => (u as RemoteUser).externalId === userId) as RemoteUser | undefined;
      const roles = user?.roles ?? [];
      const same = JSON.stringify(roles.map((r) => r.value)) === JSON.stringify(expected) && roles.every((r) => r.type === projectName);
      return user && same ? user : undefined;
    }).catch(async (error: unknown) => {
      const user = peer.users.find((u) => (u as RemoteUser).externalId === userId);
      const objects = (await admin('GET', org(`/provisioning/targets/${targetId}/objects`))).body;
      throw new Error(`${String(error)}; at the peer: ${JSON.stringify(user)}; objects: ${JSON.stringify(objects).slice(0, 1500)}`);
    });
  const person = async () => {
    const userName = unique('p');
    const body = { userName, profile: { firstName: 'A', lastName: 'B' }, email: { email: `${userName}@example.com` } };
    return (await admin('POST', org('/users/human'), body, 201)).body.userId as string;
  };

  before(async () => {
    peer = await ScimmyTarget.start(PEER_TOKEN);
    // Updates by PUT (RFC 7644 §3.5.1): scimmy applies a path-less PATCH replace of a multi-valued attribute by adding
    // the values, where RFC 7644 §3.5.2.3 replaces them, so a removed role would stay at the peer.
    SCIMMY.Config.set({ patch: false });
    orgId = (await createOrg(svc)).id;
    projectName = unique('Payroll');
    projectId = (await admin('POST', org('/projects'), { name: projectName }, 201)).body.id;
    for (const key of ['viewer', 'Approver', 'admin']) await admin('POST', org(`/projects/${projectId}/roles`), { key }, 201);
  });
  after(async () => {
    await peer?.close();
  });

  it('rolesFrom must be a project of the organization: 400 naming it, nothing stored', async () => {
    const otherOrg = (await createOrg(svc)).id;
    const foreign = (await admin('POST', `/management/v1/orgs/${otherOrg}/projects`, { name: unique('p') }, 201)).body.id;
    const base = { name: 'scimmy', baseUrl: peer.baseUrl, auth: { type: 'bearer', token: PEER_TOKEN } };
    for (const rolesFrom of [foreign, 'no-such-project']) {
      const res = await admin('POST', org('/provisioning/targets'), { ...base, rolesFrom });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.details?.[0]?.field, 'rolesFrom');
    }
    assert.equal((await admin('GET', org('/provisioning/targets'), undefined, 200)).body.total, 0);
  });

  it('pushed users carry their roles (own and group grants); grant changes push them again', async () => {
    const direct = await person();
    const member = await person();
    const groupId = (await admin('POST', org('/groups'), { displayName: unique('Approvers') }, 201)).body.id;
    await admin('PUT', org(`/groups/${groupId}/members/${member}`), undefined, 200);
    const grantId = (await admin('POST', org(`/projects/${projectId}/grants`), { userId: direct, roles: ['viewer', 'admin'] }, 201)).body.grantId;
    const created = await admin(
      'POST',
      org('/provisioning/targets'),
      { name: 'scimmy', baseUrl: peer.baseUrl, auth: { type: 'bearer', token: PEER_TOKEN }, rolesFrom: projectId },
      201,
    );
    targetId = created.body.id;
    const target = (await admin('GET', org(`/provisioning/targets/${targetId}`), undefined, 200)).body;
    assert.equal(target.rolesFrom, projectId);

    await rolesAtPeer(direct, ['admin', 'viewer']);
    await rolesAtPeer(member, []);
    // A group's grant reaches its member; a changed grant and a removed role push again.
    await admin('POST', org(`/projects/${projectId}/grants`), { groupId, roles: ['Approver'] }, 201);
    await rolesAtPeer(member, ['Approver']);
    await admin('PATCH', org(`/projects/${projectId}/grants/${grantId}`), { roles: ['viewer', 'Approver'] }, 200);
    await rolesAtPeer(direct, ['Approver', 'viewer']);
    await admin('DELETE', org(`/projects/${projectId}/roles/Approver`), undefined, 204);
    await rolesAtPeer(direct, ['viewer']);
    await rolesAtPeer(member, []);
    await admin('DELETE', org(`/projects/${projectId}/grants/${grantId}`), undefined, 204);
    await rolesAtPeer(direct, []);
  });
});
