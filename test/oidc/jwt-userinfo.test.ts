import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeProtectedHeader } from 'jose';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { UserLifecycleService } from '../../src/users/user-lifecycle.service.js';
import { authorize, launchBrowser, newPage, startRelyingParty, submitLogin } from './support/browser.js';
import type { RelyingParty } from './support/browser.js';
import { PASSWORD, createHuman, createOidcApp, createProject, discover, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { useService } from '../support/fixtures.js';

describe('userinfo honours a user\'s JWT access token (docs/product-rules.md, "OpenID Connect and OAuth")', () => {
  const svc = useService();
  let browser: Browser;
  let rp: RelyingParty;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  let config: oidc.Configuration;

  before(async () => {
    browser = await launchBrowser();
    rp = await startRelyingParty();
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType: 'jwt' }, rp.url);
    config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
  });
  after(async () => {
    await browser?.close();
    await rp?.close();
  });

  /** A new user signs in through the login UI; returns the token response and the browser page. */
  async function signIn(scope = 'openid profile email') {
    const created = await createHuman(svc, project.orgId);
    const user = { ...created, loginName: `${created.userName}@${project.primaryDomain}` };
    const ui = await newPage(browser);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: `${rp.url}/cb`, scope, state, nonce });
    const cb = await authorize(rp, ui.page, url, (page) => submitLogin(page, user.loginName, PASSWORD));
    const tokens = await oidc.authorizationCodeGrant(config, cb.url, { expectedState: state, expectedNonce: nonce, idTokenExpected: true });
    assert.equal(decodeProtectedHeader(tokens.access_token).typ, 'at+jwt', 'the application issues JWT access tokens');
    return { user, tokens, ui };
  }

  async function userinfoStatus(token: string): Promise<number> {
    const res = await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    return res.status;
  }

  it('answers with the claims of the granted scopes', async () => {
    const { user, tokens, ui } = await signIn('openid profile email');
    try {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, user.userId);
      assert.equal(info.sub, user.userId);
      assert.equal(info.preferred_username, user.loginName);
      assert.equal(info.given_name, 'Ada');
      assert.equal(info.email_verified, true);
      assert.equal(info.phone_number, undefined);
    } finally {
      await ui.context.close();
    }
    // Only the scopes granted: no email claims without the email scope.
    const narrow = await signIn('openid profile');
    try {
      const info = await oidc.fetchUserInfo(config, narrow.tokens.access_token, narrow.user.userId);
      assert.equal(info.preferred_username, narrow.user.loginName);
      assert.equal(info.email, undefined);
    } finally {
      await narrow.ui.context.close();
    }
  });

  it('refuses a tampered or foreign-signed JWT with 401', async () => {
    const { tokens, ui } = await signIn();
    try {
      const [header, payload, signature] = tokens.access_token.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
      const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${signature}`;
      assert.equal(await userinfoStatus(forged), 401);
      assert.equal(await userinfoStatus(tokens.access_token), 200);
    } finally {
      await ui.context.close();
    }
  });

  it('answers 401 once the token is revoked', async () => {
    const { tokens, ui } = await signIn();
    try {
      assert.equal(await userinfoStatus(tokens.access_token), 200);
      const revoked = await postForm(svc, '/oauth/v2/revoke', { token: tokens.access_token }, { id: app.clientId, secret: app.clientSecret! });
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal(await userinfoStatus(tokens.access_token), 401);
    } finally {
      await ui.context.close();
    }
  });

  it('answers 401 once the user is deactivated', async () => {
    const { user, tokens, ui } = await signIn();
    try {
      assert.equal(await userinfoStatus(tokens.access_token), 200);
      await svc.app.get(UserLifecycleService).deactivate(null, project.orgId, user.userId);
      assert.equal(await userinfoStatus(tokens.access_token), 401);
    } finally {
      await ui.context.close();
    }
  });

  it('answers 401 after logout', async () => {
    const { tokens, ui } = await signIn();
    try {
      assert.equal(await userinfoStatus(tokens.access_token), 200);
      const logout = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: `${rp.url}/logged-out`, state: 'bye' });
      const back = await authorize(rp, ui.page, logout, (page) => page.click('button[name="logout"]'));
      assert.equal(back.url.pathname, '/logged-out');
      assert.equal(await userinfoStatus(tokens.access_token), 401);
    } finally {
      await ui.context.close();
    }
  });
});
