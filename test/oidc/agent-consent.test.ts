import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { csrfOf, LoginClient } from '../attack/support/login-client.js';
import { createHuman, createOidcApp, createProject } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { unique, useService } from '../support/fixtures.js';
import { agentTokenRequest, registerAgent } from './support/agent-clients.js';
import type { AgentClient } from './support/agent-clients.js';
import { authorize, REDIRECT, redeem } from './support/agent-consent-flow.js';

const SCOPES = [
  { name: 'files:read', description: 'Read your files' },
  { name: 'files:write', description: 'Change your files' },
];

type Project = { orgId: string; projectId: string; primaryDomain: string };

/** docs/agents.md, "Consent and connected agents": agent clients ask each person, once per scope set. */
describe('consent of agent clients', () => {
  const svc = useService();
  let project: Project;
  let resourceUri: string;
  let resourceName: string;
  let agent: AgentClient;
  let firstParty: OidcApp;
  let loginName: string;

  before(async () => {
    project = await createProject(svc);
    resourceUri = `https://${unique('mcp')}.example/mcp`;
    resourceName = unique('Files MCP');
    const api = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/api`, {
      token: svc.adminToken,
      body: { name: resourceName, authMethod: 'client_secret_basic', resourceUri, scopes: SCOPES },
    });
    assert.equal(api.status, 201, api.text);
    agent = await registerAgent(svc, project.orgId, REDIRECT);
    firstParty = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
  });

  it("an administrator's client asks no consent", async () => {
    const auth = await authorize(new LoginClient(svc.url), firstParty, loginName, 'openid files:read', resourceUri, 'deny');
    assert.equal(auth.consent, undefined);
    assert.ok(auth.callback.searchParams.get('code'));
  });

  it('shows who asks, where the answer goes, the resource and each scope; deny answers access_denied', async () => {
    const auth = await authorize(new LoginClient(svc.url), agent, loginName, 'openid files:read', resourceUri, 'deny');
    assert.ok(auth.consent, 'a consent page');
    assert.match(auth.consent, /data-consent-unverified/, 'a dynamic registration is unverified');
    assert.match(auth.consent, /127\.0\.0\.1:65530 \(<strong data-consent-loopback>an app on this computer/);
    assert.ok(auth.consent.includes(resourceName), 'the resource is named');
    assert.match(auth.consent, /data-consent-scope="files:read">Read your files/);
    assert.doesNotMatch(auth.consent, /files:write/);
    assert.equal(auth.callback.searchParams.get('error'), 'access_denied');
    assert.equal(auth.callback.searchParams.get('code'), null);
    const [{ n }] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM agent_consents WHERE client_id = ?', [agent.clientId]);
    assert.equal(Number(n), 0, 'nothing remembered');
  });

  it('allow issues the code; the same or fewer scopes ask nothing, more scopes ask again', async () => {
    const browser = new LoginClient(svc.url);
    const first = await authorize(browser, agent, loginName, 'openid offline_access files:read', resourceUri, 'allow');
    assert.ok(first.consent);
    const tokens = await redeem(svc, agent, first);
    assert.deepEqual(String(tokens.scope).split(' ').sort(), ['files:read', 'offline_access', 'openid']);

    const same = await authorize(new LoginClient(svc.url), agent, loginName, 'openid files:read', resourceUri, 'deny');
    assert.equal(same.consent, undefined, 'fewer scopes, in a new browser: not asked again');
    assert.ok(same.callback.searchParams.get('code'));
    const silent = await authorize(browser, agent, loginName, 'openid offline_access files:read', resourceUri, 'deny', 'none');
    assert.ok(silent.callback.searchParams.get('code'), 'prompt=none works once allowed');

    const more = await authorize(browser, agent, loginName, 'openid files:read files:write', resourceUri, 'allow');
    assert.ok(more.consent, 'one scope more: asked again');
    assert.match(more.consent, /data-consent-scope="files:write">Change your files/);
    assert.deepEqual(
      String((await redeem(svc, agent, more)).scope)
        .split(' ')
        .sort(),
      ['files:read', 'files:write', 'openid'],
    );
    const none = await authorize(new LoginClient(svc.url), agent, loginName, 'openid files:write', resourceUri, 'deny', 'none');
    assert.equal(none.callback.searchParams.get('error'), 'login_required', 'a new browser has no session');
  });

  it('prompt=none without consent answers consent_required', async () => {
    const other = await createHuman(svc, project.orgId);
    const browser = new LoginClient(svc.url);
    const signedIn = await authorize(browser, firstParty, `${other.userName}@${project.primaryDomain}`, 'openid', resourceUri, 'deny');
    assert.ok(signedIn.callback.searchParams.get('code'));
    const silent = await authorize(browser, agent, 'unused', 'openid files:read', resourceUri, 'allow', 'none');
    assert.equal(silent.callback.searchParams.get('error'), 'consent_required');
  });

  it("the resource's API application with access granted refuses people without a grant", async () => {
    const guarded = `https://${unique('mcp')}.example/mcp`;
    const guardedName = unique('guarded');
    const api = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/api`, {
      token: svc.adminToken,
      body: { name: guardedName, authMethod: 'client_secret_basic', resourceUri: guarded, scopes: SCOPES },
    });
    assert.equal(api.status, 201, api.text);
    const granted = await svc.api('PATCH', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/${api.body.appId}`, {
      token: svc.adminToken,
      body: { access: 'granted' },
    });
    assert.equal(granted.status, 200, granted.text);
    assert.equal(granted.body.access, 'granted');
    const browser = new LoginClient(svc.url);
    const auth = await authorize(browser, agent, loginName, 'openid files:read', guarded, 'allow');
    assert.equal(auth.callback.href, 'about:blank', 'no answer reaches the client');
    // Refused before any consent is asked, as every client is (docs/application-access.md): the 403 page names the resource's application.
    assert.ok(auth.consent?.includes(`You have no access to ${guardedName}`), auth.consent);
    assert.doesNotMatch(auth.consent ?? '', /data-consent-allow/);
    const [{ n }] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM agent_consents WHERE resource = ?', [guarded]);
    assert.equal(Number(n), 0);
  });

  it('the account page lists the agent; Revoke ends its consent and its refresh token at once', async () => {
    const person = await createHuman(svc, project.orgId);
    const name = `${person.userName}@${project.primaryDomain}`;
    const browser = new LoginClient(svc.url);
    const auth = await authorize(browser, agent, name, 'openid offline_access files:read', resourceUri, 'allow');
    const tokens = await redeem(svc, agent, auth);
    assert.ok(tokens.refresh_token);

    const page = await browser.get('/ui/account');
    assert.equal(page.status, 200, page.text.slice(0, 300));
    assert.match(page.text, new RegExp(`data-agent="${agent.clientId}"`));
    assert.match(page.text, /data-agent-revoke/);
    assert.ok(page.text.includes(`${resourceUri}: files:read offline_access openid`), 'what it may do');

    const unknown = await browser.post('/ui/account/agents/revoke', { csrf: csrfOf(page.text), clientId: 'no-such-client' });
    assert.equal(unknown.status, 404);
    const revoked = await browser.post('/ui/account/agents/revoke', { csrf: csrfOf(page.text), clientId: agent.clientId });
    assert.equal(revoked.status, 303, revoked.text.slice(0, 300));
    const after = await browser.get('/ui/account');
    assert.doesNotMatch(after.text, new RegExp(`data-agent="${agent.clientId}"`));

    const refresh = await agentTokenRequest(svc, agent, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    assert.equal(refresh.status, 400, refresh.text);
    assert.equal(refresh.body.error, 'invalid_grant');
    const again = await authorize(browser, agent, name, 'openid files:read', resourceUri, 'deny');
    assert.ok(again.consent, 'consent is asked again');
    const [{ n }] = await svc.dataSource.query("SELECT COUNT(*) AS n FROM events WHERE type = 'user.agent.revoked' AND aggregate_id = ?", [person.userId]);
    assert.equal(Number(n), 1);
  });
});
