import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { SCREENSHOTS, consoleSteps } from '../console/support/console-browser.js';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitLogin } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { ENTERPRISE, USER_SCHEMA, scimTenant } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { unique } from '../support/fixtures.js';
import { linkIn, useServiceWithMail } from './support/mail-server.js';

/**
 * docs/mail.md in Chromium, as the people involved see it: an administrator invites an Entra-provisioned person from
 * the console; the person opens the mailed link (MailDev received it), chooses a password and signs in to an
 * application; someone who forgot a password follows "Forgot your password?" from the application's sign-in.
 */
describe('invitation and forgot password in Chromium', () => {
  const { svc, mail } = useServiceWithMail({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let rp: RelyingParty;
  let base: string;
  let tenant: ScimTenant;
  let app: OidcApp;

  before(async () => {
    [browser, rp] = await Promise.all([launchBrowser(), startRelyingParty()]);
    base = svc.config.publicUrl;
    mkdirSync(SCREENSHOTS, { recursive: true });
    tenant = await scimTenant(svc);
    app = await createOidcApp(svc, await createProject(svc, tenant.orgId), { authMethod: 'client_secret_basic' }, rp.url);
  });
  after(async () => {
    await Promise.all([browser?.close(), rp?.close()]);
  });
  const { open, check, signIn } = consoleSteps({ browser: () => browser, base: () => base });

  const authorizeUrl = () =>
    `${base}/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: `${rp.url}/cb`, response_type: 'code', scope: 'openid', state: unique('st'), code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`;

  /** The person opens the mailed link, chooses a password twice and sees it set. */
  const followLink = async (link: string, form: 'invitation' | 'password-reset', password: string) => {
    const { context, page } = await newPage(browser);
    try {
      await page.goto(link);
      await page.locator(`form[data-${form}]`).waitFor();
      await page.getByLabel(/^(New password|Neues Passwort)$/).fill(password);
      await page.getByLabel(/^(Repeat the password|Passwort wiederholen)$/).fill(password);
      await page.getByRole('button', { name: /Set the password|Passwort festlegen/ }).click();
      await page.locator('[data-password-set]').waitFor();
    } finally {
      await context.close();
    }
  };

  it('the console invites an Entra-provisioned person, who follows the mail, sets a password and signs in to an application', async () => {
    const email = `${unique('grace')}@contoso.example`;
    const provisioned = await tenant.scim('POST', '/Users', {
      body: {
        schemas: [USER_SCHEMA, ENTERPRISE],
        externalId: unique('oid'),
        userName: email,
        active: true,
        name: { givenName: 'Grace', familyName: 'Hopper' },
        emails: [{ primary: true, type: 'work', value: email }],
      },
    });
    assert.equal(provisioned.status, 201, provisioned.text);

    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim());
      await page.goto(`${base}/console/orgs/${tenant.orgId}/users/${provisioned.body.id}`);
      await page.locator('[data-email-verified="false"]').waitFor();
      await page.getByRole('button', { name: 'Send an invitation' }).click();
      await page.getByText('Invitation sent: the link in the mail works for 7 days.').waitFor();
      await page.getByRole('button', { name: 'Send a password reset' }).click();
      await page.getByText('Password reset sent: the link works for 1 hour; the current password works until then.').waitFor();
      await page.getByRole('button', { name: 'Send a verification link' }).click();
      await page.getByText('Verification link sent: it works for 24 hours.').waitFor();
      await check(page, 'user-invited');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }

    assert.match((await mail.waitFor(email, (m) => /confirm your e-mail address$/.test(m.subject))).text, /email-verification\?code=/);
    await followLink(linkIn(await mail.waitFor(email, (m) => /you are invited$/.test(m.subject))), 'invitation', 'Chosen by Grace 1');
    const person = await newPage(browser);
    try {
      const cb = await authorize(rp, person.page, authorizeUrl(), (p) => submitLogin(p, email, 'Chosen by Grace 1'));
      assert.ok(callbackParams(cb).get('code'), `signed in: ${cb.url}`);
    } finally {
      await person.context.close();
    }

    // Her session shows on her page in the console; the administrator ends it there.
    const admin = await open();
    try {
      await admin.page.goto(`${base}/console/`);
      await signIn(admin.page, 'admin', readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim());
      await admin.page.goto(`${base}/console/orgs/${tenant.orgId}/users/${provisioned.body.id}`);
      const sessions = admin.page.getByRole('table', { name: 'Sessions' });
      await sessions.getByRole('cell', { name: app.clientId }).waitFor();
      await check(admin.page, 'user-sessions');
      await sessions.getByRole('button', { name: 'End session' }).click();
      await admin.page.getByText('No live sessions.').waitFor();
      const left = await svc.api('GET', `/management/v1/orgs/${tenant.orgId}/users/${provisioned.body.id}/sessions`, { token: svc.adminToken });
      assert.deepEqual(left.body.sessions, []);
      assert.deepEqual(admin.problems, []);
    } finally {
      await admin.context.close();
    }
  });

  it('"Forgot your password?" on the sign-in page, the mailed link, a new password, and the sign-in goes on', async () => {
    const userName = unique('ada');
    const email = `${userName}@example.com`;
    const created = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName: 'Ada', lastName: 'Lovelace', preferredLanguage: 'de' }, email: { email }, password: 'Forgotten pass 1' },
    });
    assert.equal(created.status, 201, created.text);
    const { context, page } = await newPage(browser, { locale: 'de-DE' });
    try {
      const arrived = authorize(rp, page, authorizeUrl(), async (p) => {
        await p.getByRole('link', { name: 'Passwort vergessen?' }).click();
        await p.getByLabel('Loginname').fill(userName);
        await p.getByRole('button', { name: 'Link senden' }).click();
        await p.locator('[data-reset-requested]').waitFor();
        const message = await mail.waitFor(email);
        assert.match(message.subject, /: Passwort zurücksetzen$/, 'in the language the person prefers');
        await followLink(linkIn(message), 'password-reset', 'Remembered now 2');
        await p.getByRole('link', { name: 'Zurück zur Anmeldung' }).click();
        await submitLogin(p, userName, 'Remembered now 2');
      });
      assert.ok(callbackParams(await arrived).get('code'), 'the sign-in that started it goes on');
    } finally {
      await context.close();
    }
  });
});
