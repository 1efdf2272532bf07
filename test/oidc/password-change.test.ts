import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { LoginClient, csrfOf } from '../attack/support/login-client.js';
import { PKCE, authorizeParams } from './support/authorize-params.js';
import { BCRYPT_HASH, PASSWORD as IMPORTED_PASSWORD, humanUser, importBody, importedIds, postImport } from '../import/import.helpers.js';
import { searchEvents, unique, useService } from '../support/fixtures.js';
import { createHuman, postForm, orgWithApp } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';

const RP = 'http://127.0.0.1:65530';

/**
 * docs/mail.md, "Password change required": a password an administrator set with `changeRequired`, or an imported
 * one with `passwordChangeRequired`, signs in only as far as the page `[data-password-change]`; the application
 * gets its code once a new password is chosen. Over HTTP, as a browser walks it.
 */
describe('password change required at sign-in', () => {
  const svc = useService();
  let orgId: string;
  let app: OidcApp;
  let manager: { userId: string; token: string };

  before(async () => {
    ({ orgId, manager, app } = await orgWithApp(svc));
  });

  /** Starts a sign-in and posts the password; the browser, its interaction and where the login answer led. */
  const signInUntil = async (loginName: string, password: string) => {
    const browser = new LoginClient(svc.url);
    const verifier = randomBytes(32).toString('base64url');
    const { uid, csrf } = await browser.startLogin(
      authorizeParams(app.clientId, { code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' }),
    );
    const posted = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password });
    return { browser, uid, verifier, landed: await browser.follow(posted) };
  };
  const codeOf = (page: { location?: string }) => (page.location?.startsWith(`${RP}/cb`) ? new URL(page.location).searchParams.get('code') : null);
  const tokensFor = async (code: string, verifier: string) =>
    postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'authorization_code', code, redirect_uri: `${RP}/cb`, code_verifier: verifier },
      { id: app.clientId, secret: app.clientSecret! },
    );

  it('an administrator sets a password with changeRequired: the user chooses a new one before the application gets its code', async () => {
    const user = await createHuman(svc, orgId);
    const set = await svc.api('PUT', `/management/v1/orgs/${orgId}/users/${user.userId}/password`, {
      token: manager.token,
      body: { password: 'Temporary pass 1', changeRequired: true },
    });
    assert.equal(set.status, 200, set.text);

    const { browser, uid, verifier, landed } = await signInUntil(user.userName, 'Temporary pass 1');
    assert.equal(landed.status, 200);
    assert.match(landed.text, /data-password-change/);
    assert.equal(codeOf(landed), null, 'no code yet');
    const csrf = csrfOf(landed.text);

    const mismatch = await browser.post(`/ui/login/${uid}/password-change`, { csrf, password: 'Chosen by me 22', passwordConfirm: 'Chosen by me 23' });
    assert.equal(mismatch.status, 400);
    assert.match(mismatch.text, /The two passwords differ/);
    const short = await browser.post(`/ui/login/${uid}/password-change`, { csrf, password: 'short', passwordConfirm: 'short' });
    assert.equal(short.status, 400);
    assert.match(short.text, /data-password-change/);
    const forged = await browser.post(`/ui/login/${uid}/password-change`, {
      csrf: 'not-the-value',
      password: 'Chosen by me 22',
      passwordConfirm: 'Chosen by me 22',
    });
    assert.equal(forged.status, 403, 'the CSRF value is checked');

    const changed = await browser.follow(
      await browser.post(`/ui/login/${uid}/password-change`, { csrf, password: 'Chosen by me 22', passwordConfirm: 'Chosen by me 22' }),
    );
    const code = codeOf(changed);
    assert.ok(code, `the authorization completes: ${changed.status} ${changed.location}`);
    assert.equal((await tokensFor(code, verifier)).status, 200);

    const again = await signInUntil(user.userName, 'Chosen by me 22');
    assert.ok(codeOf(again.landed), 'the next sign-in asks nothing more');
    assert.equal((await signInUntil(user.userName, 'Temporary pass 1')).landed.status, 401, 'the temporary password is gone');
    const [event] = await searchEvents(svc, { event_types: ['user.human.password.changed'], aggregate_id: user.userId });
    assert.deepEqual(event.payload, { changeRequired: false, method: 'change' });
    assert.equal(event.editor.userId, user.userId, 'the user changed its own password');
  });

  it('an imported user with passwordChangeRequired signs in with the old hash, then must choose a new password', async () => {
    const userId = unique('imported');
    const userName = unique('gigi');
    const response = await postImport(
      svc,
      importBody([{ orgId, humanUsers: [humanUser(userId, userName, { hashedPassword: { value: BCRYPT_HASH }, passwordChangeRequired: true })] }]),
    );
    assert.deepEqual(importedIds(response, orgId), [userId]);
    const { browser, uid, landed } = await signInUntil(userName, IMPORTED_PASSWORD);
    assert.match(landed.text, /data-password-change/);
    const changed = await browser.follow(
      await browser.post(`/ui/login/${uid}/password-change`, {
        csrf: csrfOf(landed.text),
        password: 'Fresh after import 3',
        passwordConfirm: 'Fresh after import 3',
      }),
    );
    assert.ok(codeOf(changed), 'completed');
  });

  it('refuses a change no sign-in asked for', async () => {
    const user = await createHuman(svc, orgId);
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin(authorizeParams(app.clientId, PKCE));
    const res = await browser.post(`/ui/login/${uid}/password-change`, { csrf, password: 'Sneaky change 1', passwordConfirm: 'Sneaky change 1' });
    assert.equal(res.status, 400);
    assert.equal((await signInUntil(user.userName, 'Sneaky change 1')).landed.status, 401, 'nothing changed');
  });
});
