import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { LoginClient, csrfOf } from '../attack/support/login-client.js';
import { PKCE, authorizeParams } from '../oidc/support/authorize-params.js';
import { postForm, orgWithApp } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { createCaller, searchEvents, unique } from '../support/fixtures.js';
import { linkIn, useServiceWithMail } from './support/mail-server.js';

const RP = 'http://127.0.0.1:65530';
const PASSWORD = 'Original pass 1';

/**
 * docs/mail.md, "Forgot password", as a person who forgot theirs walks it: the link on the password page, the same
 * answer for every name (SECURITY.md, "What we defend"), the mail (MailDev), the page the link opens, and what the new password does.
 */
describe('forgot password', () => {
  const { svc, mail } = useServiceWithMail();
  let orgId: string;
  let app: OidcApp;
  let manager: { userId: string; token: string };

  before(async () => {
    ({ orgId, manager, app } = await orgWithApp(svc));
  });

  const person = async (options: { email?: boolean } = {}) => {
    const userName = unique('ada');
    const email = `${userName}@example.com`;
    // By SCIM, which (unlike the management API) may create a person without an address.
    const res = await svc.api('POST', `/scim/v2/${orgId}/Users`, {
      token: manager.token,
      headers: { 'content-type': 'application/scim+json' },
      body: {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName,
        name: { givenName: 'Ada', familyName: 'Lovelace' },
        ...(options.email === false ? {} : { emails: [{ value: email, primary: true }] }),
        password: PASSWORD,
      },
    });
    assert.equal(res.status, 201, res.text);
    return { userId: res.body.id as string, userName, email };
  };
  const signInWith = (loginName: string, password: string) =>
    signIn(svc, { clientId: app.clientId, clientSecret: app.clientSecret, redirectUri: `${RP}/cb`, loginName, password, scope: 'openid offline_access' });

  /** From an application's sign-in: the login page's link, then the form, posted with `loginName`. */
  const requestReset = async (browser: LoginClient, loginName: string) => {
    const { uid, page } = await browser.startLogin(authorizeParams(app.clientId, PKCE));
    const href = /<a href="([^"]+)" data-forgot-password>/.exec(page.text)?.[1];
    assert.equal(href, `/ui/login/${uid}/forgot`, 'the password page links to "forgot password"');
    const form = await browser.get(href);
    assert.equal(form.status, 200);
    assert.match(form.text, /data-reset-request/);
    return { uid, answer: await browser.post(href, { csrf: csrfOf(form.text), loginName }) };
  };

  it('mails a link to a known name, answers an unknown one alike, and the link sets a new password that ends the old sessions', async () => {
    const ada = await person();
    const old = await signInWith(ada.userName, PASSWORD);
    assert.ok(old.tokens?.refresh_token, `signed in before: ${old.error}`);

    const browser = new LoginClient(svc.url);
    const known = await requestReset(browser, ada.userName);
    const unknown = await requestReset(browser, unique('nobody'));
    assert.equal(known.answer.status, 200);
    assert.equal(unknown.answer.status, known.answer.status);
    assert.equal(unknown.answer.text.replace(unknown.uid, 'UID'), known.answer.text.replace(known.uid, 'UID'), 'the same page for a known and an unknown name');
    assert.match(known.answer.text, /data-reset-requested/);

    const message = await mail.waitFor(ada.email);
    assert.match(message.subject, /: reset your password$/);
    assert.match(message.text, /The link works for 1 hour, once\./);
    const link = linkIn(message);
    assert.ok(link.startsWith(`${svc.config.publicUrl}/ui/login/password-reset?code=`), link);
    assert.ok(!link.includes(ada.userName), 'the link names no login name');

    const page = await browser.get(link.slice(svc.config.publicUrl.length));
    assert.equal(page.status, 200);
    assert.match(page.text, /data-password-reset/);
    const code = new URL(link).searchParams.get('code')!;
    assert.equal(
      (await browser.post('/ui/login/invitation', { code, password: 'New password 22', passwordConfirm: 'New password 22' })).status,
      400,
      'a reset code opens no invitation',
    );
    const set = await browser.post('/ui/login/password-reset', { code, password: 'New password 22', passwordConfirm: 'New password 22' });
    assert.equal(set.status, 200, set.text);
    assert.match(set.text, /data-password-set/);

    assert.ok((await signInWith(ada.userName, PASSWORD).catch((e: Error) => e)) instanceof Error, 'the old password is refused');
    assert.ok((await signInWith(ada.userName, 'New password 22')).tokens?.id_token, 'the new one signs in');
    const refreshed = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'refresh_token', refresh_token: old.tokens.refresh_token },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(refreshed.status, 400, 'the refresh token of before the reset is revoked');
    assert.equal(refreshed.body.error, 'invalid_grant');
    assert.equal(
      (await browser.post('/ui/login/password-reset', { code, password: 'Third password 3', passwordConfirm: 'Third password 3' })).status,
      400,
      'the link works once',
    );

    const events = await searchEvents(svc, { event_types: ['user.human.password.changed', 'user.human.password.reset.requested'], aggregate_id: ada.userId });
    const reset = events.find((e) => e.type.type === 'user.human.password.changed' && e.payload.method === 'reset');
    assert.ok(reset, 'the change says it was a reset');
    const requested = events.find((e) => e.type.type === 'user.human.password.reset.requested');
    assert.ok(
      requested && typeof requested.payload.clientIpHash === 'string' && !JSON.stringify(requested.payload).includes('127.0.0.1'),
      'the request is recorded with the hashed IP',
    );
  });

  it('unlocks a user locked by failed checks, but mails nothing for an inactive user or one without an e-mail', async () => {
    const locked = await person();
    const browser = new LoginClient(svc.url);
    for (let i = 0; i < 10; i++) {
      const { uid, csrf } = await browser.startLogin(authorizeParams(app.clientId, PKCE));
      assert.equal((await browser.post(`/ui/login/${uid}/login`, { csrf, loginName: locked.userName, password: 'Wrong password 9' })).status, 401);
    }
    const [row] = await svc.dataSource.query('SELECT state FROM users WHERE id = ?', [locked.userId]);
    assert.equal(row.state, 'locked', 'locked by the lockout');

    const inactive = await person();
    assert.equal((await svc.api('POST', `/management/v1/orgs/${orgId}/users/${inactive.userId}/deactivate`, { token: manager.token, body: {} })).status, 200);
    const mailless = await person({ email: false });
    await requestReset(browser, inactive.userName);
    await requestReset(browser, mailless.userName);
    await requestReset(browser, locked.userName);

    const link = linkIn(await mail.waitFor(locked.email));
    const set = await browser.post('/ui/login/password-reset', {
      code: new URL(link).searchParams.get('code')!,
      password: 'Unlocked now 44',
      passwordConfirm: 'Unlocked now 44',
    });
    assert.equal(set.status, 200, set.text);
    assert.ok((await signInWith(locked.userName, 'Unlocked now 44')).tokens?.id_token, 'unlocked and signed in');
    // The three requests were handled in order: by now the first two had their chance to queue a message.
    const queued = await svc.dataSource.query('SELECT COUNT(*) AS n FROM mail_messages WHERE user_id IN (?, ?)', [inactive.userId, mailless.userId]);
    assert.equal(Number(queued[0].n), 0, 'nothing for an inactive user, nothing without an address');
  });

  it('a newer request replaces the older link; an expired link opens an error page', async () => {
    const ada = await person();
    const browser = new LoginClient(svc.url);
    await requestReset(browser, ada.userName);
    const first = linkIn(await mail.waitFor(ada.email));
    await requestReset(browser, ada.userName);
    const second = linkIn(await mail.waitFor(ada.email, (m) => linkIn(m) !== first));
    assert.equal((await browser.get(first.slice(svc.config.publicUrl.length))).status, 400, 'replaced');
    assert.equal((await browser.get(second.slice(svc.config.publicUrl.length))).status, 200);
    // An hour passes: the code's expiry is moved into the past, as the clock would.
    await svc.dataSource.query('UPDATE user_codes SET expires_at = ? WHERE user_id = ?', [Date.now() - 1, ada.userId]);
    const expired = await browser.get(second.slice(svc.config.publicUrl.length));
    assert.equal(expired.status, 400);
    assert.match(expired.text, /data-error="invalid_link"/);
  });

  it('an administrator sends a reset link (POST …/password/reset); the current password works until it is followed', async () => {
    const ada = await person();
    const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${ada.userId}/password/reset`, { token: manager.token, body: {} });
    assert.equal(res.status, 202, res.text);
    const expiresIn = Date.parse(res.body.expiresAt) - Date.now();
    assert.ok(expiresIn > 0.9 * 3_600_000 && expiresIn <= 3_600_000, res.body.expiresAt);
    const link = linkIn(await mail.waitFor(ada.email));
    assert.ok((await signInWith(ada.userName, PASSWORD)).tokens, 'the current password still works');
    const set = await new LoginClient(svc.url).post('/ui/login/password-reset', {
      code: new URL(link).searchParams.get('code')!,
      password: 'Reset by admin 5',
      passwordConfirm: 'Reset by admin 5',
    });
    assert.equal(set.status, 200, set.text);
    assert.ok((await signInWith(ada.userName, 'Reset by admin 5')).tokens);
    const machine = await createCaller(svc, orgId);
    assert.equal(
      (await svc.api('POST', `/management/v1/orgs/${orgId}/users/${machine.userId}/password/reset`, { token: manager.token, body: {} })).status,
      409,
    );
  });

  it('counts requests against the password checks’ limit per login name: 429 with Retry-After past it', async () => {
    const name = unique('probe');
    const browser = new LoginClient(svc.url);
    let last;
    for (let i = 0; i <= svc.config.loginRateLimit.failuresPerLoginName; i++) last = (await requestReset(browser, name)).answer;
    assert.equal(last!.status, 429);
    assert.ok(Number(last!.headers.get('retry-after')) > 0);
  });

  it('offers no "forgot password" where the organization signs in through its IdPs only', async () => {
    const policy = await svc.api('PUT', `/management/v1/orgs/${orgId}/login-policy`, {
      token: svc.adminToken,
      body: { mfa: 'optional', passkeys: true, allowRegistration: false, passwordLogin: false },
    });
    try {
      assert.equal(policy.status, 200, policy.text);
      const { page } = await new LoginClient(svc.url).startLogin(authorizeParams(app.clientId, PKCE));
      assert.doesNotMatch(page.text, /data-forgot-password/);
    } finally {
      await svc.api('PUT', `/management/v1/orgs/${orgId}/login-policy`, {
        token: svc.adminToken,
        body: { mfa: 'optional', passkeys: true, allowRegistration: false, passwordLogin: true },
      });
    }
  });
});
