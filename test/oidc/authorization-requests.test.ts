import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { LoginClient } from '../attack/support/login-client.js';
import { PASSWORD, createHuman, createOidcApp, createProject, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';
import { useService } from '../support/fixtures.js';

const REDIRECT = 'http://127.0.0.1:65530/cb';

/** The error parameters an authorization response delivered to the redirect URI (query or fragment). */
function redirectedError(location: string | undefined): Record<string, string> {
  assert.ok(location?.startsWith(REDIRECT), `the error is delivered to the redirect URI: ${location}`);
  const url = new URL(location!);
  const params = new URLSearchParams(url.hash ? url.hash.slice(1) : url.search);
  return Object.fromEntries(params);
}

describe('authorization and token requests: the error codes and redirect_uri rules', () => {
  const svc = useService();
  let app: OidcApp;
  let loginName: string;

  before(async () => {
    const project = await createProject(svc);
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
  });

  function authorize(params: Record<string, string>) {
    return new LoginClient(svc.url).get(`/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, state: 'st', ...params })}`);
  }

  it('a request without openid is invalid_scope, delivered to the redirect URI with the state', async () => {
    for (const scope of ['profile email', 'offline_access']) {
      const res = await authorize({ redirect_uri: REDIRECT, response_type: 'code', scope });
      const out = redirectedError(res.location);
      assert.equal(out.error, 'invalid_scope', JSON.stringify(out));
      assert.equal(out.state, 'st');
    }
  });

  it('a response type the application is not registered for is unauthorized_client; an unknown one unsupported_response_type', async () => {
    const notRegistered = redirectedError((await authorize({ redirect_uri: REDIRECT, response_type: 'id_token', scope: 'openid', nonce: 'n' })).location);
    assert.equal(notRegistered.error, 'unauthorized_client', JSON.stringify(notRegistered));
    const unknown = redirectedError((await authorize({ redirect_uri: REDIRECT, response_type: 'token', scope: 'openid' })).location);
    assert.equal(unknown.error, 'unsupported_response_type', JSON.stringify(unknown));
  });

  it('a grant type the application is not registered for is unauthorized_client at the token endpoint', async () => {
    const res = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: app.clientId, secret: app.clientSecret! });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'unauthorized_client', res.text);
  });

  it('redirect_uri is required at the authorization endpoint, even for an application with one registered URI', async () => {
    const res = await authorize({ response_type: 'code', scope: 'openid' });
    // Without a redirect URI there is nowhere to deliver the error: the service shows it.
    assert.equal(res.status, 400, res.location);
    assert.equal(res.location, undefined);
    assert.match(res.text, /invalid_request/);
    assert.match(res.text, /redirect_uri/);
  });

  it('at the token endpoint redirect_uri must be present and equal to the authorization request’s', async () => {
    for (const redirect of [undefined, `${REDIRECT}/other`]) {
      const extra = redirect === undefined ? { omit: true } : { value: redirect };
      const res = await exchangeWith(extra);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, redirect === undefined ? 'invalid_request' : 'invalid_grant', res.text);
    }
    const ok = await exchangeWith({ value: REDIRECT });
    assert.equal(ok.status, 200, ok.text);
  });

  /** Signs in up to the code, then exchanges it with the given redirect_uri (or none). */
  async function exchangeWith(redirect: { omit?: boolean; value?: string }) {
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'st' });
    const posted = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD });
    let location = posted.location ?? '';
    while (location && !location.startsWith(REDIRECT)) location = (await browser.get(location)).location ?? '';
    const code = new URL(location).searchParams.get('code');
    assert.ok(code, location);
    const form: Record<string, string> = { grant_type: 'authorization_code', code };
    if (!redirect.omit) form.redirect_uri = redirect.value!;
    return postForm(svc, '/oauth/v2/token', form, { id: app.clientId, secret: app.clientSecret! });
  }

  it('a silent prompt=none sign-in that asks for offline_access gets a refresh token, as the first sign-in did', async () => {
    const scope = 'openid offline_access';
    const first = await signIn(svc, { clientId: app.clientId, clientSecret: app.clientSecret, redirectUri: REDIRECT, loginName, password: PASSWORD, scope });
    assert.ok(first.tokens?.refresh_token, JSON.stringify(first));
    for (const prompt of ['none', 'login']) {
      const again = await signIn(svc, {
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        redirectUri: REDIRECT,
        loginName,
        password: PASSWORD,
        scope,
        browser: first.browser,
        extra: { prompt },
      });
      assert.ok(again.tokens?.refresh_token, `prompt=${prompt}: ${JSON.stringify(again)}`);
      assert.match(again.tokens!.scope ?? '', /offline_access/);
      const refreshed = await postForm(
        svc,
        '/oauth/v2/token',
        { grant_type: 'refresh_token', refresh_token: again.tokens!.refresh_token! },
        { id: app.clientId, secret: app.clientSecret! },
      );
      assert.equal(refreshed.status, 200, refreshed.text);
    }
    const without = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: REDIRECT,
      loginName,
      password: PASSWORD,
      scope: 'openid',
      browser: first.browser,
      extra: { prompt: 'none' },
    });
    assert.equal(without.tokens?.refresh_token, undefined, 'no refresh token unless offline_access is asked for');
  });
});
