import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createHuman, createOidcApp, createProject, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { databaseState } from './support/db-state.js';
import { LoginClient } from './support/login-client.js';
import { useService } from '../support/fixtures.js';

const RP = 'http://127.0.0.1:65530';

/**
 * An application signs in only users of its own organization (SECURITY.md): another organization's
 * application gets no code for them, silently or not, whatever scopes it asks for.
 */
describe('sign-in stays inside the organization', () => {
  const svc = useService();
  let appA: OidcApp;
  let appB: OidcApp;
  let user: { userId: string; userName: string; loginName: string };

  before(async () => {
    const a = await createProject(svc);
    const b = await createProject(svc);
    appA = await createOidcApp(svc, a, { authMethod: 'client_secret_basic' }, RP);
    appB = await createOidcApp(svc, b, { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', 'refresh_token'] }, RP);
    const human = await createHuman(svc, a.orgId);
    user = { ...human, loginName: `${human.userName}@${a.primaryDomain}` };
  });

  async function signedInAtA(): Promise<LoginClient> {
    const { tokens, browser, error } = await signIn(svc, {
      clientId: appA.clientId,
      clientSecret: appA.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: user.loginName,
      password: PASSWORD,
    });
    assert.ok(tokens, `signed in at the own organization's application: ${error}`);
    return browser;
  }

  const authorizeAtB = (browser: LoginClient, extra: Record<string, string>) =>
    browser.get(
      `/oauth/v2/authorize?${new URLSearchParams({ client_id: appB.clientId, redirect_uri: `${RP}/cb`, response_type: 'code', state: 'st', ...extra })}`,
    );

  it('prompt=none at another organization’s application answers access_denied at the redirect URI, never a code', async () => {
    const browser = await signedInAtA();
    const res = await authorizeAtB(browser, { prompt: 'none', scope: 'openid profile email phone address' });
    assert.equal(res.status, 303, res.text);
    const location = new URL(res.location!);
    assert.equal(`${location.origin}${location.pathname}`, `${RP}/cb`);
    assert.equal(location.searchParams.get('error'), 'access_denied');
    assert.equal(location.searchParams.get('code'), null);
  });

  it('an interactive request shows the login page instead of completing silently, and the user’s own credentials get no code', async () => {
    const browser = await signedInAtA();
    const res = await authorizeAtB(browser, { prompt: 'consent', scope: 'openid profile offline_access' });
    assert.equal(res.status, 303);
    assert.match(res.location ?? '', /\/ui\/login\//, 'to the login UI, not back to the application');
    const page = await browser.get(res.location!);
    assert.match(page.text, /name="password"/, 'the login form, not a remembered account');

    const before = await databaseState(svc, ['login_attempts', 'oidc_payloads', 'events', 'users']);
    const stranger = new LoginClient(svc.url);
    const { uid, csrf } = await stranger.startLogin({
      client_id: appB.clientId,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid offline_access',
      state: 'st',
    });
    const posted = await stranger.post(`/ui/login/${uid}/login`, { csrf, loginName: user.loginName, password: PASSWORD });
    assert.equal(posted.status, 403, 'the login error page, no redirect towards a code');
    assert.match(posted.text, /only users of its own organization/);
    assert.equal(await databaseState(svc, ['login_attempts', 'oidc_payloads', 'events', 'users']), before);
  });
});
