import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { countRows, useService } from '../support/fixtures.js';
import { launchBrowser, newPage, submitLogin } from './support/browser.js';
import { DEVICE_GRANT, DeviceUser, csrfOf, deviceApp } from './support/device-user.js';
import { issueToken, organization, register, registered, setMode } from './support/dynamic-registration.js';
import type { Organization, Registered } from './support/dynamic-registration.js';
import { PASSWORD, createHuman, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';

/** What a headless MCP client (mcp-remote's device mode) registers: public, the device grant and refresh tokens. */
const deviceClient = { client_name: 'Headless agent', token_endpoint_auth_method: 'none', grant_types: [DEVICE_GRANT, 'refresh_token'], response_types: [] };

/**
 * docs/agents.md, "Device authorization for agents": an MCP client without a browser of its own registers itself
 * (RFC 7591), asks for a device code for the MCP server's resource (RFC 8628 §3.1, RFC 8707) with the server's scopes
 * and no `openid`, the person approves in Chromium with the agent consent, and the polling client gets a token whose
 * audience is the resource.
 */
describe('device authorization for a resource, and for agents that registered themselves', () => {
  const svc = useService({ DEVICE_POLL_INTERVAL_SECONDS: '1' });
  let browser: Browser;
  let org: Organization;
  let userId: string;
  let loginName: string;

  before(async () => {
    browser = await launchBrowser();
    org = await organization(svc);
    const policy = await svc.api('PUT', `/management/v1/orgs/${org.project.orgId}/login-policy`, {
      token: svc.adminToken,
      body: { mfa: 'off', passkeys: true, allowRegistration: true, dynamicRegistration: 'initialAccessToken' },
    });
    assert.equal(policy.status, 200, policy.text);
    const user = await createHuman(svc, org.project.orgId);
    userId = user.userId;
    loginName = `${user.userName}@${org.project.primaryDomain}`;
  });
  after(async () => {
    await browser?.close();
  });

  const deviceAuthorization = (clientId: string, form: Record<string, string>) =>
    postForm(svc, '/oauth/v2/device_authorization', { client_id: clientId, ...form });
  const introspect = async (token: string) => {
    const res = await postForm(svc, '/oauth/v2/introspect', { token }, { id: org.resource.clientId, secret: org.resource.clientSecret! });
    assert.equal(res.status, 200, res.text);
    return res.body as Record<string, unknown>;
  };

  /** Polls as the device does (RFC 8628 §3.4) until it is answered with anything but authorization_pending. */
  async function pollUntilAnswered(clientId: string, deviceCode: string) {
    for (let i = 0; i < 60; i++) {
      const res = await postForm(svc, '/oauth/v2/token', { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });
      if (res.body?.error !== 'authorization_pending' && res.body?.error !== 'slow_down') return res;
      await new Promise((r) => setTimeout(r, 1100));
    }
    assert.fail('the device code was never answered');
  }

  it("an application's device authorization names a resource and no openid: a device code", async () => {
    const app: OidcApp = await deviceApp(svc, org.project);
    const res = await deviceAuthorization(app.clientId, { scope: 'files:read', resource: org.resourceUri });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.device_code && res.body.user_code, res.text);
    const none = await deviceAuthorization(app.clientId, { scope: 'files:read' });
    assert.equal(none.status, 400, none.text);
    assert.equal(none.body.error, 'invalid_scope', 'without a resource, openid is required as at the authorization endpoint');
  });

  it('a registered agent may register for the device grant; its device authorization without a resource is invalid_target', async () => {
    const client = await registered(svc, deviceClient, await issueToken(svc, org.project.orgId));
    assert.deepEqual((client as Registered & { grant_types?: string[] }).grant_types, [DEVICE_GRANT, 'refresh_token']);
    for (const scope of ['files:read', 'openid files:read']) {
      const res = await deviceAuthorization(client.client_id, { scope });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_target', res.text);
    }
    assert.equal(await countRows(svc, `oidc_payloads WHERE client_id = '${client.client_id}' AND model = 'DeviceCode'`), 0, 'no device code stored');
  });

  it('a confidential registration may not take the device grant', async () => {
    const res = await register(
      svc,
      { ...deviceClient, token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [] } },
      await issueToken(svc, org.project.orgId),
    );
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error, 'invalid_client_metadata', res.text);
    assert.match(res.body.error_description, /only for public clients/);
  });

  it('Chromium: the person confirms, signs in, allows the agent; the token is for the resource, and revoking the agent ends it', async () => {
    const client = await registered(svc, deviceClient, await issueToken(svc, org.project.orgId));
    const started = await deviceAuthorization(client.client_id, { scope: 'files:read offline_access', resource: org.resourceUri });
    assert.equal(started.status, 200, started.text);
    const polling = pollUntilAnswered(client.client_id, started.body.device_code);
    const { context, page } = await newPage(browser);
    try {
      await page.goto(started.body.verification_uri_complete);
      await page.click('[data-device-confirm]');
      await page.waitForSelector('input[name="loginName"]');
      await submitLogin(page, loginName, PASSWORD);
      await page.waitForSelector('[data-consent-allow]');
      const consent = (await page.textContent('main')) ?? '';
      assert.match(consent, /unverified registration/);
      assert.match(consent, /Headless agent/);
      assert.match(consent, /Read your files/);
      assert.match(consent, /Answer sent to\s*the device that showed you the code/, 'the answer goes to the device, not to a redirect URI');
      await page.click('[data-consent-allow]');
      await page.waitForSelector('[data-device-success]');
    } finally {
      await context.close();
    }
    const tokens = await polling;
    assert.equal(tokens.status, 200, tokens.text);
    assert.equal(tokens.body.id_token, undefined, 'no openid, no ID token');
    assert.ok(tokens.body.refresh_token, 'offline_access yields a refresh token');
    const active = await introspect(tokens.body.access_token);
    assert.equal(active.active, true);
    assert.deepEqual([active.aud].flat(), [org.resourceUri], 'RFC 8707 §2: the resource is the audience');
    assert.equal(active.sub, userId);

    const revoked = await svc.api('DELETE', `/management/v1/orgs/${org.project.orgId}/users/${userId}/agents/${encodeURIComponent(client.client_id)}`, {
      token: svc.adminToken,
    });
    assert.equal(revoked.status, 204, revoked.text);
    assert.equal((await introspect(tokens.body.access_token)).active, false, 'the access token died with the revocation');
    const refreshed = await postForm(svc, '/oauth/v2/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
      client_id: client.client_id,
    });
    assert.equal(refreshed.status, 400, refreshed.text);
    assert.equal(refreshed.body.error, 'invalid_grant');
  });

  it("the resource's API application with access granted refuses a person without a grant at the device's consent", async () => {
    const guarded = await organization(svc);
    const api = guarded.resource as OidcApp & { appId: string };
    const path = `/management/v1/orgs/${guarded.project.orgId}/projects/${guarded.project.projectId}/apps/${api.appId}`;
    const granted = await svc.api('PATCH', path, { token: svc.adminToken, body: { access: 'granted' } });
    assert.equal(granted.status, 200, granted.text);
    await setMode(svc, guarded.project.orgId, 'initialAccessToken');
    const client = await registered(svc, deviceClient, await issueToken(svc, guarded.project.orgId));
    const started = await deviceAuthorization(client.client_id, { scope: 'files:read', resource: guarded.resourceUri });
    assert.equal(started.status, 200, started.text);
    const last = await DeviceUser.of(svc).approve(started.body.user_code, guarded.loginName);
    assert.equal(last.status, 403, last.text.slice(0, 300));
    // Refused before any consent is asked, as every client is (docs/application-access.md): the page names the resource's application.
    assert.match(last.text, /You have no access to [^.]+\. Ask your administrator/);
    assert.doesNotMatch(last.text, /data-consent-allow/);
    const answer = await pollUntilAnswered(client.client_id, started.body.device_code);
    assert.equal(answer.body.error, 'access_denied', answer.text);
    assert.equal(await countRows(svc, `agent_consents WHERE client_id = '${client.client_id}'`), 0, 'no consent remembered');
  });

  it('an open registration is bound to the organization of the resource whose device code a person approved', async () => {
    const open = await organization(svc);
    await setMode(svc, open.project.orgId, 'open');
    const client = await registered(svc, deviceClient);
    const started = await deviceAuthorization(client.client_id, { scope: 'files:read', resource: open.resourceUri });
    assert.equal(started.status, 200, started.text);
    assert.equal(await boundTo(client.client_id), null, 'a device code alone binds nothing');
    const person = DeviceUser.of(svc);
    const consent = await person.approve(started.body.user_code, open.loginName);
    assert.match(consent.text, /data-consent-allow/, consent.text.slice(0, 300));
    const uid = /\/ui\/login\/([^/"?]+)\/consent/.exec(consent.text)?.[1];
    assert.ok(uid, 'the consent form posts to its interaction');
    const allowed = await person.browser.post(`/ui/login/${uid}/consent`, { csrf: csrfOf(consent.text) });
    assert.match((await person.browser.follow(allowed)).text, /data-device-success/);
    const tokens = await pollUntilAnswered(client.client_id, started.body.device_code);
    assert.equal(tokens.status, 200, tokens.text);
    assert.equal(await boundTo(client.client_id), open.project.orgId);
  });

  const boundTo = async (clientId: string): Promise<string | null> => {
    const [row] = await svc.dataSource.query('SELECT org_id FROM dynamic_clients WHERE client_id = ?', [clientId]);
    return row.org_id ?? null;
  };
});
