import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCaller, createOrg, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { PASSWORD, createHuman, createProject } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';

const API_SCOPE = 'openid urn:portcullis:iam:api:aud';

/**
 * docs/application-access.md, "Groups that hold a grant": a machine user with ORG_USER_MANAGER may change the
 * members of a group that holds a project grant, a human ORG_USER_MANAGER may not. A credential of that machine
 * acts with what the machine may do, so a human ORG_USER_MANAGER who could issue one would act as the machine, add
 * itself to the group and enter the project. Issuing or replacing such a machine's secret, key or PAT is refused
 * to it (403 naming the reason, nothing written); an ORG_OWNER and a machine ORG_USER_MANAGER still may.
 */
describe('a human ORG_USER_MANAGER and the credentials of a machine ORG_USER_MANAGER', () => {
  const svc = useService();
  let orgId: string;
  let groupId: string;
  let machineId: string;
  let human: { userId: string; token: string };
  let owner: { userId: string; token: string };

  before(async () => {
    const org = await createOrg(svc);
    orgId = org.id;
    const project = await createProject(svc, orgId);
    const base = `/management/v1/orgs/${orgId}`;
    const role = await svc.api('POST', `${base}/projects/${project.projectId}/roles`, { token: svc.adminToken, body: { key: 'payroll.admin' } });
    assert.equal(role.status, 201, role.text);
    const group = await svc.api('POST', `${base}/groups`, { token: svc.adminToken, body: { displayName: unique('payroll') } });
    assert.equal(group.status, 201, group.text);
    groupId = group.body.id;
    const grant = await svc.api('POST', `${base}/projects/${project.projectId}/grants`, {
      token: svc.adminToken,
      body: { groupId, roles: ['payroll.admin'] },
    });
    assert.equal(grant.status, 201, grant.text);
    machineId = (await createCaller(svc, orgId, { org: ['ORG_USER_MANAGER'] })).userId;
    human = await consoleUser(svc, orgId, org.primaryDomain, 'ORG_USER_MANAGER');
    owner = await consoleUser(svc, orgId, org.primaryDomain, 'ORG_OWNER');
  });

  const credentials = () => stored(svc, machineId);

  it('joins no grant-holding group itself (the door the credential would open)', async () => {
    const res = await svc.api('PUT', `/management/v1/orgs/${orgId}/groups/${groupId}/members/${human.userId}`, { token: human.token });
    assert.equal(res.status, 403, res.text);
  });

  for (const [kind, tail] of [
    ['a secret', 'secret'],
    ['a key', 'keys'],
    ['a personal access token', 'pats'],
  ] as const) {
    it(`is refused ${kind} for the machine: 403 naming why, nothing written`, async () => {
      const before = await credentials();
      const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${machineId}/${tail}`, { token: human.token, body: {} });
      if (res.status === 201 && tail === 'pats') {
        // What the credential would open: the machine adds the human to the group, which enters the project.
        const joined = await svc.api('PUT', `/management/v1/orgs/${orgId}/groups/${groupId}/members/${human.userId}`, { token: res.body.token });
        assert.fail(`a human ORG_USER_MANAGER was issued the machine's PAT (201), with which it joined the grant-holding group (${joined.status})`);
      }
      assert.equal(res.status, 403, `a human ORG_USER_MANAGER was issued ${kind} of the machine: ${res.status} ${res.text}`);
      assert.match(res.body.message, /ORG_USER_MANAGER/);
      assert.match(res.body.message, /group/);
      assert.equal(await credentials(), before, 'the refusal wrote nothing');
    });
  }

  it('may still issue credentials of a machine without a role', async () => {
    const plain = await svc.api('POST', `/management/v1/orgs/${orgId}/users/machine`, {
      token: human.token,
      body: { userName: unique('plain'), name: 'plain' },
    });
    assert.equal(plain.status, 201, plain.text);
    const pat = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${plain.body.userId}/pats`, { token: human.token, body: {} });
    assert.equal(pat.status, 201, pat.text);
  });

  it('an ORG_OWNER and a machine ORG_USER_MANAGER may issue them', async () => {
    const byOwner = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${machineId}/secret`, { token: owner.token, body: {} });
    assert.equal(byOwner.status, 201, byOwner.text);
    const peer = await createCaller(svc, orgId, { org: ['ORG_USER_MANAGER'] });
    const byMachine = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${machineId}/pats`, { token: peer.token, body: {} });
    assert.equal(byMachine.status, 201, byMachine.text);
  });
});

/** A person holding `role`, signed in at the console (the first-party application with the API audience). */
async function consoleUser(svc: TestService, orgId: string, domain: string, role: string): Promise<{ userId: string; token: string }> {
  const person = await createHuman(svc, orgId);
  const member = await svc.api('PUT', `/management/v1/orgs/${orgId}/members/${person.userId}`, { token: svc.adminToken, body: { roles: [role] } });
  assert.equal(member.status, 200, member.text);
  const { tokens, error } = await signIn(svc, {
    clientId: 'console',
    redirectUri: `${svc.config.publicUrl}/console/callback`,
    loginName: `${person.userName}@${domain}`,
    password: PASSWORD,
    scope: API_SCOPE,
  });
  assert.ok(tokens?.access_token, error);
  return { userId: person.userId, token: tokens.access_token };
}

/** The machine's stored credentials and the events about it. */
async function stored(svc: TestService, userId: string): Promise<string> {
  const q = (sql: string) => svc.dataSource.query(sql, [userId]);
  return JSON.stringify(
    await Promise.all([
      q('SELECT * FROM machine_secrets WHERE user_id = ?'),
      q('SELECT * FROM personal_access_tokens WHERE user_id = ? ORDER BY id'),
      q('SELECT * FROM public_keys WHERE owner_id = ? ORDER BY id'),
      q('SELECT COUNT(*) AS n FROM events WHERE aggregate_id = ?'),
    ]),
  );
}
