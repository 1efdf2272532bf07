import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addVirtualAuthenticator, authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitLogin } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { createOidcApp, createProject, orgWithApp } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { setLoginPolicy, totpCode } from '../oidc/support/second-factor.js';
import { searchEvents, unique } from '../support/fixtures.js';
import { linkIn, useServiceWithMail } from './support/mail-server.js';
import { startUpstreamIdp } from '../federation/support/upstream-idp.js';
import type { UpstreamIdp } from '../federation/support/upstream-idp.js';
import { createHash, randomBytes } from 'node:crypto';
import { postForm } from '../oidc/support/oidc-fixtures.js';

const PASSWORD = 'Account page 1';

/**
 * The account page `/ui/account` (docs/account.md) in Chromium, as its person uses it: the sign-in it starts, each of the
 * six sections, and the refusals (a stale sign-in, a form without its CSRF value, the last factor an organization
 * requires, someone else's session) that change nothing.
 */
describe('the account page in Chromium', () => {
  const { svc, mail } = useServiceWithMail({ PUBLIC_URL: 'http://localhost:{port}', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let browser: Browser;
  let rp: RelyingParty;
  let base: string;
  let orgId: string;
  let app: OidcApp;
  let upstream: UpstreamIdp;

  before(async () => {
    [browser, rp, upstream] = await Promise.all([
      launchBrowser(),
      startRelyingParty(),
      startUpstreamIdp({ 'ada-sub': { preferred_username: 'ada@upstream.example' } }, { host: '127.0.0.1' }),
    ]);
    base = svc.config.publicUrl;
    ({ orgId } = await orgWithApp(svc));
    app = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' }, rp.url);
    await setLoginPolicy(svc, orgId, { mfa: 'optional', passkeys: true });
  });
  after(async () => {
    await Promise.all([browser?.close(), rp?.close(), upstream?.close()]);
  });

  const api = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${orgId}${path}`, { token: svc.adminToken, body });

  async function person(): Promise<{ userId: string; userName: string; email: string }> {
    const userName = unique('ada');
    const email = `${userName}@example.com`;
    const created = await api('POST', '/users/human', {
      userName,
      profile: { firstName: 'Ada', lastName: 'Lovelace' },
      email: { email, isEmailVerified: true },
      password: PASSWORD,
    });
    assert.equal(created.status, 201, created.text);
    return { userId: created.body.userId, userName, email };
  }

  /** Opens /ui/account in a fresh browser: no session, so the login UI first, then back to the page. */
  async function openAccount(userName: string, password = PASSWORD) {
    const opened = await newPage(browser);
    await opened.page.goto(`${base}/ui/account`);
    await opened.page.waitForURL((url) => url.pathname.startsWith('/ui/login/'));
    await submitLogin(opened.page, userName, password);
    await opened.page.waitForURL((url) => url.pathname === '/ui/account');
    return opened;
  }

  /** A second browser signed in to the application: a session of its own. */
  async function signInElsewhere(userName: string) {
    const other = await newPage(browser);
    const cb = await authorize(rp, other.page, authorizeUrl(), (p) => submitLogin(p, userName, PASSWORD));
    assert.ok(callbackParams(cb).get('code'));
    return other;
  }

  const authorizeUrl = (extra: Record<string, string> = {}) =>
    `${base}/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: `${rp.url}/cb`, response_type: 'code', scope: 'openid', state: unique('st'), code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', ...extra })}`;

  /** Whether that browser's session still signs in silently (prompt=none). */
  async function stillSignedIn(page: Page): Promise<boolean> {
    const cb = await authorize(rp, page, authorizeUrl({ prompt: 'none' }));
    return callbackParams(cb).get('code') !== null;
  }

  const section = (page: Page, name: string) => page.locator(`[data-account-section="${name}"]`);
  const notice = (page: Page) => page.locator('[data-account-notice]');

  it('signs in, shows the six sections, and saves the profile and the language', async () => {
    const ada = await person();
    const { context, page } = await openAccount(ada.userName);
    try {
      for (const name of ['profile', 'email', 'password', 'factors', 'sessions', 'identities']) await section(page, name).waitFor();
      const profile = section(page, 'profile');
      await profile.getByLabel('First name').fill('Augusta Ada');
      await profile.getByLabel('Display name').fill('Ada K.');
      await profile.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Your profile is saved.').waitFor();
      const stored = await api('GET', `/users/${ada.userId}`);
      assert.equal(stored.body.profile.firstName, 'Augusta Ada');
      assert.equal(stored.body.profile.displayName, 'Ada K.');

      // An empty first name: a clear error in the section, nothing saved.
      await profile.getByLabel('First name').fill(' ');
      await profile.getByRole('button', { name: 'Save' }).click();
      await profile.getByRole('alert').getByText('firstName must not be empty').waitFor();
      assert.equal((await api('GET', `/users/${ada.userId}`)).body.profile.firstName, 'Augusta Ada');

      await section(page, 'profile').getByLabel('Preferred language').selectOption('de');
      await section(page, 'profile').getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: 'Ihr Konto' }).waitFor();
      assert.equal((await api('GET', `/users/${ada.userId}`)).body.profile.preferredLanguage, 'de');
    } finally {
      await context.close();
    }
  });

  it('changes the e-mail: unverified, a link to the new address, a notice to the old one; the link verifies it', async () => {
    const ada = await person();
    const { context, page } = await openAccount(ada.userName);
    try {
      const email = section(page, 'email');
      // The browser's own check lets `a@b` through; the service's does not.
      await email.getByLabel('New e-mail address').fill('ada@localhost');
      await email.getByRole('button', { name: 'Change the address' }).click();
      await section(page, 'email').getByRole('alert').getByText('email must be an e-mail address').waitFor();

      const next = `${unique('ada.new')}@example.com`;
      await section(page, 'email').getByLabel('New e-mail address').fill(next);
      await section(page, 'email').getByRole('button', { name: 'Change the address' }).click();
      await notice(page).getByText('The address is changed.', { exact: false }).waitFor();
      await section(page, 'email').locator('[data-email-verified="false"]').waitFor();
      const stored = (await api('GET', `/users/${ada.userId}`)).body.email;
      assert.deepEqual(stored, { email: next, isEmailVerified: false });

      assert.match((await mail.waitFor(ada.email)).subject, /your e-mail address was changed$/, 'the old address hears of it');
      const link = linkIn(await mail.waitFor(next, (m) => /confirm your e-mail address$/.test(m.subject)));
      await page.goto(link);
      await page.locator('form[data-email-verification] button').click();
      await page.locator('[data-email-verified]').waitFor();
      await page.goto(`${base}/ui/account`);
      await section(page, 'email').locator('[data-email-verified="true"]').waitFor();
    } finally {
      await context.close();
    }
  });

  it('changes the password: a wrong current one changes nothing; the right one ends the other sessions and keeps this one', async () => {
    const ada = await person();
    const other = await signInElsewhere(ada.userName);
    const { context, page } = await openAccount(ada.userName);
    try {
      const fill = async (current: string, password: string, confirm: string) => {
        const form = section(page, 'password');
        await form.getByLabel('Current password').fill(current);
        await form.getByLabel('New password').fill(password);
        await form.getByLabel('Repeat the password').fill(confirm);
        await form.getByRole('button', { name: 'Change the password' }).click();
      };
      await fill('Not my password', 'Brand new pass 2', 'Brand new pass 2');
      await section(page, 'password').getByRole('alert').getByText('The current password is wrong.').waitFor();
      await fill(PASSWORD, 'Brand new pass 2', 'Brand new pass 3');
      await section(page, 'password').getByRole('alert').getByText('The two passwords differ.').waitFor();
      assert.equal(await stillSignedIn(other.page), true, 'nothing changed: the other browser is still signed in');

      await fill(PASSWORD, 'Brand new pass 2', 'Brand new pass 2');
      await page.getByText('Your password is changed. Your other sessions have ended.').waitFor();
      await page.reload();
      await section(page, 'password').waitFor();
      assert.equal(new URL(page.url()).pathname, '/ui/account', 'this session stays');
      assert.equal(await stillSignedIn(other.page), false, 'the other session ended');
      const events = await searchEvents(svc, { event_types: ['user.human.password.changed'], aggregate_id: ada.userId });
      assert.deepEqual(
        events.map((e) => e.payload.method),
        ['change'],
      );
    } finally {
      await Promise.all([context.close(), other.context.close()]);
    }
    const again = await openAccount(ada.userName, 'Brand new pass 2');
    await again.context.close();
  });

  it('adds an authenticator app with recovery codes; under mfa "required" the last one stays; a passkey too', async () => {
    const ada = await person();
    const { context, page } = await openAccount(ada.userName);
    try {
      await section(page, 'factors').getByRole('button', { name: 'Add an authenticator app' }).click();
      const secret = (await page.locator('[data-totp-secret]').textContent())!.trim();
      await page.getByLabel('Code', { exact: true }).fill('000000');
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByText('The code is wrong, expired or used already.').waitFor();
      await page.getByLabel('Code', { exact: true }).fill(totpCode(secret));
      await page.getByRole('button', { name: 'Verify' }).click();
      assert.equal(await page.locator('[data-recovery-code]').count(), 10, 'recovery codes come with the first factor');
      await page.getByRole('link', { name: 'Back to your account' }).click();
      await section(page, 'factors').locator('[data-factor="totp"]').waitFor();
      await section(page, 'factors').locator('[data-factor="recovery_codes"]').waitFor();

      // The organization now requires a second factor: the page asks for it first (step-up), then keeps the last one.
      await setLoginPolicy(svc, orgId, { mfa: 'required', passkeys: true });
      try {
        await page.goto(`${base}/ui/account`);
        await page.waitForURL((url) => url.pathname.startsWith('/ui/login/'));
        await page.locator('input[name="code"]').fill(totpCode(secret, 1));
        await page.getByRole('button', { name: 'Verify' }).click();
        await page.waitForURL((url) => url.pathname === '/ui/account');
        await section(page, 'factors').getByRole('button', { name: 'Remove: Authenticator app' }).click();
        await section(page, 'factors').getByRole('alert').getByText('your organization requires a second factor', { exact: false }).waitFor();
        const factors = (await api('GET', `/users/${ada.userId}/factors`)).body;
        assert.ok(JSON.stringify(factors).includes('"totp"'), `the TOTP factor stays: ${JSON.stringify(factors)}`);

        // A passkey (Chromium's virtual authenticator); then the authenticator app may go.
        await addVirtualAuthenticator(page);
        await section(page, 'factors').locator('[data-passkey-register]').click();
        await page.getByText('The second factor is added.').waitFor();
        await section(page, 'factors').locator('[data-factor="passkey"]').waitFor();
        await section(page, 'factors').getByRole('button', { name: 'Remove: Authenticator app' }).click();
        await page.getByText('The second factor is removed.').waitFor();
        assert.equal(await section(page, 'factors').locator('[data-factor="totp"]').count(), 0);
      } finally {
        await setLoginPolicy(svc, orgId, { mfa: 'optional', passkeys: true });
      }
    } finally {
      await context.close();
    }
  });

  it('lists the sessions with their applications; ends one, then all others; never another person’s', async () => {
    const ada = await person();
    const first = await signInElsewhere(ada.userName);
    const second = await signInElsewhere(ada.userName);
    const { context, page } = await openAccount(ada.userName);
    try {
      const rows = section(page, 'sessions').locator('[data-session]');
      assert.equal(await rows.count(), 3);
      await section(page, 'sessions').locator('[data-current-session]').getByText('This session').waitFor();
      const appName = (await api('GET', `/projects/${app.projectId}/apps/${app.appId}`)).body.name as string;
      assert.ok(appName);
      assert.equal(
        await section(page, 'sessions').locator('[data-session]:not([data-current-session])', { hasText: appName }).count(),
        2,
        'the application of each other session, by name',
      );
      await section(page, 'sessions').locator('[data-current-session]', { hasText: 'Your account' }).waitFor();

      // Someone else's session id: not found, nothing ended.
      const stranger = await person();
      const strangers = await signInElsewhere(stranger.userName);
      const theirs = (await api('GET', `/users/${stranger.userId}/sessions`)).body.sessions[0].sessionId;
      const csrf = await page.locator('[data-account-section="sessions"] input[name="csrf"]').first().inputValue();
      const refused = await page.request.post(`${base}/ui/account/sessions/end`, { form: { csrf, sessionId: theirs } });
      assert.equal(refused.status(), 404);
      assert.equal(await stillSignedIn(strangers.page), true);
      await strangers.context.close();

      await section(page, 'sessions').locator('[data-session]:not([data-current-session])').first().getByRole('button', { name: 'End this session' }).click();
      await page.getByText('The session has ended.').waitFor();
      assert.equal(await section(page, 'sessions').locator('[data-session]').count(), 2);
      await section(page, 'sessions').getByRole('button', { name: 'End all other sessions' }).click();
      await page.getByText('Your other sessions have ended.').waitFor();
      assert.equal(await section(page, 'sessions').locator('[data-session]').count(), 1);
      assert.deepEqual([await stillSignedIn(first.page), await stillSignedIn(second.page)], [false, false]);
    } finally {
      await Promise.all([context.close(), first.context.close(), second.context.close()]);
    }
  });

  it('shows and unlinks a linked identity', async () => {
    const ada = await person();
    const idp = await api('POST', '/idps', {
      type: 'oidc',
      name: 'Contoso Entra',
      issuer: 'http://127.0.0.1:9/v2.0',
      clientId: 'portcullis',
      clientSecret: 'a secret of the upstream',
    });
    assert.equal(idp.status, 201, idp.text);
    assert.equal((await api('POST', `/users/${ada.userId}/identities`, { idpId: idp.body.id, subject: 'entra-oid-ada' })).status, 201);
    const { context, page } = await openAccount(ada.userName);
    try {
      const identities = section(page, 'identities');
      await identities.getByRole('cell', { name: 'Contoso Entra', exact: true }).waitFor();
      await identities.getByRole('cell', { name: 'entra-oid-ada', exact: true }).waitFor();
      await identities.getByRole('button', { name: 'Unlink: Contoso Entra' }).click();
      await page.getByText('The identity is unlinked.').waitFor();
      await section(page, 'identities').getByText('No identity of another provider is linked.').waitFor();
      assert.deepEqual((await api('GET', `/users/${ada.userId}/identities`)).body.identities, []);
    } finally {
      await context.close();
    }
  });

  it('links an identity after signing in upstream (also for a person who holds a role); it then signs in; nobody else can link it', async () => {
    const idp = await api('POST', '/idps', {
      type: 'oidc',
      name: 'Upstream Corp',
      issuer: upstream.issuer,
      clientId: 'rp-account-link',
      clientSecret: 'link-secret-1',
    });
    assert.equal(idp.status, 201, idp.text);
    upstream.addClient({ client_id: 'rp-account-link', client_secret: 'link-secret-1', redirect_uris: [idp.body.callbackUrl] });
    const ada = await person();
    // A role holder is never linked automatically (docs/federation.md, "Who the upstream identity is"): the account page is the way.
    assert.equal((await api('PUT', `/members/${ada.userId}`, { roles: ['ORG_USER_MANAGER'] })).status, 200);
    const signInUpstream = async (page: Page, account: string) => {
      await page.locator('[data-upstream-account]').fill(account);
      await page.locator('[data-upstream-submit]').click();
    };

    const { context, page } = await openAccount(ada.userName);
    try {
      await section(page, 'identities').locator(`[data-link-idp="${idp.body.id}"]`).click();
      await signInUpstream(page, 'ada-sub');
      await page.getByText('The identity is linked: you can sign in with it now.').waitFor();
      await section(page, 'identities').getByRole('cell', { name: 'Upstream Corp', exact: true }).waitFor();
      const linked = (await api('GET', `/users/${ada.userId}/identities`)).body.identities;
      assert.deepEqual(
        linked.map((i: { idpId: string; subject: string }) => [i.idpId, i.subject]),
        [[idp.body.id, 'ada-sub']],
      );
    } finally {
      await context.close();
    }

    // The application's sign-in page offers the IdP; through it, the person is the linked user.
    const elsewhere = await newPage(browser);
    try {
      const verifier = randomBytes(32).toString('base64url');
      const url = authorizeUrl({ code_challenge: createHash('sha256').update(verifier).digest('base64url') });
      const cb = await authorize(rp, elsewhere.page, url, async (p) => {
        await p.locator(`[data-idp="${idp.body.id}"]`).click();
        await signInUpstream(p, 'ada-sub');
        // Where the organization offers a second factor (policy optional), Ada declines it for now.
        await p.waitForURL((url) => url.origin !== upstream.issuer && !url.pathname.includes('/callback'));
        if ((await p.locator('[data-mfa-skip]').count()) > 0) await p.locator('[data-mfa-skip]').click();
      });
      const code = callbackParams(cb).get('code');
      assert.ok(code, `signed in: ${cb.url}`);
      const tokens = await postForm(
        svc,
        '/oauth/v2/token',
        { grant_type: 'authorization_code', code, redirect_uri: `${rp.url}/cb`, code_verifier: verifier },
        { id: app.clientId, secret: app.clientSecret! },
      );
      assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
      assert.equal(JSON.parse(Buffer.from(String(tokens.body.id_token).split('.')[1], 'base64url').toString()).sub, ada.userId);
    } finally {
      await elsewhere.context.close();
    }

    // Another person signs in upstream as the same identity: refused, nothing linked.
    const bob = await person();
    const other = await openAccount(bob.userName);
    try {
      await section(other.page, 'identities').locator(`[data-link-idp="${idp.body.id}"]`).click();
      await signInUpstream(other.page, 'ada-sub');
      await section(other.page, 'identities').getByRole('alert').getByText('already linked', { exact: false }).waitFor();
      assert.deepEqual((await api('GET', `/users/${bob.userId}/identities`)).body.identities, []);
    } finally {
      await other.context.close();
    }
  });

  it('refuses a form without its CSRF value, and a change of how one signs in after a stale sign-in, until signed in again', async () => {
    const ada = await person();
    const { context, page } = await openAccount(ada.userName);
    try {
      const forged = await page.request.post(`${base}/ui/account/profile`, {
        form: { firstName: 'Mallory', lastName: 'X', displayName: '', preferredLanguage: '' },
      });
      assert.equal(forged.status(), 403);
      assert.equal((await api('GET', `/users/${ada.userId}`)).body.profile.firstName, 'Ada');

      // The sign-in is made 20 minutes old; the e-mail change asks for a new one.
      const rows: { uid: string; payload: string }[] = await svc.dataSource.query(
        `SELECT uid, payload FROM oidc_payloads WHERE model = 'Session' AND account_id = ?`,
        [ada.userId],
      );
      assert.equal(rows.length, 1);
      const stored = JSON.parse(rows[0].payload) as { loginTs: number };
      await svc.dataSource.query(`UPDATE oidc_payloads SET payload = ? WHERE model = 'Session' AND uid = ?`, [
        JSON.stringify({ ...stored, loginTs: stored.loginTs - 1200 }),
        rows[0].uid,
      ]);
      await section(page, 'email')
        .getByLabel('New e-mail address')
        .fill(`${unique('late')}@example.com`);
      await section(page, 'email').getByRole('button', { name: 'Change the address' }).click();
      await section(page, 'email').getByRole('alert').getByText('sign in again first', { exact: false }).waitFor();
      assert.equal((await api('GET', `/users/${ada.userId}`)).body.email.email, ada.email, 'nothing changed');

      await section(page, 'email').getByRole('link', { name: 'Sign in again' }).click();
      await page.waitForURL((url) => url.pathname.startsWith('/ui/login/'));
      // prompt=login within the session: the account chooser offers this browser's account, then its password.
      const known = page.locator('[data-login-name]');
      if ((await known.count()) > 0) await known.first().click();
      await page.locator('input[name="password"]').waitFor();
      const name = page.locator('input[name="loginName"]');
      await submitLogin(page, (await name.count()) > 0 && !(await name.inputValue()) ? ada.userName : undefined, PASSWORD);
      await page.waitForURL((url) => url.pathname === '/ui/account');
      const fresh = `${unique('fresh')}@example.com`;
      await section(page, 'email').getByLabel('New e-mail address').fill(fresh);
      await section(page, 'email').getByRole('button', { name: 'Change the address' }).click();
      await notice(page).waitFor();
      assert.equal((await api('GET', `/users/${ada.userId}`)).body.email.email, fresh);
    } finally {
      await context.close();
    }
  });
});

