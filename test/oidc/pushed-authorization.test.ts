import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import { LoginClient } from '../attack/support/login-client.js';
import { PASSWORD, createHuman, createOidcApp, createProject, discover } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { useService } from '../support/fixtures.js';

const REDIRECT = 'http://127.0.0.1:65530/cb';

describe('discovery: every advertised endpoint answers, and pushed authorization requests work (RFC 9126)', () => {
  const svc = useService();
  let app: OidcApp;
  let loginName: string;
  let doc: Record<string, unknown>;

  before(async () => {
    const project = await createProject(svc);
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    doc = (await (await fetch(new URL('/.well-known/openid-configuration', svc.url))).json()) as Record<string, unknown>;
  });

  it('every endpoint URL in discovery is served by the provider (none answers 404)', async () => {
    const urls = Object.entries(doc).filter(([name, value]) => /(_endpoint|_uri)$/.test(name) && typeof value === 'string');
    assert.ok(urls.length >= 8, JSON.stringify(urls));
    for (const [name, url] of urls as [string, string][]) {
      assert.ok(url.startsWith(svc.config.publicUrl), `${name} is on the issuer: ${url}`);
      const get = await fetch(url, { redirect: 'manual' });
      const post = await fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
      // Each endpoint serves GET, POST or both; an empty request gets its own OAuth error, not a 404.
      assert.ok(get.status !== 404 || post.status !== 404, `${name} ${url} answered 404 to GET and POST`);
    }
  });

  it('advertises the client authentication methods of introspection and revocation (RFC 8414 §2)', () => {
    assert.deepEqual(doc.introspection_endpoint_auth_methods_supported, ['client_secret_basic', 'private_key_jwt']);
    assert.deepEqual(doc.revocation_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt']);
  });

  it('a confidential client pushes its request, signs the user in with the request_uri alone and gets a refresh token', async () => {
    assert.equal(doc.pushed_authorization_request_endpoint, `${svc.config.publicUrl}/oauth/v2/par`);
    const config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = await oidc.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      scope: 'openid profile offline_access',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    assert.deepEqual([...url.searchParams.keys()].sort(), ['client_id', 'request_uri']);
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin(Object.fromEntries(url.searchParams));
    let res = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD });
    while (res.location && !res.location.startsWith(REDIRECT)) res = await browser.get(res.location);
    assert.ok(res.location?.startsWith(REDIRECT), `back at the client: ${res.status} ${res.location}`);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(res.location!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: true,
    });
    assert.ok(tokens.access_token);
    assert.ok(tokens.refresh_token, 'offline_access pushed with the request is honoured');
    assert.equal(tokens.claims()?.sub !== undefined, true);
  });

  it('a request_uri opens one authorization request: a second one with it is invalid_request_uri, the first still completes', async () => {
    const config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = await oidc.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin(Object.fromEntries(url.searchParams));

    // RFC 9126 §4: the request_uri is single use here, not reloadable: another browser (or a reload) is refused.
    for (const other of [new LoginClient(svc.url), browser]) {
      const again = await other.get(`/oauth/v2/authorize?${url.searchParams}`);
      assert.equal(again.status, 400, `a second authorization request with the request_uri: ${again.status} ${again.location ?? again.text.slice(0, 300)}`);
      assert.match(again.headers.get('content-type') ?? '', /text\/html/);
      assert.match(again.text, /data-error="invalid_request_uri"/);
    }

    let res = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD });
    while (res.location && !res.location.startsWith(REDIRECT)) res = await browser.get(res.location);
    assert.ok(res.location?.startsWith(REDIRECT), `back at the client: ${res.status} ${res.location}`);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(res.location!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: true,
    });
    assert.ok(tokens.access_token);
  });

  it('the pushed request is checked like an authorization request: a missing openid is invalid_scope, an unknown redirect URI invalid_request', async () => {
    const push = (form: Record<string, string>) =>
      fetch(new URL('/oauth/v2/par', svc.url), {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ client_id: app.clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', ...form }),
      });
    const noOpenid = await push({ scope: 'profile' });
    assert.equal(noOpenid.status, 400);
    const noOpenidBody = await noOpenid.text();
    assert.equal(JSON.parse(noOpenidBody).error, 'invalid_scope', noOpenidBody);
    const elsewhere = await push({ redirect_uri: 'https://attacker.example/cb' });
    assert.equal(elsewhere.status, 400);
    assert.equal(((await elsewhere.json()) as { error: string }).error, 'invalid_request');
    const unauthenticated = await fetch(new URL('/oauth/v2/par', svc.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: app.clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' }),
    });
    assert.equal(unauthenticated.status, 401);
  });
});
