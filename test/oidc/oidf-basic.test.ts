import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SignJWT, decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitLogin } from './support/browser.js';
import type { RelyingParty } from './support/browser.js';
import { PASSWORD, createHuman, createOidcApp, createProject, discover, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { useService } from '../support/fixtures.js';

/**
 * Ports of oidcc-basic-certification-test-plan and oidcc-rp-initiated-logout-certification-test-plan
 * checks (OIDF conformance suite) that other suites here do not already cover; see OIDF-NOTES.md.
 */
describe('OIDF basic and RP-initiated logout plans', () => {
  const svc = useService();
  let browser: Browser;
  let rp: RelyingParty;
  let app: OidcApp;
  let config: oidc.Configuration;
  let ui: { context: BrowserContext; page: Page };
  let loginName: string;

  before(async () => {
    browser = await launchBrowser();
    rp = await startRelyingParty();
    const project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, rp.url);
    config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
    ui = await newPage(browser);
    await authorize(rp, ui.page, authUrl(), (page) => submitLogin(page, loginName, PASSWORD));
  });
  after(async () => {
    await ui?.context.close();
    await browser?.close();
    await rp?.close();
  });

  function authUrl(params: Record<string, string> = {}): URL {
    const url = new URL('/oauth/v2/authorize', svc.config.publicUrl);
    url.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: `${rp.url}/cb`,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      ...params,
    }).toString();
    return url;
  }

  /** A silent authorization in the signed-in browser, redeemed with openid-client. */
  async function signedIn(params: Record<string, string> = {}) {
    const cb = await authorize(rp, ui.page, authUrl(params));
    return oidc.authorizationCodeGrant(config, cb.url, { expectedState: params.state ?? 'st', idTokenExpected: true });
  }

  it('token endpoint: 200 JSON, Cache-Control no-store, Bearer, ≥ 96 bits, expires_in under a year; iss in the response', async () => {
    const cb = await authorize(rp, ui.page, authUrl());
    assert.equal(cb.url.searchParams.get('iss'), svc.config.publicUrl, 'RFC 9207 iss parameter');
    const res = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'authorization_code', code: cb.url.searchParams.get('code')!, redirect_uri: `${rp.url}/cb` },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.match(res.headers.get('cache-control') ?? '', /no-store/);
    assert.equal(res.body.token_type, 'Bearer');
    assert.match(res.body.access_token, /^[A-Za-z0-9\-._~+/]+=*$/);
    assert.ok(res.body.access_token.length * 6 >= 96);
    assert.ok(res.body.expires_in > 0 && res.body.expires_in < 365 * 24 * 3600);
    const idToken = decodeJwt(res.body.id_token);
    assert.ok(idToken.iat! <= Math.floor(Date.now() / 1000) + 5 && idToken.exp! > idToken.iat!);
  });

  it('oidcc-response-type-missing: invalid_request to the redirect URI, error_description without CR/LF/TAB', async () => {
    const url = authUrl();
    url.searchParams.delete('response_type');
    const res = await fetch(url, { redirect: 'manual' });
    const location = new URL(res.headers.get('location')!);
    const params = location.hash ? new URLSearchParams(location.hash.slice(1)) : location.searchParams;
    assert.ok(['invalid_request', 'unsupported_response_type'].includes(params.get('error')!));
    assert.doesNotMatch(params.get('error_description') ?? '', /[\r\n\t]/);
  });

  it('oidcc-userinfo-get / -post-header / -post-body, and the scope-all claims', async () => {
    const tokens = await signedIn({ scope: 'openid profile email phone address' });
    const sub = tokens.claims()!.sub;
    const get = await oidc.fetchUserInfo(config, tokens.access_token, sub);
    assert.equal(get.sub, sub);
    assert.ok(get.preferred_username && get.email);
    const url = new URL('/oidc/v1/userinfo', svc.config.publicUrl);
    const header = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(((await header.json()) as { sub: string }).sub, sub);
    const body = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: tokens.access_token }),
    });
    assert.equal(((await body.json()) as { sub: string }).sub, sub);
  });

  it('succeeds without nonce (code flow), with display, claims_locales, acr_values, unknown parameters and another parameter order', async () => {
    const extras: Record<string, string>[] = [{ display: 'page' }, { display: 'popup' }, { claims_locales: 'de' }, { acr_values: '0' }, { foo: 'bar' }];
    for (const extra of extras) {
      assert.ok((await signedIn(extra)).claims()!.sub);
    }
    const reordered = new URL('/oauth/v2/authorize', svc.config.publicUrl);
    reordered.search = new URLSearchParams({
      state: 'st',
      scope: 'email openid',
      redirect_uri: `${rp.url}/cb`,
      response_type: 'code',
      client_id: app.clientId,
    }).toString();
    const cb = await authorize(rp, ui.page, reordered);
    assert.ok((await oidc.authorizationCodeGrant(config, cb.url, { expectedState: 'st' })).access_token);
  });

  it('an unsigned request object is refused (JAR takes signed ones only, docs/oauth-profiles.md); a request_uri of the client is unsupported', async () => {
    const request = await authorize(rp, ui.page, authUrl({ request: 'eyJhbGciOiJub25lIn0.eyJzdGF0ZSI6InN0In0.' }));
    assert.equal(callbackParams(request).get('error'), 'invalid_request_object');
    const requestUri = await authorize(rp, ui.page, authUrl({ request_uri: 'https://example.com/request' }));
    assert.equal(callbackParams(requestUri).get('error'), 'request_uri_not_supported');
  });

  it('oidcc-refresh-token: bound to its client; a new access token differs', async () => {
    const tokens = await signedIn({ scope: 'openid offline_access' });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    assert.notEqual(refreshed.access_token, tokens.access_token);
    const project = await createProject(svc);
    const other = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, rp.url);
    const res = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token! },
      { id: other.clientId, secret: other.clientSecret! },
    );
    assert.equal(res.body.error, 'invalid_grant');
  });

  describe('RP-initiated logout: the OP must not redirect to an unverified target', () => {
    async function noRedirect(params: Record<string, string>) {
      const seen = rp.callbacks.length;
      const url = new URL('/oidc/v1/end_session', svc.config.publicUrl);
      url.search = new URLSearchParams(params).toString();
      await ui.page.goto(String(url));
      assert.equal(rp.callbacks.length, seen, `no redirect for ${JSON.stringify(Object.keys(params))}`);
    }

    it('bad uri, query added to the uri, alg none hint, hint signed by another key, uri without a hint', async () => {
      const idToken = (await signedIn()).id_token!;
      await noRedirect({ id_token_hint: idToken, post_logout_redirect_uri: `${rp.url}/not-registered` });
      await noRedirect({ id_token_hint: idToken, post_logout_redirect_uri: `${rp.url}/logged-out?extra=1` });
      const [header, payload] = idToken.split('.');
      const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.`;
      void header;
      await noRedirect({ id_token_hint: unsigned, post_logout_redirect_uri: `${rp.url}/logged-out` });
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const foreign = await new SignJWT(decodeJwt(idToken)).setProtectedHeader({ alg: 'RS256', kid: 'foreign' }).sign(privateKey);
      await noRedirect({ id_token_hint: foreign, post_logout_redirect_uri: `${rp.url}/logged-out` });
      await noRedirect({ post_logout_redirect_uri: `${rp.url}/logged-out` });
    });

    it('without a state the redirect carries none; with no parameters the user sees the signed-out page', async () => {
      const idToken = (await signedIn()).id_token!;
      const url = oidc.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: `${rp.url}/logged-out` });
      const back = await authorize(rp, ui.page, url, (page) => page.click('button[name="logout"]'));
      assert.equal(back.url.searchParams.get('state'), null);

      await authorize(rp, ui.page, authUrl(), (page) => submitLogin(page, loginName, PASSWORD));
      await ui.page.goto(`${svc.config.publicUrl}/oidc/v1/end_session`);
      await ui.page.click('button[name="logout"]');
      await ui.page.waitForSelector('[data-logged-out]');
      const none = await authorize(rp, ui.page, authUrl({ prompt: 'none' }));
      assert.equal(callbackParams(none).get('error'), 'login_required');
    });
  });
});
