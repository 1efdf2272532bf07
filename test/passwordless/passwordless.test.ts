import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addVirtualAuthenticator, authorize, callbackParams, launchBrowser, startRelyingParty } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { createOidcApp, createProject, postForm } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { USER_SCHEMA, scimTenant, userBody } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { searchEvents, unique } from '../support/fixtures.js';
import { linkIn, useServiceWithMail } from '../mail/support/mail-server.js';

/** The PKCE verifier of every authorization request here (RFC 7636 §4.1: 43 characters). */
const VERIFIER = 'passkeys-only-verifier-0123456789abcdefghijk';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * docs/passwordless.md: an organization whose login policy says `passwordless: "required"`. In Chromium with its
 * virtual authenticator (DevTools protocol, WebAuthn domain), a person is invited, creates a passkey from the mailed
 * link, signs in with it, loses it, and recovers with a mailed link and a recovery code — and no page ever has a
 * password field. Through the management API and SCIM, setting a password for such a person is 409 and changes
 * nothing. WebAuthn needs a host name, so the public URL is http://localhost; MailDev receives the mail.
 */
describe('passkeys only: enrolment, sign-in and recovery without a password, and no password set', () => {
  const { svc, mail } = useServiceWithMail({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let rp: RelyingParty;
  let tenant: ScimTenant;
  let app: OidcApp;

  before(async () => {
    [browser, rp] = await Promise.all([launchBrowser(), startRelyingParty()]);
    tenant = await scimTenant(svc);
    app = await createOidcApp(svc, await createProject(svc, tenant.orgId), { authMethod: 'client_secret_basic' }, rp.url);
    const policy = await svc.api('PUT', `/management/v1/orgs/${tenant.orgId}/login-policy`, {
      token: svc.adminToken,
      body: { mfa: 'off', passkeys: true, allowRegistration: true, passwordless: 'required' },
    });
    assert.equal(policy.status, 200, policy.text);
    assert.equal(policy.body.passwordless, 'required');
  });
  after(async () => {
    await Promise.all([browser?.close(), rp?.close()]);
  });

  const authorizeUrl = () =>
    `${svc.config.publicUrl}/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: `${rp.url}/cb`, response_type: 'code', scope: 'openid', state: unique('st'), code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'), code_challenge_method: 'S256' })}`;

  /**
   * A browser context with its own virtual platform authenticator (a device of the person's), passkeys only through
   * the buttons (no autofill), and a record of every page that showed a password field.
   */
  async function device(): Promise<{ context: BrowserContext; page: Page; passwordPages: string[] }> {
    const context = await browser.newContext({ locale: 'en-US' });
    const passwordPages: string[] = [];
    await context.exposeBinding('reportPasswordField', (_source, url: string) => void passwordPages.push(url));
    await context.addInitScript(() => {
      // Runs in the page (the project's TypeScript has no DOM types).
      const w = globalThis as unknown as {
        document: { addEventListener(type: string, f: () => void): void; querySelector(s: string): unknown };
        location: { href: string };
        reportPasswordField(url: string): void;
        PublicKeyCredential?: { isConditionalMediationAvailable: () => Promise<boolean> };
      };
      w.document.addEventListener('DOMContentLoaded', () => {
        if (w.document.querySelector('input[type="password"]')) w.reportPasswordField(w.location.href);
      });
      if (w.PublicKeyCredential) w.PublicKeyCredential.isConditionalMediationAvailable = async () => false;
    });
    const page = await context.newPage();
    await addVirtualAuthenticator(page);
    return { context, page, passwordPages };
  }

  /** A person of the organization with an e-mail address and no password, and the invitation mailed to it. */
  async function invitedPerson(): Promise<{ userId: string; email: string; loginName: string; link: string }> {
    const userName = unique('grace');
    const email = `${userName}@example.com`;
    const created = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName: 'Grace', lastName: 'Hopper' }, email: { email } },
    });
    assert.equal(created.status, 201, created.text);
    const invited = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/users/${created.body.userId}/invite`, { token: svc.adminToken, body: {} });
    assert.equal(invited.status, 202, invited.text);
    const message = await mail.waitFor(email, (m) => /you are invited$/.test(m.subject));
    assert.match(message.text, /Create a passkey to sign in; you will not need a password\./);
    assert.doesNotMatch(message.text, /Choose your password/);
    return { userId: created.body.userId, email, loginName: userName, link: linkIn(message) };
  }

  /** The tokens of a code from the sign-in, as the application gets them (PKCE with authorizeUrl's challenge). */
  async function tokensOf(code: string | null): Promise<{ access_token: string }> {
    assert.ok(code, 'a code at the application');
    const res = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'authorization_code', code, redirect_uri: `${rp.url}/cb`, code_verifier: VERIFIER },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  }
  const active = async (token: string) =>
    (await postForm(svc, '/oauth/v2/introspect', { token }, { id: app.clientId, secret: app.clientSecret! })).body.active as boolean;

  it('an invited person creates a passkey from the mail, signs in, loses it and recovers with a mailed link and a recovery code', async () => {
    const person = await invitedPerson();
    const first = await device();
    let codes: string[] = [];
    let firstToken = '';
    const second = await device();
    try {
      // The invitation's page creates a passkey; the recovery codes made with it are shown once.
      await first.page.goto(person.link);
      await first.page.locator('form[data-passkey-link]').waitFor();
      await first.page.click('[data-passkey-register]');
      await first.page.locator('[data-passkey-ready]').waitFor();
      assert.equal(await first.page.locator('[data-passkeys-replaced]').count(), 0, 'a first passkey replaced nothing');
      codes = await first.page.$$eval('[data-recovery-code]', (els) => els.map((e) => e.textContent ?? ''));
      assert.equal(codes.length, 10);

      // Sign-in with the discoverable passkey from the sign-in page, which has no password field.
      const signedIn = await authorize(rp, first.page, authorizeUrl(), async (p) => {
        await p.locator('[data-passkey-recovery]').waitFor();
        await p.click('[data-passkey-login]');
      });
      assert.ok(callbackParams(signedIn).get('code'), `signed in: ${signedIn.url}`);

      // And after typing the login name: the same page again with the name, then the passkey.
      const afterName = await authorize(rp, first.page, `${authorizeUrl()}&prompt=login`, async (p) => {
        await p.fill('input[name="loginName"]', person.loginName);
        await p.click('button[type="submit"]');
        await p.waitForURL((u) => u.pathname.endsWith('/login'));
        assert.equal(await p.inputValue('input[name="loginName"]'), person.loginName);
        await p.click('[data-passkey-login]');
      });
      assert.ok(callbackParams(afterName).get('code'), `signed in after the login name: ${afterName.url}`);
      firstToken = (await tokensOf(callbackParams(afterName).get('code'))).access_token;
      assert.equal(await active(firstToken), true);
      assert.deepEqual(first.passwordPages, [], 'no page had a password field');

      // A new device: the passkey is lost (the first device is, say, stolen: its session and passkey still there).
      // "Lost your passkey?" mails a link; the link and a recovery code create a new one.
      await second.page.goto(authorizeUrl());
      await second.page.click('[data-passkey-recovery]');
      await second.page.fill('input[name="loginName"]', person.loginName);
      await second.page.click('button[type="submit"]');
      await second.page.locator('[data-recovery-requested]').waitFor();
      const message = await mail.waitFor(person.email, (m) => /create a new passkey$/.test(m.subject));
      await second.page.goto(linkIn(message));
      await second.page.locator('form[data-passkey-link]').waitFor();

      // A wrong recovery code: refused, and no passkey is stored.
      await second.page.fill('input[name="recoveryCode"]', 'aaaa-bbbb-cccc');
      const refused = second.page.waitForResponse((r) => r.request().method() === 'POST');
      await second.page.click('[data-passkey-register]');
      assert.equal((await refused).status(), 401);
      await second.page.locator('[role="alert"]').waitFor();
      const factorsPath = `/management/v1/orgs/${tenant.orgId}/users/${person.userId}/factors`;
      const passkeys = async () =>
        (await svc.api('GET', factorsPath, { token: svc.adminToken })).body.factors.filter((f: { type: string }) => f.type === 'passkey').length;
      assert.equal(await passkeys(), 1);

      const [lost] = (await svc.api('GET', factorsPath, { token: svc.adminToken })).body.factors.filter((f: { type: string }) => f.type === 'passkey');
      await second.page.fill('input[name="recoveryCode"]', codes[0]);
      await second.page.click('[data-passkey-register]');
      await second.page.locator('[data-passkey-ready]').waitFor();
      assert.match(await second.page.locator('[data-passkeys-replaced]').innerText(), /earlier passkeys no longer work/);

      // The new passkey replaces the lost one, and every session and token of the person ended, with the events.
      const left = (await svc.api('GET', factorsPath, { token: svc.adminToken })).body.factors.filter((f: { type: string }) => f.type === 'passkey');
      assert.equal(left.length, 1);
      assert.notEqual(left[0].id, lost.id, 'the lost passkey is removed');
      assert.equal(await active(firstToken), false, 'the token issued before the recovery ended');
      const payloads = async (type: string) => (await searchEvents(svc, { aggregate_id: person.userId, event_types: [type] })).map((e) => e.payload);
      assert.deepEqual((await payloads('user.human.passkeys.replaced')).map((p) => p.method).sort(), ['invitation', 'recovery']);
      // The person is told, in a notice without a link: if it was not them, they know to ask.
      const notice = await mail.waitFor(person.email, (m) => /your passkeys were replaced$/.test(m.subject));
      assert.match(notice.text, /passkeys you had before no longer work/);
      assert.doesNotMatch(notice.text, /https?:\/\//, 'no link in a notice');
      assert.deepEqual(await payloads('user.human.mfa.removed'), [{ factorId: lost.id, type: 'passkey', signInFactors: 1 }]);
      assert.ok(
        (await payloads('user.human.mfa.added')).some((p) => p.factorId === left[0].id && p.signInFactors === 2),
        'added before the lost one went',
      );

      // On the lost device, the session is gone: the browser's remembered account to choose, not the application;
      // and the lost passkey is refused.
      const arrived = rp.callbacks.length;
      await first.page.goto(authorizeUrl());
      await first.page.locator('[data-login-name]').waitFor();
      await first.page.click('a[href="?form=login"]');
      await first.page.locator('[data-passkey-recovery]').waitFor();
      await first.page.click('[data-passkey-login]');
      await first.page.locator('[role="alert"]').waitFor();
      assert.equal(rp.callbacks.length, arrived, 'nothing reached the application');

      // The link works once.
      const again = await svc.api('GET', new URL(linkIn(message)).pathname + new URL(linkIn(message)).search, {});
      assert.equal(again.status, 400);

      const recovered = await authorize(rp, second.page, authorizeUrl(), (p) => p.click('[data-passkey-login]'));
      assert.ok(callbackParams(recovered).get('code'), `signed in with the new passkey: ${recovered.url}`);

      // The account page of a passkeys-only person has no password section (docs/passwordless.md, "No passwords").
      await second.page.waitForURL((u) => u.pathname === '/cb');
      await second.page.goto(`${svc.config.publicUrl}/ui/account`);
      await second.page.locator('[data-account-section="factors"]').waitFor();
      assert.equal(await second.page.locator('[data-account-section="password"]').count(), 0);
      assert.equal(await second.page.locator('input[type="password"]').count(), 0);
      assert.equal(await second.page.locator('[data-factor="passkey"]').count(), 1);
      assert.deepEqual([...first.passwordPages, ...second.passwordPages], [], 'no page had a password field');
    } finally {
      await Promise.all([first.context.close(), second.context.close()]);
    }
  });

  it('setting a password for a passkeys-only person is 409 by every door, and changes nothing', async () => {
    const person = await invitedPerson();
    const userPath = `/management/v1/orgs/${tenant.orgId}/users/${person.userId}`;
    const before = await svc.api('GET', userPath, { token: svc.adminToken });

    const put = await svc.api('PUT', `${userPath}/password`, { token: svc.adminToken, body: { password: 'Chosen by admin 1' } });
    assert.equal(put.status, 409, put.text);
    assert.match(put.text, /passkeys only/);

    const userName = unique('ada');
    const create = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName: 'Ada', lastName: 'Lovelace' }, email: { email: `${userName}@example.com` }, password: 'Chosen at create 1' },
    });
    assert.equal(create.status, 409, create.text);
    const found = await tenant.scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    assert.equal(found.body.totalResults, 0, 'nobody was created');

    const scimName = unique('scim');
    const scimCreate = await tenant.scim('POST', '/Users', { body: userBody(scimName, { password: 'Chosen by SCIM 1' }) });
    assert.equal(scimCreate.status, 409, scimCreate.text);
    assert.equal((await tenant.scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${scimName}"`)}`)).body.totalResults, 0);

    const patch = await tenant.scim('PATCH', `/Users/${person.userId}`, {
      body: {
        schemas: [PATCH_OP],
        Operations: [
          { op: 'replace', path: 'displayName', value: 'Changed along' },
          { op: 'replace', path: 'password', value: 'Chosen by SCIM 2' },
        ],
      },
    });
    assert.equal(patch.status, 409, patch.text);
    const scimUser = await tenant.scim('GET', `/Users/${person.userId}`);
    const replaced = await tenant.scim('PUT', `/Users/${person.userId}`, {
      body: { schemas: [USER_SCHEMA], userName: scimUser.body.userName, emails: scimUser.body.emails, active: true, password: 'Chosen by SCIM 3' },
    });
    assert.equal(replaced.status, 409, replaced.text);

    const after = await svc.api('GET', userPath, { token: svc.adminToken });
    assert.deepEqual(after.body, before.body, 'the person is unchanged');

    // `allowed` takes passwords again; passkeys only needs passkeys.
    const refused = await svc.api('PUT', `/management/v1/orgs/${tenant.orgId}/login-policy`, {
      token: svc.adminToken,
      body: { mfa: 'off', passkeys: false, allowRegistration: false, passwordless: 'required' },
    });
    assert.equal(refused.status, 400, refused.text);
    const bad = await svc.api('PUT', `/management/v1/orgs/${tenant.orgId}/login-policy`, {
      token: svc.adminToken,
      body: { mfa: 'off', passkeys: true, allowRegistration: false, passwordless: 'always' },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.equal((await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/login-policy`, { token: svc.adminToken })).body.passwordless, 'required');
  });
});