describe('the account page counts e-mail changes against the login rate limits', () => {
  const { svc } = useServiceWithMail({ PUBLIC_URL: 'http://localhost:{port}', LOGIN_RATE_LIMIT_PER_LOGIN_NAME: '2' });
  let browser: Browser;

  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it('the third change within the window is refused with 429 and Retry-After, and changes nothing', async () => {
    const { orgId } = await orgWithApp(svc);
    const userName = unique('ada');
    const created = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName: 'Ada', lastName: 'L' }, email: { email: `${userName}@example.com` }, password: PASSWORD },
    });
    assert.equal(created.status, 201, created.text);
    const { context, page } = await newPage(browser);
    try {
      await page.goto(`${svc.config.publicUrl}/ui/account`);
      await submitLogin(page, userName, PASSWORD);
      await page.waitForURL((url) => url.pathname === '/ui/account');
      const change = async (email: string) => {
        const csrf = await page.locator('[data-account-section="email"] input[name="csrf"]').first().inputValue();
        return page.request.post(`${svc.config.publicUrl}/ui/account/email`, { form: { csrf, email }, maxRedirects: 0 });
      };
      assert.equal((await change(`${unique('one')}@example.com`)).status(), 303);
      const second = `${unique('two')}@example.com`;
      assert.equal((await change(second)).status(), 303);
      const refused = await change(`${unique('three')}@example.com`);
      assert.equal(refused.status(), 429);
      assert.ok(Number(refused.headers()['retry-after']) > 0);
      const stored = await svc.api('GET', `/management/v1/orgs/${orgId}/users/${created.body.userId}`, { token: svc.adminToken });
      assert.equal(stored.body.email.email, second, 'the refused change changed nothing');
    } finally {
      await context.close();
    }
  });
});
