import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitLogin } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { createOidcApp, createProject, orgWithApp, postForm } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { searchEvents, unique } from '../support/fixtures.js';
import { startUpstreamIdp } from '../federation/support/upstream-idp.js';
import type { UpstreamIdp } from '../federation/support/upstream-idp.js';
import { linkIn, useServiceWithMail } from './support/mail-server.js';

const PASSWORD = 'Attacker pass 1';
const VICTIM = 'victim@fabrikam.example';

/**
 * The takeover of an address by an old link, in Chromium, as the attacker would try it (docs/mail.md, "Codes";
 * docs/product-rules.md, "Verified addresses"): a reset link to one's own mailbox, the account page moved to the
 * victim's address, the old link followed. The address must stay unverified, so that the victim, signing in through
 * the organization's identity provider that links by e-mail, never lands in the attacker's account.
 */
describe('an address takeover through an old link, in Chromium', () => {
  const { svc, mail } = useServiceWithMail({ PUBLIC_URL: 'http://localhost:{port}', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let browser: Browser;
  let rp: RelyingParty;
  let upstream: UpstreamIdp;
  let base: string;
  let orgId: string;
  let app: OidcApp;
  let idpId: string;

  before(async () => {
    // The upstream on another host name than the service's (localhost), as a company's IdP is.
    [browser, rp, upstream] = await Promise.all([
      launchBrowser(),
      startRelyingParty(),
      startUpstreamIdp(
        { 'victim-sub': { preferred_username: 'victim', given_name: 'Vic', family_name: 'Tim', email: VICTIM, email_verified: true } },
        { host: '127.0.0.1' },
      ),
    ]);
    base = svc.config.publicUrl;
    ({ orgId } = await orgWithApp(svc));
    app = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' }, rp.url);
    const idp = await svc.api('POST', `/management/v1/orgs/${orgId}/idps`, {
      token: svc.adminToken,
      body: {
        type: 'oidc',
        name: 'Fabrikam',
        issuer: upstream.issuer,
        clientId: 'portcullis',
        clientSecret: 'takeover-secret-1',
        link: { by: 'email', from: 'email' },
      },
    });
    assert.equal(idp.status, 201, idp.text);
    idpId = idp.body.id;
    upstream.addClient({ client_id: 'portcullis', client_secret: 'takeover-secret-1', redirect_uris: [idp.body.callbackUrl] });
  });
  after(async () => {
    await Promise.all([browser?.close(), rp?.close(), upstream?.close()]);
  });

  const api = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${orgId}${path}`, { token: svc.adminToken, body });
  const section = (page: Page, name: string) => page.locator(`[data-account-section="${name}"]`);

  async function person(email: string): Promise<{ userId: string; userName: string }> {
    const userName = unique('mallory');
    const created = await api('POST', '/users/human', {
      userName,
      profile: { firstName: 'Mallory', lastName: 'M' },
      email: { email, isEmailVerified: true },
      password: PASSWORD,
    });
    assert.equal(created.status, 201, created.text);
    return { userId: created.body.userId, userName };
  }

  const authorizeUrl = (verifier: string, scope = 'openid') =>
    `${base}/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: `${rp.url}/cb`, response_type: 'code', scope, state: unique('st'), code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' })}`;

  async function changeAddressOnAccountPage(page: Page, userName: string, email: string): Promise<void> {
    await page.goto(`${base}/ui/account`);
    await page.waitForURL((url) => url.pathname.startsWith('/ui/login/'));
    await submitLogin(page, userName, PASSWORD);
    await page.waitForURL((url) => url.pathname === '/ui/account');
    await section(page, 'email').getByLabel('New e-mail address').fill(email);
    await section(page, 'email').getByRole('button', { name: 'Change the address' }).click();
  }

  /** The code at the redirect URI exchanged as the application would: the tokens' subject and the user info. */
  async function signedInAs(code: string, verifier: string): Promise<{ sub: string; email?: string; email_verified?: boolean }> {
    const tokens = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'authorization_code', code, redirect_uri: `${rp.url}/cb`, code_verifier: verifier },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(tokens.status, 200, tokens.text);
    const userinfo = await fetch(`${base}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${tokens.body.access_token}` } });
    assert.equal(userinfo.status, 200);
    return (await userinfo.json()) as { sub: string; email?: string; email_verified?: boolean };
  }

  it('reset link asked for, address moved to the victim’s, old link followed: nothing verified, and the victim’s IdP sign-in does not land in the account', async () => {
    const ownAddress = `${unique('mallory')}@example.com`;
    const mallory = await person(ownAddress);
    let linkOfferedAForm: boolean;
    const attacker = await newPage(browser);
    try {
      const { page } = attacker;
      // 1. "Forgot your password?" from an application's sign-in: the link goes to Mallory's own mailbox.
      await page.goto(authorizeUrl(randomBytes(32).toString('base64url')));
      await page.locator('[data-forgot-password]').click();
      await page.fill('input[name="loginName"]', mallory.userName);
      await page.click('button[type="submit"]');
      await page.locator('[data-reset-requested]').waitFor();
      const resetLink = linkIn(await mail.waitFor(ownAddress, (m) => /reset your password$/.test(m.subject)));

      // 2. The account page: the address becomes the victim's (unverified, as every self-service change).
      await changeAddressOnAccountPage(page, mallory.userName, VICTIM);
      await section(page, 'email').locator('[data-email-verified="false"]').waitFor();

      // 3. The old link, used as far as it goes: where it still offers a form, Mallory sets a password with it.
      await page.goto(resetLink);
      await page.locator('form[data-password-reset], [data-error]').first().waitFor();
      linkOfferedAForm = (await page.locator('form[data-password-reset]').count()) > 0;
      if (linkOfferedAForm) {
        await page.fill('input[name="password"]', PASSWORD);
        await page.fill('input[name="passwordConfirm"]', PASSWORD);
        await page.click('button[type="submit"]');
        await page.locator('[data-password-set]').waitFor();
      } else {
        await page.locator('[data-error="invalid_link"]').waitFor();
      }
    } finally {
      await attacker.context.close();
    }

    // 4. What applications are told about Mallory.
    const asMallory = await newPage(browser);
    let malloryInfo: { sub: string; email?: string; email_verified?: boolean };
    try {
      const verifier = randomBytes(32).toString('base64url');
      const cb = await authorize(rp, asMallory.page, authorizeUrl(verifier, 'openid email'), (p) => submitLogin(p, mallory.userName, PASSWORD));
      malloryInfo = await signedInAs(callbackParams(cb).get('code')!, verifier);
    } finally {
      await asMallory.context.close();
    }

    // 5. The victim signs in through the organization's IdP, which links by a verified e-mail address.
    const victim = await newPage(browser);
    let victimLandedAs: string | null = null;
    try {
      const verifier = randomBytes(32).toString('base64url');
      const arrived = rp.next();
      await victim.page.goto(authorizeUrl(verifier));
      await victim.page.locator(`[data-idp="${idpId}"]`).click();
      await victim.page.locator('[data-upstream-account]').fill('victim-sub');
      await victim.page.locator('[data-upstream-submit]').click();
      // Back at the service: a refusal page, or (declining the offer of a second factor) on to the application.
      const refused = victim.page
        .locator('[data-error]')
        .waitFor()
        .then(() => 'refused' as const);
      const offered = victim.page
        .locator('[data-mfa-skip]')
        .waitFor()
        .then(() => victim.page.locator('[data-mfa-skip]').click())
        .then(() => arrived);
      const outcome = await Promise.race([refused, arrived, offered]);
      if (outcome !== 'refused') victimLandedAs = (await signedInAs(callbackParams(outcome).get('code')!, verifier)).sub;
    } finally {
      await victim.context.close();
    }

    assert.deepEqual(
      { linkOfferedAForm, malloryInfo: { sub: malloryInfo.sub, email: malloryInfo.email, email_verified: malloryInfo.email_verified }, victimLandedAs },
      { linkOfferedAForm: false, malloryInfo: { sub: mallory.userId, email: VICTIM, email_verified: false }, victimLandedAs: null },
      'the old link is dead, the address unverified, and the victim is refused rather than signed in as Mallory',
    );
    const identities = await api('GET', `/users/${mallory.userId}/identities`);
    assert.equal(identities.status, 200, identities.text);
    assert.deepEqual(identities.body.identities, [], 'no upstream identity was linked to Mallory');
    const refusals = await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idpId });
    assert.deepEqual(
      refusals.map((e) => e.payload.reason),
      ['no_account'],
    );
  });

  it('the account page refuses an address another user of the organization holds verified, and changes nothing', async () => {
    const held = `${unique('held')}@example.com`;
    await person(held);
    const ownAddress = `${unique('mallory')}@example.com`;
    const mallory = await person(ownAddress);
    const { context, page } = await newPage(browser);
    try {
      const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/ui/account/email');
      await changeAddressOnAccountPage(page, mallory.userName, held.toUpperCase());
      assert.equal((await answered).status(), 409);
      await section(page, 'email').getByRole('alert').getByText('verified for another user of the organization', { exact: false }).waitFor();
      assert.deepEqual((await api('GET', `/users/${mallory.userId}`)).body.email, { email: ownAddress, isEmailVerified: true });
    } finally {
      await context.close();
    }
  });
});
