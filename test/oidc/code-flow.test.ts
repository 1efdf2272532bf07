import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { searchEvents, useService } from '../support/fixtures.js';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitLogin } from './support/browser.js';
import type { RelyingParty } from './support/browser.js';
import { PASSWORD, createApiApp, createAppKey, createHuman, createOidcApp, createProject, discover, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';

describe('authorization code flow through the login UI (openid-client + Chromium)', () => {
  const svc = useService();
  let browser: Browser;
  let rp: RelyingParty;
  let REDIRECT: string;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let user: { userId: string; userName: string };
  let loginName: string;

  before(async () => {
    browser = await launchBrowser();
    rp = await startRelyingParty();
    REDIRECT = `${rp.url}/cb`;
    project = await createProject(svc);
    user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
  });
  after(async () => {
    await browser?.close();
    await rp?.close();
  });

  /** Runs the code flow in a fresh browser and returns the token response. */
  /** The user.token.revoked events of a user caused through one client. */
  async function revocationsOf(userId: string, clientId: string): Promise<{ payload: Record<string, string> }[]> {
    const events = (await searchEvents(svc, { event_types: ['user.token.revoked'], aggregate_id: userId, asc: true })) as unknown as {
      payload: Record<string, string>;
    }[];
    return events.filter((e) => e.payload.clientId === clientId);
  }

  async function codeFlow(config: oidc.Configuration, scope = 'openid profile email', pkce = true) {
    const ui = await newPage(browser);
    try {
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope,
        state,
        nonce,
        ...(pkce ? { code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' } : {}),
      });
      const cb = await authorize(rp, ui.page, url, (page) => submitLogin(page, loginName, PASSWORD));
      const tokens = await oidc.authorizationCodeGrant(config, cb.url, {
        pkceCodeVerifier: pkce ? verifier : undefined,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      });
      return { tokens, cb };
    } finally {
      await ui.context.close();
    }
  }

  it('code + PKCE for a public client: id_token, userinfo and introspection for the project', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'none' }, rp.url);
    const api = await createApiApp(svc, project);
    const config = await discover(svc, app.clientId, oidc.None());
    const { tokens } = await codeFlow(config);
    const claims = tokens.claims()!;
    assert.equal(claims.sub, user.userId);
    assert.equal(claims.iss, svc.config.publicUrl);
    assert.ok([claims.aud].flat().includes(app.clientId));
    assert.equal(tokens.refresh_token, undefined, 'no refresh token without offline_access');
    // With an access token (docs/product-rules.md), profile and email claims come from userinfo, not the id_token.
    assert.equal(claims.email, undefined);
    const info = await oidc.fetchUserInfo(config, tokens.access_token, user.userId);
    assert.equal(info.preferred_username, loginName);
    assert.equal(info.given_name, 'Ada');
    assert.equal(info.email_verified, true);

    const introspected = await postForm(svc, '/oauth/v2/introspect', { token: tokens.access_token }, { id: api.clientId, secret: api.clientSecret! });
    assert.equal(introspected.body.active, true, introspected.text);
    assert.equal(introspected.body.username, loginName);
    assert.equal(introspected.body.sub, user.userId);
    assert.ok(introspected.body.aud.includes(project.projectId) && introspected.body.aud.includes(app.clientId));
    const checks = await searchEvents(svc, { event_types: ['user.human.password.check.succeeded'], aggregate_id: user.userId });
    assert.ok(checks.length >= 1);
  });

  it('idTokenUserinfoAssertion puts the profile and email claims into the id_token', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', idTokenUserinfoAssertion: true }, rp.url);
    const config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const { tokens } = await codeFlow(config, 'openid profile email', false);
    const claims = tokens.claims()!;
    assert.equal(claims.preferred_username, loginName);
    assert.equal(claims.email_verified, true);
  });

  it('refuses a public client without PKCE', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'none' }, rp.url);
    const url = new URL('/oauth/v2/authorize', svc.config.publicUrl);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 's1' }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    const location = new URL(res.headers.get('location')!);
    assert.equal(location.searchParams.get('error'), 'invalid_request');
    assert.equal(location.searchParams.get('state'), 's1');
  });

  for (const method of ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const) {
    it(`code flow with ${method}, and each client only by its registered method`, async () => {
      const app = await createOidcApp(svc, project, { authMethod: method }, rp.url);
      const auth = await clientAuth(app, method);
      const config = await discover(svc, app.clientId, auth);
      const { tokens } = await codeFlow(config, 'openid', false);
      assert.equal(tokens.claims()!.sub, user.userId);
      // Another method than the registered one is refused.
      const wrong = method === 'client_secret_basic' ? oidc.ClientSecretPost(app.clientSecret) : oidc.ClientSecretBasic(app.clientSecret ?? 'x');
      const wrongConfig = await discover(svc, app.clientId, wrong);
      await assert.rejects(codeFlow(wrongConfig, 'openid', false), isInvalidClient);
    });
  }

  async function clientAuth(app: OidcApp, method: string): Promise<oidc.ClientAuth> {
    if (method === 'client_secret_basic') return oidc.ClientSecretBasic(app.clientSecret!);
    if (method === 'client_secret_post') return oidc.ClientSecretPost(app.clientSecret!);
    const key = await createAppKey(svc, app);
    const { createPrivateKey } = await import('node:crypto');
    const cryptoKey = await crypto.subtle.importKey(
      'pkcs8',
      createPrivateKey(key.key).export({ format: 'der', type: 'pkcs8' }),
      { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    return oidc.PrivateKeyJwt({ key: cryptoKey, kid: key.keyId });
  }

  it('refresh tokens: only with offline_access, rotated on use, reuse revokes the grant, narrower scope allowed', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, rp.url);
    const config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const { tokens } = await codeFlow(config, 'openid profile offline_access', false);
    assert.ok(tokens.refresh_token);
    const first = await oidc.refreshTokenGrant(config, tokens.refresh_token!, { scope: 'openid' });
    assert.ok(first.refresh_token && first.refresh_token !== tokens.refresh_token, 'rotated');
    assert.equal(first.scope, 'openid');
    assert.ok(first.id_token);
    await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!), (e: { error?: string }) => e.error === 'invalid_grant');
    // Reuse revoked the whole grant: the newest refresh token and its access token are dead too.
    await assert.rejects(oidc.refreshTokenGrant(config, first.refresh_token!), (e: { error?: string }) => e.error === 'invalid_grant');
    const info = await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${first.access_token}` } });
    assert.equal(info.status, 401);
    const revoked = await revocationsOf(tokens.claims()!.sub, app.clientId);
    assert.deepEqual(
      revoked.map((e) => e.payload.reason),
      ['token'],
      'the grant revocation is recorded once, with its cause',
    );
    assert.ok(revoked[0].payload.grantId);
  });

  it('revoking a refresh token revokes its grant and its access tokens; both removals are recorded', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, rp.url);
    const config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const { tokens } = await codeFlow(config, 'openid offline_access', false);
    const res = await postForm(svc, '/oauth/v2/revoke', { token: tokens.refresh_token! }, { id: app.clientId, secret: app.clientSecret! });
    assert.equal(res.status, 200, res.text);
    const info = await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(info.status, 401);
    const revoked = await revocationsOf(tokens.claims()!.sub, app.clientId);
    assert.deepEqual(revoked.map((e) => e.payload.tokenKind ?? 'grant').sort(), ['RefreshToken', 'grant']);
    assert.ok(revoked.every((e) => e.payload.reason === 'revocation'));
    const rows: { n: number | string }[] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM oidc_payloads WHERE grant_id = ?', [
      revoked.find((e) => e.payload.grantId)!.payload.grantId,
    ]);
    assert.equal(Number(rows[0].n), 0, 'no row of the grant is left');
  });

  it('code reuse fails with invalid_grant and revokes the first access token (RFC 6749 §4.1.2)', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, rp.url);
    const config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const { tokens, cb } = await codeFlow(config, 'openid', false);
    const code = callbackParams(cb).get('code')!;
    const again = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
    const info = await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(info.status, 401);
  });
});

/** openid-client reports a 401 with WWW-Authenticate as a challenge error, a 400/401 body as a response error. */
function isInvalidClient(e: { error?: string; status?: number; cause?: unknown }): boolean {
  return e.error === 'invalid_client' || (e.status === 401 && JSON.stringify(e.cause ?? '').includes('invalid_client'));
}
