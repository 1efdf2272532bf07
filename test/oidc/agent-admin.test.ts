import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { LoginClient } from '../attack/support/login-client.js';
import { createOrg, createCaller, useService } from '../support/fixtures.js';
import { agentTokenRequest, createFilesResource, registerAgent } from './support/agent-clients.js';
import type { AgentClient } from './support/agent-clients.js';
import { authorize, REDIRECT, redeem } from './support/agent-consent-flow.js';
import { createHuman, createProject } from './support/oidc-fixtures.js';

/** docs/agents.md, "Consent and connected agents": administrators list the people's agents and revoke one. */
describe("administrators' view of connected agents", () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let resourceUri: string;
  let agent: AgentClient;
  let manager: { userId: string; token: string };

  /** A person of the organization who allowed the agent through the consent page; their refresh token. */
  async function connected(roles: string[] = [], client: AgentClient = agent) {
    const person = await createHuman(svc, project.orgId);
    if (roles.length) {
      const res = await svc.api('PUT', `/management/v1/orgs/${project.orgId}/members/${person.userId}`, { token: svc.adminToken, body: { roles } });
      assert.equal(res.status, 200, res.text);
    }
    const auth = await authorize(
      new LoginClient(svc.url),
      client,
      `${person.userName}@${project.primaryDomain}`,
      'openid offline_access files:read',
      resourceUri,
      'allow',
    );
    assert.ok(auth.consent, 'the consent page was shown');
    const tokens = await redeem(svc, client, auth);
    assert.ok(tokens.refresh_token);
    return { userId: person.userId, loginName: `${person.userName}@${project.primaryDomain}`, refreshToken: tokens.refresh_token };
  }

  const refresh = (refreshToken: string) => agentTokenRequest(svc, agent, { grant_type: 'refresh_token', refresh_token: refreshToken });
  const orgPath = (path: string) => `/management/v1/orgs/${project.orgId}${path}`;

  before(async () => {
    project = await createProject(svc);
    resourceUri = await createFilesResource(svc, project);
    agent = await registerAgent(svc, project.orgId, REDIRECT);
    manager = await createCaller(svc, project.orgId, { org: ['ORG_USER_MANAGER'] });
  });

  it("lists the organization's and the user's agents; a revoke ends the refresh token at once", async () => {
    const person = await connected();
    const ofOrg = await svc.api('GET', orgPath('/agents?limit=1000'), { token: manager.token });
    assert.equal(ofOrg.status, 200, ofOrg.text);
    assert.ok(ofOrg.body.total >= 1);
    const listed = ofOrg.body.agents.find((a: { userId: string }) => a.userId === person.userId);
    assert.equal(listed.clientId, agent.clientId);
    assert.equal(listed.resource, resourceUri);
    assert.deepEqual(listed.scopes, ['files:read', 'offline_access', 'openid']);
    assert.ok(listed.clientName);
    assert.ok(!Number.isNaN(Date.parse(listed.connectedAt)));
    assert.ok(Date.parse(listed.changedAt) >= Date.parse(listed.connectedAt));
    const named = ofOrg.body.users.find((u: { userId: string }) => u.userId === person.userId);
    assert.equal(named?.loginName, person.loginName, 'the list names the person beside the id');
    // ?query= by the client's name, its id, the resource or the person's user name (any case); the total counts the matches.
    for (const text of [agent.clientName.toUpperCase(), person.loginName.split('@')[0]]) {
      const found = await svc.api('GET', orgPath(`/agents?query=${encodeURIComponent(text)}`), { token: manager.token });
      assert.equal(found.status, 200, found.text);
      assert.ok(found.body.total >= 1 && found.body.agents.some((a: { userId: string }) => a.userId === person.userId), `${text}: ${found.text}`);
    }
    const none = await svc.api('GET', orgPath('/agents?query=nothing-like-it'), { token: manager.token });
    assert.deepEqual([none.body.total, none.body.agents], [0, []]);
    const paged = await svc.api('GET', orgPath('/agents?limit=1'), { token: manager.token });
    assert.equal(paged.body.agents.length, 1);
    assert.equal(paged.body.total, ofOrg.body.total);

    const ofUser = await svc.api('GET', orgPath(`/users/${person.userId}/agents`), { token: manager.token });
    assert.equal(ofUser.status, 200, ofUser.text);
    assert.equal(ofUser.body.total, 1);
    assert.equal(ofUser.body.agents[0].clientId, agent.clientId);

    const unknown = await svc.api('DELETE', orgPath(`/users/${person.userId}/agents/no-such-client`), { token: manager.token });
    assert.equal(unknown.status, 404, unknown.text);
    const revoked = await svc.api('DELETE', orgPath(`/users/${person.userId}/agents/${encodeURIComponent(agent.clientId)}`), { token: manager.token });
    assert.equal(revoked.status, 204, revoked.text);
    const after = await refresh(person.refreshToken);
    assert.equal(after.status, 400, after.text);
    assert.equal(after.body.error, 'invalid_grant');
    assert.equal((await svc.api('GET', orgPath(`/users/${person.userId}/agents`), { token: manager.token })).body.total, 0);
    const [{ n }] = await svc.dataSource.query(
      "SELECT COUNT(*) AS n FROM events WHERE type = 'user.agent.revoked' AND aggregate_id = ? AND editor_user_id = ?",
      [person.userId, manager.userId],
    );
    assert.equal(Number(n), 1);
  });

  it('forgets the consents to a registered client its owner removes, and those of a removed person', async () => {
    const second = await registerAgent(svc, project.orgId, REDIRECT, 'Second agent');
    const person = await connected([], second);
    const agentsOf = async (userId: string) => (await svc.api('GET', orgPath(`/users/${userId}/agents`), { token: svc.adminToken })).body.agents;
    assert.deepEqual(
      (await agentsOf(person.userId)).map((a: { clientId: string }) => a.clientId),
      [second.clientId],
    );
    // Found by its name before it goes (?query=, any case); another organization's are never among them.
    const found = await svc.api('GET', orgPath('/registered-clients?query=SECOND%20AG'), { token: svc.adminToken });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual([found.body.total, found.body.clients.map((c: { clientId: string }) => c.clientId)], [1, [second.clientId]]);
    const removed = await svc.api('DELETE', orgPath(`/registered-clients/${second.clientId}`), { token: svc.adminToken });
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual(await agentsOf(person.userId), [], 'no consent to a client that no longer exists');

    const leaving = await connected();
    const consentsOf = async (userId: string) =>
      Number((await svc.dataSource.query('SELECT COUNT(*) AS n FROM agent_consents WHERE user_id = ?', [userId]))[0].n);
    assert.equal(await consentsOf(leaving.userId), 1);
    const gone = await svc.api('DELETE', orgPath(`/users/${leaving.userId}`), { token: svc.adminToken });
    assert.equal(gone.status, 204, gone.text);
    assert.equal(await consentsOf(leaving.userId), 0, "a removed person's consents go with them");
  });

  it("a user manager cannot revoke an organization owner's agent: 403, the token lives", async () => {
    const owner = await connected(['ORG_OWNER']);
    const res = await svc.api('DELETE', orgPath(`/users/${owner.userId}/agents/${encodeURIComponent(agent.clientId)}`), { token: manager.token });
    assert.equal(res.status, 403, res.text);
    const still = await refresh(owner.refreshToken);
    assert.equal(still.status, 200, still.text);
  });

  it("another organization's manager gets 404 and ends nothing", async () => {
    const person = await connected();
    const other = await createOrg(svc);
    const outsider = await createCaller(svc, other.id, { org: ['ORG_USER_MANAGER'] });
    for (const [method, path] of [
      ['GET', `/management/v1/orgs/${other.id}/users/${person.userId}/agents`],
      ['DELETE', `/management/v1/orgs/${other.id}/users/${person.userId}/agents/${encodeURIComponent(agent.clientId)}`],
      ['DELETE', orgPath(`/users/${person.userId}/agents/${encodeURIComponent(agent.clientId)}`)],
      ['GET', orgPath('/agents')],
    ]) {
      const res = await svc.api(method, path, { token: outsider.token });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    const still = await refresh(person.refreshToken);
    assert.equal(still.status, 200, still.text);
    const ofOther = await svc.api('GET', `/management/v1/orgs/${other.id}/agents`, { token: outsider.token });
    assert.equal(ofOther.body.total, 0);
  });
});
