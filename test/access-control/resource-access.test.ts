import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { LoginClient } from '../attack/support/login-client.js';
import { unique, useService } from '../support/fixtures.js';
import { createHuman, createOidcApp, createProject, postForm } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { agentTokenRequest, registerAgent } from '../oidc/support/agent-clients.js';
import type { AgentClient } from '../oidc/support/agent-clients.js';
import { authorize, REDIRECT, redeem } from '../oidc/support/agent-consent-flow.js';
import { DeviceUser, deviceApp, poll } from '../oidc/support/device-user.js';
import { spawnSecondProcess } from '../support/process.js';

type Project = { orgId: string; projectId: string; primaryDomain: string };
type Api = { appId: string; clientId: string; clientSecret: string; resourceUri: string; name: string };

/**
 * docs/application-access.md, "Resources of a restricted API application": a token for an API application's resource
 * or project is issued, refreshed and honoured only for people the application admits, whichever client asks; and a
 * removed grant ends what it allowed an agent (docs/agents.md, "Consent and connected agents").
 */
describe('application access: the resource of an API application with access "granted"', () => {
  const svc = useService();
  let project: Project;
  let api: Api;
  let publicApp: OidcApp;

  async function grantedApi(where: Project): Promise<Api> {
    const resourceUri = `https://${unique('mcp')}.example/mcp`;
    const name = unique('Payroll MCP');
    const res = await svc.api('POST', `/management/v1/orgs/${where.orgId}/projects/${where.projectId}/apps/api`, {
      token: svc.adminToken,
      body: {
        name,
        authMethod: 'client_secret_basic',
        resourceUri,
        scopes: [{ name: 'files:read', description: 'Read your files' }],
        access: 'granted',
      },
    });
    assert.equal(res.status, 201, res.text);
    const read = await svc.api('GET', `/management/v1/orgs/${where.orgId}/projects/${where.projectId}/apps/${res.body.appId}`, { token: svc.adminToken });
    assert.equal(read.body.access, 'granted', read.text);
    return { ...res.body, resourceUri, name };
  }

  async function person(): Promise<{ userId: string; loginName: string }> {
    const user = await createHuman(svc, project.orgId);
    return { userId: user.userId, loginName: `${user.userName}@${project.primaryDomain}` };
  }

  async function grantUser(userId: string): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/grants`, {
      token: svc.adminToken,
      body: { userId, roles: [] },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.grantId;
  }

  async function removeGrant(grantId: string): Promise<void> {
    const res = await svc.api('DELETE', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/grants/${grantId}`, { token: svc.adminToken });
    assert.equal(res.status, 204, res.text);
  }

  function introspect(token: string) {
    return postForm(svc, '/oauth/v2/introspect', { token }, { id: api.clientId, secret: api.clientSecret });
  }

  async function denials(userId: string): Promise<{ appId: string; door: string }[]> {
    const rows: { payload: string }[] = await svc.dataSource.query(
      "SELECT payload FROM events WHERE type = 'user.app.access.denied' AND aggregate_id = ? ORDER BY position",
      [userId],
    );
    return rows.map((r) => JSON.parse(r.payload));
  }

  async function consents(userId: string): Promise<number> {
    const [{ n }] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM agent_consents WHERE user_id = ?', [userId]);
    return Number(n);
  }

  before(async () => {
    project = await createProject(svc);
    api = await grantedApi(project);
    // A public client of another project of the organization, open to everyone.
    publicApp = await createOidcApp(svc, await createProject(svc, project.orgId), { authMethod: 'none' });
  });

  it("another client's authorization for the resource refuses a person without a grant, with prompt=none too", async () => {
    const { userId, loginName } = await person();
    const browser = new LoginClient(svc.url);
    const auth = await authorize(browser, publicApp, loginName, 'openid offline_access files:read', api.resourceUri, 'allow');
    assert.equal(auth.callback.href, 'about:blank', `no code reaches the client: ${auth.callback}`);
    assert.ok(auth.consent?.includes(`You have no access to ${api.name}`), 'the 403 page names the API application');
    const silent = await authorize(browser, publicApp, loginName, 'openid files:read', api.resourceUri, 'allow', 'none');
    assert.equal(silent.callback.searchParams.get('error'), 'access_denied', String(silent.callback));
    assert.equal(silent.callback.searchParams.get('code'), null);
    assert.deepEqual(
      (await denials(userId)).map((d) => d.door),
      ['resource', 'resource'],
    );
    assert.equal((await denials(userId))[0].appId, api.appId, 'the event names the API application');
  });

  it('a code, a refresh token and an access token for the resource stop when the grant goes', async () => {
    const { userId, loginName } = await person();
    const grantId = await grantUser(userId);
    const browser = new LoginClient(svc.url);
    const tokens = await redeem(svc, publicApp, await authorize(browser, publicApp, loginName, 'openid offline_access files:read', api.resourceUri, 'allow'));
    assert.ok(tokens.refresh_token);
    assert.equal((await introspect(tokens.access_token)).body.active, true);
    const pending = await authorize(browser, publicApp, loginName, 'openid files:read', api.resourceUri, 'allow');
    assert.ok(pending.callback.searchParams.get('code'));

    await removeGrant(grantId);
    assert.equal((await introspect(tokens.access_token)).body.active, false, 'introspection');
    const refresh = await postForm(svc, '/oauth/v2/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: publicApp.clientId,
    });
    assert.equal(refresh.status, 400, refresh.text);
    assert.equal(refresh.body.error, 'invalid_grant');
    const code = await postForm(svc, '/oauth/v2/token', {
      grant_type: 'authorization_code',
      code: pending.callback.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: pending.verifier,
      client_id: publicApp.clientId,
    });
    assert.equal(code.status, 400, code.text);
    assert.equal(code.body.error, 'invalid_grant');
    assert.deepEqual(
      (await denials(userId)).map((d) => d.door),
      ['resource', 'resource'],
      'refresh and code redemption are recorded',
    );
  });

  it("a token of an application in the API application's project is for people the API application admits", async () => {
    const sibling = await createOidcApp(svc, project, { authMethod: 'none' });
    const { userId, loginName } = await person();
    const plain = await authorize(new LoginClient(svc.url), sibling, loginName, 'openid', '', 'allow');
    assert.equal(plain.callback.href, 'about:blank', `no code for its project's audience: ${plain.callback}`);
    assert.deepEqual(
      (await denials(userId)).map((d) => d.door),
      ['resource'],
    );
  });

  it("userinfo and introspection refuse a token of the API application's project once the grant goes", async () => {
    const sibling = await createOidcApp(svc, project, { authMethod: 'none' });
    const { userId, loginName } = await person();
    const grantId = await grantUser(userId);
    const tokens = await redeem(svc, sibling, await authorize(new LoginClient(svc.url), sibling, loginName, 'openid', '', 'allow'));
    const userinfo = () => fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal((await userinfo()).status, 200);
    assert.equal((await introspect(tokens.access_token)).body.active, true, "the API application accepts its project's token");
    await removeGrant(grantId);
    assert.equal((await userinfo()).status, 401);
    assert.equal((await introspect(tokens.access_token)).body.active, false);
  });

  it("the device flow for the resource: refused at the confirmation, and the device's next poll hears access_denied", async () => {
    const tv = await deviceApp(svc, await createProject(svc, project.orgId));
    const { userId, loginName } = await person();
    const started = await postForm(svc, '/oauth/v2/device_authorization', { client_id: tv.clientId, scope: 'openid files:read', resource: api.resourceUri });
    assert.equal(started.status, 200, started.text);
    const refused = await DeviceUser.of(svc).approve(started.body.user_code, loginName);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.text, /data-device-denied/);
    const answer = await poll(svc, tv, started.body.device_code);
    assert.equal(answer.body.error, 'access_denied', answer.text);
    assert.equal(answer.body.access_token, undefined);
    assert.deepEqual(
      (await denials(userId)).map((d) => d.door),
      ['resource'],
    );
  });

  describe('an agent after the grant that admitted its person goes', () => {
    let agent: AgentClient;

    before(async () => {
      agent = await registerAgent(svc, project.orgId, REDIRECT);
    });

    async function connect(loginName: string) {
      const browser = new LoginClient(svc.url);
      const auth = await authorize(browser, agent, loginName, 'openid offline_access files:read', api.resourceUri, 'allow');
      assert.ok(auth.consent, 'consent asked');
      return { browser, tokens: await redeem(svc, agent, auth) };
    }

    async function assertEnded(userId: string, loginName: string, tokens: { access_token: string; refresh_token?: string }) {
      assert.equal(await consents(userId), 0, 'the remembered consent is gone');
      assert.equal((await introspect(tokens.access_token)).body.active, false, 'introspection');
      const refresh = await agentTokenRequest(svc, agent, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });
      assert.equal(refresh.status, 400, refresh.text);
      assert.equal(refresh.body.error, 'invalid_grant');
      const refused = await authorize(new LoginClient(svc.url), agent, loginName, 'openid files:read', api.resourceUri, 'allow');
      assert.ok(refused.consent?.includes(`You have no access to ${api.name}`), 'still not admitted: refused');
      const [{ n }] = await svc.dataSource.query("SELECT COUNT(*) AS n FROM events WHERE type = 'user.agent.revoked' AND aggregate_id = ?", [userId]);
      assert.equal(Number(n), 1, 'the revocation is recorded');
    }

    it('removing the grant ends its consent and tokens; granted again, consent is asked again', async () => {
      const { userId, loginName } = await person();
      const grantId = await grantUser(userId);
      const { tokens } = await connect(loginName);
      assert.equal(await consents(userId), 1);
      await removeGrant(grantId);
      await assertEnded(userId, loginName, tokens);
      await grantUser(userId);
      const again = await authorize(new LoginClient(svc.url), agent, loginName, 'openid files:read', api.resourceUri, 'deny');
      assert.match(again.consent ?? '', /data-consent-allow/, 'asked again');
    });

    it("another process of the instance refuses the agent's tokens as soon as the grant's removal returns", async () => {
      const { userId, loginName } = await person();
      const grantId = await grantUser(userId);
      const { tokens } = await connect(loginName);
      const second = await spawnSecondProcess(svc);
      try {
        const post = (path: string, form: Record<string, string>, basic?: string) =>
          fetch(new URL(path, second.url), {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', ...(basic ? { authorization: `Basic ${basic}` } : {}) },
            body: new URLSearchParams(form),
          });
        const basic = Buffer.from(`${encodeURIComponent(api.clientId)}:${encodeURIComponent(api.clientSecret)}`).toString('base64');
        const introspected = async () => (await (await post('/oauth/v2/introspect', { token: tokens.access_token }, basic)).json()).active;
        assert.equal(await introspected(), true, 'active in the other process before');
        await removeGrant(grantId);
        assert.equal(await introspected(), false, 'inactive in the other process at once');
        const refresh = await post('/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: agent.clientId });
        assert.equal(refresh.status, 400);
        assert.equal((await refresh.json()).error, 'invalid_grant');
      } finally {
        await second.stop();
      }
    });

    it("removing the person from the group that carries the grant ends the agent's consent and tokens", async () => {
      const { userId, loginName } = await person();
      const group = await svc.api('POST', `/management/v1/orgs/${project.orgId}/groups`, { token: svc.adminToken, body: { displayName: unique('g') } });
      assert.equal(group.status, 201, group.text);
      const groups = `/management/v1/orgs/${project.orgId}/groups/${group.body.id}/members/${userId}`;
      assert.ok((await svc.api('PUT', groups, { token: svc.adminToken })).status < 300);
      const grant = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/grants`, {
        token: svc.adminToken,
        body: { groupId: group.body.id, roles: [] },
      });
      assert.equal(grant.status, 201, grant.text);
      const { tokens } = await connect(loginName);
      const removed = await svc.api('DELETE', groups, { token: svc.adminToken });
      assert.ok(removed.status < 300, removed.text);
      await assertEnded(userId, loginName, tokens);
    });
  });
});
