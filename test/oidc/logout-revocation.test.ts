import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { LoginClient } from '../attack/support/login-client.js';
import { PASSWORD, createApiApp, createHuman, createOidcApp, createProject, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { useService } from '../support/fixtures.js';
import { logOut } from './support/log-out.js';

const RP = 'http://127.0.0.1:65530';

/**
 * Logout revokes the session's access tokens; an `offline_access` refresh token survives it (its
 * purpose, OpenID Connect Core §11) and stays revocable: revoking it revokes its access tokens,
 * revoking an access token only that one (RFC 7009 §2.1). Driven through the login UI over HTTP.
 */
describe('logout and offline_access', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let api: OidcApp;
  let loginName: string;

  before(async () => {
    project = await createProject(svc);
    api = await createApiApp(svc, project);
    loginName = `${(await createHuman(svc, project.orgId)).userName}@${project.primaryDomain}`;
  });

  const basic = (app: OidcApp) => ({ id: app.clientId, secret: app.clientSecret! });
  const introspect = async (token: string) => (await postForm(svc, '/oauth/v2/introspect', { token }, basic(api))).body.active as boolean;
  const userinfo = async (token: string) =>
    (await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${token}` } })).status;
  const refresh = (app: OidcApp, token: string) => postForm(svc, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: token }, basic(app));
  const revoke = async (app: OidcApp, token: string) => assert.equal((await postForm(svc, '/oauth/v2/revoke', { token }, basic(app))).status, 200);

  /** Signs in through the login UI and redeems the code: the browser (with its session) and the tokens. */
  async function signIn(app: OidcApp, scope: string) {
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin({ client_id: app.clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope, state: 'st' });
    const final = await browser.follow(await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD }));
    const code = new URL(final.location ?? 'x:/').searchParams.get('code');
    assert.ok(code, `code at the redirect_uri: ${final.location}`);
    const tokens = await postForm(svc, '/oauth/v2/token', { grant_type: 'authorization_code', code, redirect_uri: `${RP}/cb` }, basic(app));
    assert.equal(tokens.status, 200, tokens.text);
    assert.equal(await introspect(tokens.body.access_token), true);
    assert.equal(await userinfo(tokens.body.access_token), 200);
    return { browser, tokens: tokens.body as { access_token: string; refresh_token?: string } };
  }

  for (const accessTokenType of ['opaque', 'jwt'] as const) {
    it(`${accessTokenType} access tokens: logout revokes them; the offline refresh token survives and stays revocable`, async () => {
      const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType }, RP);
      const { browser, tokens } = await signIn(app, 'openid offline_access');
      assert.ok(tokens.refresh_token, 'offline_access gives a refresh token');
      await logOut(browser, app.clientId);
      assert.equal(await introspect(tokens.access_token), false, 'introspection: inactive after logout');
      assert.equal(await userinfo(tokens.access_token), 401, 'userinfo refuses it after logout');

      // The refresh token outlives the session.
      const refreshed = await refresh(app, tokens.refresh_token);
      assert.equal(refreshed.status, 200, refreshed.text);
      assert.equal(await introspect(refreshed.body.access_token), true);
      // Revoking an access token revokes only it.
      await revoke(app, refreshed.body.access_token);
      assert.equal(await introspect(refreshed.body.access_token), false);
      const again = await refresh(app, refreshed.body.refresh_token);
      assert.equal(again.status, 200, again.text);
      // Revoking the refresh token revokes it and its access tokens.
      await revoke(app, again.body.refresh_token);
      assert.equal(await introspect(again.body.access_token), false);
      assert.equal((await refresh(app, again.body.refresh_token)).body.error, 'invalid_grant');
    });
  }

  it('without offline_access the access token dies with the session too', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    const { browser, tokens } = await signIn(app, 'openid');
    assert.equal(tokens.refresh_token, undefined);
    await logOut(browser, app.clientId);
    assert.equal(await introspect(tokens.access_token), false);
    assert.equal(await userinfo(tokens.access_token), 401);
  });

  it("a logout of one client only revokes that client's access tokens and keeps the other's", async () => {
    const [first, second] = [
      await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP),
      await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP),
    ];
    const { browser, tokens: firstTokens } = await signIn(first, 'openid offline_access');
    // The same browser signs in to the second client within its session.
    const { uid, csrf } = await browser.startLogin({
      client_id: second.clientId,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid offline_access',
      state: 'st',
      prompt: 'login',
    });
    const final = await browser.follow(await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD }));
    const code = new URL(final.location!).searchParams.get('code')!;
    const secondTokens = (await postForm(svc, '/oauth/v2/token', { grant_type: 'authorization_code', code, redirect_uri: `${RP}/cb` }, basic(second))).body;
    assert.equal(await introspect(secondTokens.access_token), true);

    await logOut(browser, second.clientId, false);
    assert.equal(await introspect(secondTokens.access_token), false, "the logged-out client's token");
    assert.equal((await refresh(second, secondTokens.refresh_token)).status, 200, 'its refresh token survives');
    assert.equal(await introspect(firstTokens.access_token), true, "the other client's token stays");
  });
});
