import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { createOrg, searchEvents, useService } from '../support/fixtures.js';
import { addVirtualAuthenticator, authorize, launchBrowser, newPage, startRelyingParty, submitLogin } from './support/browser.js';
import type { Callback, RelyingParty } from './support/browser.js';
import { PASSWORD, createHuman, createOidcApp, createProject, discover } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { ACR_MFA, ACR_PASSWORD, setLoginPolicy, totpCode } from './support/second-factor.js';
import { formatText } from '../../src/texts/texts.js';

/**
 * Multi-factor sign-in as a person does it in Chromium (docs/product-rules.md, "Multi-factor sign-in"),
 * with openid-client as the relying party: TOTP enrolment from the secret on the page, recovery codes,
 * passkeys on Chromium's virtual authenticator (DevTools protocol, WebAuthn domain) as the only factor and
 * as the second, step-up with acr_values, and the `required` policy. WebAuthn needs a host name, so the
 * service's public URL is http://localhost.
 */
describe('multi-factor sign-in in Chromium: TOTP, recovery codes, passkeys, step-up, required policy', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let rp: RelyingParty;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  let config: oidc.Configuration;

  before(async () => {
    browser = await launchBrowser();
    rp = await startRelyingParty();
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, rp.url);
    config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
  });
  after(async () => {
    await browser?.close();
    await rp?.close();
  });

  async function newUser(orgId = project.orgId, primaryDomain = project.primaryDomain) {
    const user = await createHuman(svc, orgId);
    return { ...user, loginName: `${user.userName}@${primaryDomain}` };
  }

  function authUrl(state: string, params: Record<string, string> = {}, cfg = config): URL {
    return oidc.buildAuthorizationUrl(cfg, { redirect_uri: `${rp.url}/cb`, scope: 'openid', state, ...params });
  }

  async function claimsOf(cb: Callback, state: string, cfg = config) {
    const tokens = await oidc.authorizationCodeGrant(cfg, cb.url, { expectedState: state, idTokenExpected: true });
    return tokens.claims()!;
  }

  /** From the next page on, the browser reports no conditional mediation: passkeys only through the buttons. */
  async function withoutAutofill(page: Page): Promise<void> {
    await page.addInitScript(() => {
      // Runs in the page (the project's TypeScript has no DOM types).
      const page = globalThis as unknown as { PublicKeyCredential: { isConditionalMediationAvailable: () => Promise<boolean> } };
      page.PublicKeyCredential.isConditionalMediationAvailable = async () => false;
    });
  }

  /** On the offer (or the required enrolment) page: TOTP set up from the shown secret; returns it and the recovery codes. */
  async function enrolTotpOnPage(page: Page): Promise<{ secret: string; codes: string[] }> {
    await page.click('[data-totp-enrol]');
    const secret = (await page.textContent('[data-totp-secret]'))!.trim();
    const uri = (await page.getAttribute('[data-totp-uri]', 'data-totp-uri'))!;
    assert.equal(new URL(uri).searchParams.get('secret'), secret, 'the otpauth:// URI carries the shown secret');
    await page.fill('input[name="code"]', totpCode(secret));
    await page.click('button[type="submit"]');
    await page.waitForSelector('[data-recovery-code]');
    const codes = await page.$$eval('[data-recovery-code]', (els) => els.map((e) => e.textContent ?? ''));
    await page.click('button[type="submit"]');
    return { secret, codes };
  }

  async function enterCode(page: Page, code: string): Promise<void> {
    await page.waitForSelector('input[name="code"]');
    await page.fill('input[name="code"]', code);
    await page.click('button[type="submit"]');
  }

  it('TOTP: enrolled from the secret on the page, then asked at every sign-in; a recovery code works once', async () => {
    const user = await newUser();
    const ui = await newPage(browser);
    try {
      let enrolled: { secret: string; codes: string[] } = { secret: '', codes: [] };
      const first = await authorize(rp, ui.page, authUrl('t1'), async (page) => {
        await submitLogin(page, user.loginName, PASSWORD, { declineMfaOffer: false });
        enrolled = await enrolTotpOnPage(page);
      });
      assert.equal(enrolled.codes.length, 10);
      const claims = await claimsOf(first, 't1');
      assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
      assert.equal(claims.acr, ACR_MFA);

      const second = await authorize(rp, ui.page, authUrl('t2', { prompt: 'login' }), async (page) => {
        await submitLogin(page, user.loginName, PASSWORD, { declineMfaOffer: false });
        await enterCode(page, totpCode(enrolled.secret, 1));
      });
      assert.equal((await claimsOf(second, 't2')).acr, ACR_MFA);

      const recovered = await authorize(rp, ui.page, authUrl('t3', { prompt: 'login' }), async (page) => {
        await submitLogin(page, user.loginName, PASSWORD, { declineMfaOffer: false });
        await enterCode(page, enrolled.codes[0]);
      });
      assert.deepEqual((await claimsOf(recovered, 't3')).amr, ['pwd', 'otp', 'mfa']);

      const seen = rp.callbacks.length;
      await ui.page.goto(String(authUrl('t4', { prompt: 'login', ui_locales: 'de' })));
      await submitLogin(ui.page, user.loginName, PASSWORD, { declineMfaOffer: false });
      await enterCode(ui.page, enrolled.codes[0]);
      await ui.page.waitForSelector('[role="alert"]');
      assert.match((await ui.page.textContent('[role="alert"]')) ?? '', /schon verwendet/, 'a used recovery code is refused (in German)');
      assert.equal(await ui.page.textContent('h1'), 'Bestätigen Sie, dass Sie es sind');
      assert.equal(rp.callbacks.length, seen, 'nothing reached the relying party');

      // The person's own language speaks only once the first factor is done: the login page would otherwise tell
      // whoever types a login name that it exists, and in which country its owner lives.
      const profile = await svc.api('PATCH', `/management/v1/orgs/${project.orgId}/users/${user.userId}`, {
        token: svc.adminToken,
        body: { profile: { preferredLanguage: 'fr-CA' } },
      });
      assert.equal(profile.status, 200, profile.text);
      await ui.page.goto(String(authUrl('t5', { prompt: 'login' })));
      await ui.page.waitForSelector('input[name="loginName"]');
      assert.equal(await ui.page.getAttribute('html', 'lang'), 'en', 'the browser asks for English; the person is not known yet');
      await submitLogin(ui.page, user.loginName, PASSWORD, { declineMfaOffer: false });
      await ui.page.waitForSelector('input[name="code"]');
      assert.equal(await ui.page.getAttribute('html', 'lang'), 'fr');
      assert.equal(await ui.page.textContent('h1'), formatText('fr', 'login.secondFactorTitle'));
    } finally {
      await ui.context.close();
    }
  });

  it('passkeys: registered on the virtual authenticator, then the only factor (passwordless) and a second factor', async () => {
    const user = await newUser();
    const ui = await newPage(browser);
    try {
      await addVirtualAuthenticator(ui.page);
      const registered = await authorize(rp, ui.page, authUrl('p1'), async (page) => {
        await submitLogin(page, user.loginName, PASSWORD, { declineMfaOffer: false });
        await page.click('[data-passkey-register]');
        await page.waitForSelector('[data-recovery-code]');
        await page.click('button[type="submit"]');
      });
      const enrolled = await claimsOf(registered, 'p1');
      assert.deepEqual(enrolled.amr, ['pwd', 'hwk', 'user', 'mfa']);
      assert.equal(enrolled.acr, ACR_MFA);
      const factors = await svc.api('GET', `/management/v1/orgs/${project.orgId}/users/${user.userId}/factors`, { token: svc.adminToken });
      assert.deepEqual(factors.body.factors.map((f: { type: string }) => f.type).sort(), ['passkey', 'recovery_codes']);
      // Chromium's virtual authenticator reports no provider (an all-zero AAGUID): the fallback name.
      assert.match(factors.body.factors.find((f: { type: string }) => f.type === 'passkey').name, /^Passkey \(added \d{4}-\d{2}-\d{2}\)$/);

      // Passwordless through autofill (conditional mediation): the login page alone signs in, nothing typed.
      const autofilled = await authorize(rp, ui.page, authUrl('p2', { prompt: 'login' }));
      const alone = await claimsOf(autofilled, 'p2');
      assert.deepEqual(alone.amr, ['hwk', 'user', 'mfa'], 'a user-verified passkey alone');
      assert.equal(alone.acr, ACR_MFA);
      assert.equal(alone.sub, user.userId);

      // Passwordless through the login page's passkey button (a browser without autofill of passkeys).
      await withoutAutofill(ui.page);
      const clicked = await authorize(rp, ui.page, authUrl('p3', { prompt: 'login' }), async (page) => {
        assert.match((await page.getAttribute('input[name="loginName"]', 'autocomplete')) ?? '', /webauthn/, 'the login name field offers passkeys');
        await page.click('[data-passkey-login]');
      });
      assert.deepEqual((await claimsOf(clicked, 'p3')).amr, ['hwk', 'user', 'mfa']);

      // As the second factor after the password.
      const second = await authorize(rp, ui.page, authUrl('p4', { prompt: 'login' }), async (page) => {
        await submitLogin(page, user.loginName, PASSWORD, { declineMfaOffer: false });
        await page.waitForSelector('input[name="code"]');
        await page.click('[data-passkey-login]');
      });
      assert.deepEqual((await claimsOf(second, 'p4')).amr, ['pwd', 'hwk', 'user', 'mfa']);
      const checks = await searchEvents(svc, { event_types: ['user.human.mfa.check.succeeded'], aggregate_id: user.userId });
      assert.equal(checks.length, 3);
    } finally {
      await ui.context.close();
    }
  });

  it('after a refused passkey the login page offers passkeys again only on the user’s action: no reload loop', async () => {
    const user = await newUser();
    const ui = await newPage(browser);
    try {
      await addVirtualAuthenticator(ui.page);
      await authorize(rp, ui.page, authUrl('l1'), async (page) => {
        await submitLogin(page, user.loginName, PASSWORD, { declineMfaOffer: false });
        await page.click('[data-passkey-register]');
        await page.waitForSelector('[data-recovery-code]');
        await page.click('button[type="submit"]');
      });
      // The service forgets the passkey; the authenticator keeps it and answers every autofill request at once.
      const factorsPath = `/management/v1/orgs/${project.orgId}/users/${user.userId}/factors`;
      const passkey = (await svc.api('GET', factorsPath, { token: svc.adminToken })).body.factors.find((f: { type: string }) => f.type === 'passkey');
      assert.equal((await svc.api('DELETE', `${factorsPath}/${passkey.id}`, { token: svc.adminToken })).status, 204);

      // Count the login UI's loads only: the previous sign-in's callback page may still be loading.
      let loads = 0;
      ui.page.on('load', () => {
        if (new URL(ui.page.url()).pathname.startsWith('/ui/login')) loads++;
      });
      await ui.page.goto(String(authUrl('l2', { prompt: 'login' })));
      await ui.page.waitForSelector('[role="alert"]');
      await ui.page.waitForLoadState('networkidle');
      assert.equal(await ui.page.getAttribute('form[data-passkey-form]', 'data-autofill'), 'on-action');
      assert.equal(loads, 2, 'the login page, then the refused one: no further load');

      // The user's first key press offers passkeys again (one more refusal here), then the page waits again.
      await Promise.all([ui.page.waitForEvent('load'), ui.page.press('#loginName', 'a')]);
      await ui.page.waitForLoadState('networkidle');
      assert.equal(loads, 3);
      assert.match((await ui.page.textContent('[role="alert"]')) ?? '', /not accepted/);
    } finally {
      await ui.context.close();
    }
  });

  it("a captured assertion is refused under another sign-in and as another user's second factor, and the failure is counted", async () => {
    const owner = await newUser();
    const other = await newUser();
    const ui = await newPage(browser);
    const otherUi = await newPage(browser);
    try {
      await addVirtualAuthenticator(ui.page);
      await withoutAutofill(ui.page);
      await authorize(rp, ui.page, authUrl('c1'), async (page) => {
        await submitLogin(page, owner.loginName, PASSWORD, { declineMfaOffer: false });
        await page.click('[data-passkey-register]');
        await page.waitForSelector('[data-recovery-code]');
        await page.click('button[type="submit"]');
      });
      await authorize(rp, otherUi.page, authUrl('c2'), async (page) => {
        await submitLogin(page, other.loginName, PASSWORD, { declineMfaOffer: false });
        await enrolTotpOnPage(page);
      });
      // On a new sign-in's login page the browser signs an assertion with the owner's passkey; it is
      // taken instead of being posted (the page stays), valid for this sign-in's challenge.
      let captured = '';
      await ui.page.route('**/passkey', async (route) => {
        captured = new URLSearchParams(route.request().postData() ?? '').get('response') ?? '';
        await route.fulfill({ status: 204 });
      });
      await ui.page.goto(String(authUrl('c3', { prompt: 'login' })));
      await ui.page.click('[data-passkey-login]');
      for (let i = 0; i < 100 && !captured; i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(captured, 'an assertion was captured');
      await ui.page.unroute('**/passkey');

      const post = async (step: string, fields: Record<string, string>) => {
        const uid = /\/ui\/login\/([^/?#]+)/.exec(ui.page.url())![1];
        const csrf = (await ui.page.getAttribute('input[name="csrf"]', 'value'))!;
        return ui.context.request.post(`${svc.config.publicUrl}/ui/login/${uid}/${step}`, { form: { csrf, ...fields }, maxRedirects: 0 });
      };
      // The same sign-in continues with the other user's password: the owner's assertion is no second factor of theirs.
      await ui.page.fill('input[name="loginName"]', other.loginName);
      await ui.page.fill('input[name="password"]', PASSWORD);
      await ui.page.click('form[action$="/login"] button[type="submit"]');
      await ui.page.waitForSelector('input[name="code"]');
      const failedBefore = (await searchEvents(svc, { event_types: ['user.human.mfa.check.failed'], aggregate_id: other.userId })).length;
      const foreign = await post('passkey', { response: captured });
      assert.equal(foreign.status(), 401, "another user's passkey is refused");
      const failedAfter = (await searchEvents(svc, { event_types: ['user.human.mfa.check.failed'], aggregate_id: other.userId })).length;
      assert.equal(failedAfter - failedBefore, 1, 'and counted against the user signing in');

      // Another sign-in (another interaction, another challenge): refused.
      await ui.page.goto(String(authUrl('c4', { prompt: 'login' })));
      const replayed = await post('passkey', { response: captured });
      assert.equal(replayed.status(), 401, 'an assertion for another sign-in is refused');
      const ownerChecks = await searchEvents(svc, { event_types: ['user.human.mfa.check.succeeded'], aggregate_id: owner.userId });
      assert.equal(ownerChecks.length, 0, 'the captured assertion never signed anyone in');
    } finally {
      await ui.context.close();
      await otherUi.context.close();
    }
  });

  it('step-up: acr_values asks a password-only session for its second factor, without the password', async () => {
    const org = await createOrg(svc);
    const stepProject = await createProject(svc, org.id);
    const stepApp = await createOidcApp(svc, stepProject, { authMethod: 'client_secret_basic' }, rp.url);
    const stepConfig = await discover(svc, stepApp.clientId, oidc.ClientSecretBasic(stepApp.clientSecret!));
    const user = await newUser(org.id, org.primaryDomain);
    const ui = await newPage(browser);
    try {
      let secret = '';
      await authorize(rp, ui.page, authUrl('s1', {}, stepConfig), async (page) => {
        await submitLogin(page, user.loginName, PASSWORD, { declineMfaOffer: false });
        secret = (await enrolTotpOnPage(page)).secret;
      });
      await setLoginPolicy(svc, org.id, { mfa: 'off' });
      const pwd = await authorize(rp, ui.page, authUrl('s2', { prompt: 'login' }, stepConfig), (page) => submitLogin(page, user.loginName, PASSWORD));
      assert.equal((await claimsOf(pwd, 's2', stepConfig)).acr, ACR_PASSWORD);
      await setLoginPolicy(svc, org.id, { mfa: 'optional' });
      const stepped = await authorize(rp, ui.page, authUrl('s3', { acr_values: ACR_MFA }, stepConfig), async (page) => {
        assert.equal(await page.$('input[name="password"]'), null, 'no password asked');
        await enterCode(page, totpCode(secret, 1));
      });
      const claims = await claimsOf(stepped, 's3', stepConfig);
      assert.equal(claims.acr, ACR_MFA);
      assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
    } finally {
      await ui.context.close();
    }
  });

  it('policy required: a user without factors enrols before the authorization completes, with no way to skip', async () => {
    const org = await createOrg(svc);
    const reqProject = await createProject(svc, org.id);
    const reqApp = await createOidcApp(svc, reqProject, { authMethod: 'client_secret_basic' }, rp.url);
    const reqConfig = await discover(svc, reqApp.clientId, oidc.ClientSecretBasic(reqApp.clientSecret!));
    await setLoginPolicy(svc, org.id, { mfa: 'required' });
    const user = await newUser(org.id, org.primaryDomain);
    const ui = await newPage(browser);
    try {
      const cb = await authorize(rp, ui.page, authUrl('r1', {}, reqConfig), async (page) => {
        await submitLogin(page, user.loginName, PASSWORD, { declineMfaOffer: false });
        await page.waitForSelector('[data-totp-enrol]');
        assert.equal(await page.$('[data-mfa-skip]'), null, 'no skip under the required policy');
        await enrolTotpOnPage(page);
      });
      assert.equal((await claimsOf(cb, 'r1', reqConfig)).acr, ACR_MFA);
    } finally {
      await ui.context.close();
    }
  });
});
