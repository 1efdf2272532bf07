import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PASSWORD, createHuman, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { authorizeParams } from '../oidc/support/authorize-params.js';
import { LoginClient } from './support/login-client.js';
import { useService } from '../support/fixtures.js';

const RP = 'http://127.0.0.1:65530';

/**
 * The remembered-accounts cookie lets a browser pick an account without its password only while the
 * browser's server-side session belongs to that account; otherwise the password is asked again.
 */
describe('remembered accounts need a live server-side session', () => {
  const svc = useService();
  let app: OidcApp;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  const params = (extra: Record<string, string> = {}) => authorizeParams(app.clientId, extra);

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  async function signIn(client: LoginClient, loginName: string, extra: Record<string, string> = {}) {
    const { uid, csrf } = await client.startLogin(params(extra));
    const final = await client.follow(await client.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD }));
    assert.ok(final.location?.startsWith(`${RP}/cb?code=`), final.location);
  }

  async function pick(client: LoginClient, loginName: string) {
    const { uid, csrf, page } = await client.startLogin(params({ prompt: 'select_account' }));
    assert.match(page.text, new RegExp(`data-login-name="${loginName}"`), `${loginName} is offered`);
    return client.post(`/ui/login/${uid}/select`, { csrf, loginName });
  }

  function assertAsksPassword(res: { status: number; text: string; location?: string }, loginName: string) {
    assert.equal(res.status, 200);
    assert.equal(res.location, undefined, 'no sign-in without the password');
    assert.match(res.text, /name="password"/);
    assert.match(res.text, new RegExp(`name="loginName" autocomplete="username[^"]*" value="${loginName}"`), 'the login name is filled in');
    assert.match(res.text, /Your session has ended/);
  }

  it("picks the live session's account silently, and asks for the password once that session is gone", async () => {
    const alice = await createHuman(svc, project.orgId);
    const loginName = `${alice.userName}@${project.primaryDomain}`;
    // At PUBLIC_URL itself, as a browser would be: the account switch is recognised by its return there.
    const browser = new LoginClient(svc.config.publicUrl);
    await signIn(browser, loginName);

    const silent = await pick(browser, loginName);
    assert.equal(silent.status, 303, 'the live session is enough');

    // The server ends every session (an operator's revocation, or expiry): the cookie alone is not enough.
    await svc.dataSource.query("DELETE FROM oidc_payloads WHERE model = 'Session'");
    assertAsksPassword(await pick(browser, loginName), loginName);
  });

  it("another account's sign-in replaces the session: the earlier account needs its password again", async () => {
    const alice = await createHuman(svc, project.orgId);
    const bob = await createHuman(svc, project.orgId);
    const aliceName = `${alice.userName}@${project.primaryDomain}`;
    const bobName = `${bob.userName}@${project.primaryDomain}`;
    // At PUBLIC_URL itself, as a browser would be: the account switch is recognised by its return there.
    const browser = new LoginClient(svc.config.publicUrl);
    await signIn(browser, aliceName);
    await signIn(browser, bobName, { prompt: 'login' });
    assertAsksPassword(await pick(browser, aliceName), aliceName);
    assert.equal((await pick(browser, bobName)).status, 303, "bob's session is live");
  });
});
