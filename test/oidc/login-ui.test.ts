import assert from 'node:assert/strict';
import { openRegistration } from '../support/registration.js';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { UserLifecycleService } from '../../src/users/user-lifecycle.service.js';
import { searchEvents, useService } from '../support/fixtures.js';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitForm, submitLogin } from './support/browser.js';
import type { RelyingParty } from './support/browser.js';
import { PASSWORD, createHuman, createOidcApp, createProject, discover } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';

describe('login UI, prompts, implicit flow, response modes and end-session (Chromium)', () => {
  const svc = useService();
  let browser: Browser;
  let rp: RelyingParty;
  let REDIRECT: string;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  let implicitApp: OidcApp;
  let config: oidc.Configuration;

  before(async () => {
    await openRegistration(svc);
    browser = await launchBrowser();
    rp = await startRelyingParty();
    REDIRECT = `${rp.url}/cb`;
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, rp.url);
    implicitApp = await createOidcApp(svc, project, { authMethod: 'none', responseTypes: ['id_token', 'id_token token'], grantTypes: ['implicit'] }, rp.url);
    config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
  });
  after(async () => {
    await browser?.close();
    await rp?.close();
  });

  async function newUser() {
    const user = await createHuman(svc, project.orgId);
    return { ...user, loginName: `${user.userName}@${project.primaryDomain}` };
  }

  function authUrl(params: Record<string, string> = {}, client: OidcApp = app): URL {
    const url = new URL('/oauth/v2/authorize', svc.config.publicUrl);
    url.search = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid',
      state: oidc.randomState(),
      ...params,
    }).toString();
    return url;
  }

  async function redeem(cb: { url: URL }, state: string, nonce?: string) {
    return oidc.authorizationCodeGrant(config, cb.url, { expectedState: state, ...(nonce ? { expectedNonce: nonce } : {}), idTokenExpected: true });
  }

  it('implicit id_token (openid-client) and id_token token with a valid at_hash; nonce is required', async () => {
    const user = await newUser();
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      const implicit = await discover(svc, implicitApp.clientId, oidc.None());
      oidc.useIdTokenResponseType(implicit);
      const nonce = oidc.randomNonce();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(implicit, { redirect_uri: REDIRECT, scope: 'openid profile', nonce, state });
      const cb = await authorize(rp, ui.page, url, (page) => submitLogin(page, user.loginName, PASSWORD));
      assert.equal(cb.url.search, '', 'nothing in the query for the fragment response mode');
      const claims = await oidc.implicitAuthentication(implicit, cb.url, nonce, { expectedState: state });
      assert.equal(claims.sub, user.userId);
      assert.equal(claims.preferred_username, user.loginName, 'without an access token the id_token carries the profile claims');
      // OpenID Connect Core §3.2.2.5, the successful implicit response, for both types.
      const fragment = new URLSearchParams(cb.url.hash.slice(1));
      assert.equal(fragment.get('token_type'), 'Bearer');
      assert.ok(Number(fragment.get('expires_in')) > 0, `expires_in: ${fragment.get('expires_in')}`);
      assert.deepEqual(fragment.get('scope')?.split(' ').sort(), ['openid', 'profile']);
      assert.equal(fragment.get('access_token'), null);

      const second = await authorize(rp, ui.page, authUrl({ response_type: 'id_token token', nonce: 'n-2', scope: 'openid profile' }, implicitApp));
      const params = callbackParams(second);
      assert.equal(params.get('token_type'), 'Bearer');
      assert.ok(Number(params.get('expires_in')) > 0);
      assert.deepEqual(params.get('scope')?.split(' ').sort(), ['openid', 'profile']);
      const accessToken = params.get('access_token')!;
      const jwks = createRemoteJWKSet(new URL('/oauth/v2/keys', svc.config.publicUrl));
      const { payload } = await jwtVerify(params.get('id_token')!, jwks, { issuer: svc.config.publicUrl, audience: implicitApp.clientId });
      assert.equal(payload.nonce, 'n-2');
      const digest = createHash('sha256').update(accessToken).digest();
      assert.equal(payload.at_hash, digest.subarray(0, digest.length / 2).toString('base64url'));
      assert.equal(payload.preferred_username, undefined, 'with an access token, profile claims come from userinfo');

      const noNonce = await authorize(rp, ui.page, authUrl({ response_type: 'id_token' }, implicitApp));
      assert.equal(callbackParams(noNonce).get('error'), 'invalid_request');
    } finally {
      await ui.context.close();
    }
  });

  it('form_post delivers the code by a posted form; an invalid response_mode falls back to query', async () => {
    const user = await newUser();
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      const state = oidc.randomState();
      const cb = await authorize(rp, ui.page, authUrl({ response_mode: 'form_post', state }), (page) => submitLogin(page, user.loginName, PASSWORD));
      assert.equal(cb.method, 'POST');
      assert.equal(cb.form!.get('state'), state);
      assert.ok(cb.form!.get('code'));
      const fallback = await authorize(rp, ui.page, authUrl({ response_mode: 'bogus', state: 's-2' }));
      assert.equal(fallback.method, 'GET');
      assert.equal(fallback.url.searchParams.get('state'), 's-2');
      assert.ok(fallback.url.searchParams.get('code'));
    } finally {
      await ui.context.close();
    }
  });

  it('prompt=none: login_required without a session, silent with one (also with id_token_hint); prompt=login re-authenticates', async () => {
    const user = await newUser();
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      const none = await authorize(rp, ui.page, authUrl({ prompt: 'none', state: 'p0' }));
      assert.equal(callbackParams(none).get('error'), 'login_required');
      assert.equal(callbackParams(none).get('state'), 'p0');

      const first = await authorize(rp, ui.page, authUrl({ state: 'p1', nonce: 'n1' }), (page) => submitLogin(page, user.loginName, PASSWORD));
      const tokens = await redeem(first, 'p1', 'n1');
      const authTime = tokens.claims()!.auth_time!;

      const silent = await authorize(rp, ui.page, authUrl({ prompt: 'none', state: 'p2', id_token_hint: tokens.id_token!, extra: 'foobar' }));
      const silentTokens = await redeem(silent, 'p2');
      assert.equal(silentTokens.claims()!.sub, user.userId);
      assert.equal(silentTokens.claims()!.auth_time, authTime);

      await sleep(1100);
      const again = await authorize(rp, ui.page, authUrl({ prompt: 'login', state: 'p3' }), async (page) => {
        assert.ok(await page.isVisible('input[name="password"]'), 'prompt=login shows the password form again');
        await submitLogin(page, user.loginName, PASSWORD);
      });
      assert.ok((await redeem(again, 'p3')).claims()!.auth_time! > authTime);
    } finally {
      await ui.context.close();
    }
  });

  it('max_age: a short one forces a new login, a long one does not; auth_time is present', async () => {
    const user = await newUser();
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      const first = await authorize(rp, ui.page, authUrl({ state: 'm1' }), (page) => submitLogin(page, user.loginName, PASSWORD));
      const authTime = (await redeem(first, 'm1')).claims()!.auth_time!;
      const long = await authorize(rp, ui.page, authUrl({ state: 'm2', max_age: '10000' }));
      assert.equal((await redeem(long, 'm2')).claims()!.auth_time, authTime);
      await sleep(2100);
      let asked = false;
      const short = await authorize(rp, ui.page, authUrl({ state: 'm3', max_age: '1' }), async (page) => {
        asked = await page.isVisible('input[name="password"]');
        await submitLogin(page, user.loginName, PASSWORD);
      });
      assert.ok(asked);
      assert.ok((await redeem(short, 'm3')).claims()!.auth_time! > authTime);
    } finally {
      await ui.context.close();
    }
  });

  it('prompt=select_account offers the signed-in accounts as buttons carrying data-login-name', async () => {
    const alice = await newUser();
    const bob = await newUser();
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      await authorize(rp, ui.page, authUrl(), (page) => submitLogin(page, alice.loginName, PASSWORD));
      await authorize(rp, ui.page, authUrl({ prompt: 'login' }), (page) => submitLogin(page, bob.loginName, PASSWORD));
      const chosen = await authorize(rp, ui.page, authUrl({ prompt: 'select_account', state: 's1' }), async (page) => {
        await page.waitForSelector('[data-login-name]');
        const names = await page.$$eval('[data-login-name]', (els) => els.map((e) => e.getAttribute('data-login-name')));
        assert.deepEqual(new Set(names), new Set([alice.loginName, bob.loginName]));
        await page.click(`[data-login-name="${alice.loginName}"]`);
        // Bob's sign-in replaced Alice's session: picking her asks for her password, name filled in.
        await page.waitForSelector('input[name="password"]');
        assert.equal(await page.inputValue('input[name="loginName"]'), alice.loginName);
        await submitLogin(page, undefined, PASSWORD);
      });
      assert.equal((await redeem(chosen, 's1')).claims()!.sub, alice.userId);
    } finally {
      await ui.context.close();
    }
  });

  it('prompt=create shows the registration form; the new user is signed in', async () => {
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      const userName = `reg-${Date.now()}`;
      const cb = await authorize(rp, ui.page, authUrl({ prompt: 'create', state: 'c1' }), async (page) => {
        await page.fill('input[name="firstName"]', 'Grace');
        await page.fill('input[name="lastName"]', 'Hopper');
        await page.fill('input[name="email"]', `${userName}@example.com`);
        await page.fill('input[name="userName"]', userName);
        await page.fill('input[name="password"]', PASSWORD);
        await submitForm(page, 'register');
      });
      const tokens = await redeem(cb, 'c1');
      const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
      assert.equal(info.sub, tokens.claims()!.sub);
      const added = await searchEvents(svc, { event_types: ['user.human.added'], aggregate_id: tokens.claims()!.sub });
      assert.equal(added.length, 1);
    } finally {
      await ui.context.close();
    }
  });

  it('ui_locales=de renders German; login_hint fills the login name', async () => {
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      const seenDe = seen;
      void seenDe;
      await ui.page.goto(String(authUrl({ ui_locales: 'de', login_hint: 'someone@example.com' })));
      assert.equal(await ui.page.getAttribute('html', 'lang'), 'de');
      assert.match((await ui.page.textContent('body')) ?? '', /Passwort/);
      assert.equal(await ui.page.inputValue('input[name="loginName"]'), 'someone@example.com');
    } finally {
      await ui.context.close();
    }
  });

  it('an unregistered redirect_uri shows an error page and never redirects', async () => {
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      const url = authUrl({ redirect_uri: 'http://127.0.0.1:65530/evil' });
      const response = await ui.page.goto(String(url));
      assert.equal(response!.status(), 400);
      assert.equal(rp.callbacks.length, seen);
      assert.match((await ui.page.textContent('body')) ?? '', /invalid_redirect_uri/);
    } finally {
      await ui.context.close();
    }
  });

  it('end-session: a registered post_logout_redirect_uri receives the state; the session and its tokens end', async () => {
    const user = await newUser();
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      const cb = await authorize(rp, ui.page, authUrl({ state: 'e1' }), (page) => submitLogin(page, user.loginName, PASSWORD));
      const tokens = await redeem(cb, 'e1');
      const logout = oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: `${rp.url}/logged-out`, state: 'bye' });
      const back = await authorize(rp, ui.page, logout, (page) => page.click('button[name="logout"]'));
      assert.equal(back.url.origin + back.url.pathname, `${rp.url}/logged-out`);
      assert.equal(back.url.searchParams.get('state'), 'bye');
      const none = await authorize(rp, ui.page, authUrl({ prompt: 'none' }));
      assert.equal(callbackParams(none).get('error'), 'login_required');
      const info = await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal(info.status, 401);
      const ended = await searchEvents(svc, { event_types: ['session.terminated'], aggregate_id: user.userId });
      assert.equal(ended.length, 1);
    } finally {
      await ui.context.close();
    }
  });

  it('end-session with an unregistered post_logout_redirect_uri shows an error and does not redirect', async () => {
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      const url = new URL('/oidc/v1/end_session', svc.config.publicUrl);
      url.search = new URLSearchParams({ client_id: app.clientId, post_logout_redirect_uri: 'http://127.0.0.1:65530/elsewhere' }).toString();
      const response = await ui.page.goto(String(url));
      assert.equal(response!.status(), 400);
      assert.equal(rp.callbacks.length, seen);
    } finally {
      await ui.context.close();
    }
  });

  it('ten wrong passwords lock the user; the right one is then refused with the same message as a wrong one', async () => {
    const user = await newUser();
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      await ui.page.goto(String(authUrl()));
      for (let i = 0; i < 10; i++) await submitLogin(ui.page, user.loginName, 'wrong-password');
      await submitLogin(ui.page, user.loginName, PASSWORD);
      // Nothing tells a locked user from a wrong password or an unknown name (SECURITY.md).
      assert.match((await ui.page.textContent('[role="alert"]')) ?? '', /login name or password is wrong/);
      assert.equal(rp.callbacks.length, seen);
      const locked = await searchEvents(svc, { event_types: ['user.locked'], aggregate_id: user.userId });
      assert.equal(locked.length, 1);
      const failed = await searchEvents(svc, { event_types: ['user.human.password.check.failed'], aggregate_id: user.userId });
      assert.equal(failed.length, 10);
    } finally {
      await ui.context.close();
    }
  });

  it('a deactivated user: tokens inactive, userinfo 401, login refused', async () => {
    const user = await newUser();
    const ui = await newPage(browser);
    const seen = rp.callbacks.length;
    try {
      const cb = await authorize(rp, ui.page, authUrl({ state: 'd1', scope: 'openid offline_access' }), (page) => submitLogin(page, user.loginName, PASSWORD));
      const tokens = await redeem(cb, 'd1');
      await svc.app.get(UserLifecycleService).deactivate(null, project.orgId, user.userId);
      const info = await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal(info.status, 401);
      const introspected = await fetch(new URL('/oauth/v2/introspect', svc.config.publicUrl), {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token: tokens.access_token }),
      });
      assert.deepEqual(await introspected.json(), { active: false });
      await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!));
      const fresh = await newPage(browser);
      const seenBefore = rp.callbacks.length;
      try {
        await fresh.page.goto(String(authUrl()));
        await submitLogin(fresh.page, user.loginName, PASSWORD);
        assert.ok(await fresh.page.isVisible('[role="alert"]'));
        assert.equal(rp.callbacks.length, seenBefore);
      } finally {
        await fresh.context.close();
      }
      // The browser that still holds the deactivated user's session: no session any more, so prompt=none
      // answers login_required and another user can sign in in it.
      const silent = await authorize(rp, ui.page, authUrl({ prompt: 'none', state: 'd2' }));
      assert.equal(callbackParams(silent).get('error'), 'login_required');
      const other = await newUser();
      const switched = await authorize(rp, ui.page, authUrl({ state: 'd3' }), async (page) => {
        // The remembered accounts are offered first; "another account" leads to the login form.
        await page.click('a[href$="form=login"]');
        await submitLogin(page, other.loginName, PASSWORD);
      });
      assert.equal((await redeem(switched, 'd3')).claims()!.sub, other.userId);
    } finally {
      await ui.context.close();
    }
  });
});
