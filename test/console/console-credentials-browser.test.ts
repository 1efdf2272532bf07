import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../oidc/support/browser.js';
import { JWT_BEARER, jwtProfileAssertion } from '../oidc/support/jwt-profile.js';
import { postForm } from '../oidc/support/oidc-fixtures.js';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { SCREENSHOTS, consoleSteps } from './support/console-browser.js';

/**
 * The console's pages for editing users and for credentials (docs/console.md): a user's fields,
 * a machine user's personal access tokens, keys and secret, an application's keys. Driven by accessible
 * names only; every credential the console shows once is used against the service to prove it is the
 * real one, and refused after its removal.
 */
describe('users and credentials in the operator console (Chromium)', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let base: string;
  let orgId: string;
  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl.replace(/\/$/, '');
    mkdirSync(SCREENSHOTS, { recursive: true });
    orgId = (await createOrg(svc)).id;
  });
  after(() => browser?.close());
  const { open, check, signIn, signOut } = consoleSteps({ browser: () => browser, base: () => base });

  /** Signs the bootstrap admin in and opens `path` of the console. */
  async function asAdmin(page: Page, path: string): Promise<void> {
    const password = readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim();
    await page.goto(`${base}/console/`);
    await signIn(page, 'admin', password);
    await page.goto(`${base}${path}`);
  }

  /** GET /auth/v1/users/me with a bearer token, from outside the browser: the token's status. */
  const me = async (token: string) => (await fetch(`${base}/auth/v1/users/me`, { headers: { Authorization: `Bearer ${token}` } })).status;

  it("edits a person's display name, phone and language", async () => {
    const userName = unique('erika');
    const created = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName: 'Erika', lastName: 'Muster' }, email: { email: `${userName}@example.com`, isEmailVerified: true } },
    });
    assert.equal(created.status, 201, created.text);
    const userId = created.body.userId as string;
    const { context, page, problems } = await open();
    try {
      await asAdmin(page, `/console/orgs/${orgId}/users/${userId}`);
      await page.getByRole('heading', { name: 'User', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Edit user' }).click();
      const form = page.getByRole('form', { name: 'Edit user' });
      assert.equal(await form.getByLabel('First name').inputValue(), 'Erika', 'the form starts from the user as it is');
      await form.getByLabel('Display name').fill('Erika M.');
      await form.getByLabel('Preferred language').fill('de-CH');
      await form.getByLabel('Phone', { exact: true }).fill('+41 79 123 45 67');
      await check(page, 'user-edit');
      await form.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      await page.getByText('Erika M.', { exact: true }).waitFor();
      await page.getByText('de-CH', { exact: true }).waitFor();
      const read = await svc.api('GET', `/management/v1/orgs/${orgId}/users/${userId}`, { token: svc.adminToken });
      assert.equal(read.body.profile.displayName, 'Erika M.');
      assert.equal(read.body.profile.preferredLanguage, 'de-CH');
      assert.equal(read.body.phone.phone, '+41791234567', 'stored in E.164 form');
      assert.equal(read.body.email.isEmailVerified, true, 'an untouched e-mail keeps its verification');

      // A refused change says why, and changes nothing.
      await page.getByRole('button', { name: 'Edit user' }).click();
      await form.getByLabel('Preferred language').fill('not a language');
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByRole('alert').filter({ hasText: 'Error 400' }).waitFor();
      const again = await svc.api('GET', `/management/v1/orgs/${orgId}/users/${userId}`, { token: svc.adminToken });
      assert.equal(again.body.profile.preferredLanguage, 'de-CH');
      await signOut(page);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('gives a machine user a personal access token and a key, both shown once and working until removed', async () => {
    const { context, page, problems } = await open();
    try {
      await asAdmin(page, `/console/orgs/${orgId}/users`);
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'New machine user' }).click();
      const userName = unique('robot');
      await page.getByLabel('User name', { exact: true }).fill(userName);
      await page.getByLabel('Name', { exact: true }).fill('Robot');
      await page.getByRole('button', { name: 'Create user' }).click();
      await page.getByRole('heading', { name: 'User', level: 1 }).waitFor();
      await page.waitForURL(/\/users\/[^/]+$/);
      const userId = new URL(page.url()).pathname.split('/').pop()!;

      // Machine fields: name and description.
      await page.getByRole('button', { name: 'Edit user' }).click();
      const form = page.getByRole('form', { name: 'Edit user' });
      await form.getByLabel('Description').fill('Nightly export');
      await form.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Nightly export', { exact: true }).waitFor();

      // A personal access token, shown once, that the API takes…
      const pats = page.getByRole('region', { name: 'Personal access tokens' });
      await pats.getByRole('button', { name: 'Add token' }).click();
      const shown = pats.getByRole('textbox', { name: 'Personal access token' });
      await shown.waitFor();
      const token = await shown.inputValue();
      assert.equal(await me(token), 200, 'the token shown is a working one');
      await check(page, 'machine-credentials');
      await pats.getByRole('button', { name: 'Done' }).click();
      assert.equal(await pats.getByRole('textbox', { name: 'Personal access token' }).count(), 0, 'shown once: gone after Done');
      const patRow = pats.getByRole('table', { name: 'Personal access tokens' }).getByRole('row').nth(1);
      await patRow.waitFor();
      assert.match((await patRow.textContent()) ?? '', /never/);
      // …until it is removed (after a confirmation).
      await patRow.getByRole('button', { name: 'Remove' }).click();
      await patRow.getByRole('button', { name: 'Yes, delete' }).click();
      await pats.getByText('Nothing found.').waitFor();
      assert.equal(await me(token), 401, 'a removed token is refused');

      // A key with an expiry: the private key shown once, with copy and download; it signs a JWT profile grant (RFC 7523).
      const keys = page.getByRole('region', { name: 'Keys', exact: true });
      await keys.getByLabel('Expires (optional)').fill('2099-01-01T12:00');
      await keys.getByRole('button', { name: 'Add key' }).click();
      const privateKey = keys.getByRole('textbox', { name: 'Private key' });
      await privateKey.waitFor();
      const pem = await privateKey.inputValue();
      assert.match(pem, /-----BEGIN (RSA )?PRIVATE KEY-----/);
      const download = page.waitForEvent('download');
      await keys.getByRole('button', { name: 'Download' }).click();
      const file = await download;
      const details = JSON.parse(readFileSync(await file.path(), 'utf8')) as { type: string; keyId: string; key: string; userId: string };
      assert.equal(details.type, 'serviceaccount');
      assert.equal(details.userId, userId);
      assert.equal(details.key, pem);
      const grant = async () =>
        postForm(svc, '/oauth/v2/token', {
          grant_type: JWT_BEARER,
          assertion: await jwtProfileAssertion(svc, { userId, keyId: details.keyId, key: pem }),
          scope: 'openid',
        });
      assert.equal((await grant()).status, 200, 'the key shown signs a working assertion');
      await keys.getByRole('button', { name: 'Done' }).click();
      const keyRow = keys.getByRole('row').filter({ hasText: details.keyId });
      assert.match((await keyRow.textContent()) ?? '', /2099/);
      await keyRow.getByRole('button', { name: 'Remove' }).click();
      await keyRow.getByRole('button', { name: 'Yes, delete' }).click();
      await keys.getByText('Nothing found.').waitFor();
      assert.notEqual((await grant()).status, 200, 'a removed key signs nothing');

      // The client secret: generated, then removed.
      const secretPanel = page.getByRole('region', { name: 'Client secret', exact: true }).first();
      await secretPanel.getByRole('button', { name: 'Generate client secret' }).click();
      await secretPanel.getByRole('button', { name: 'Done' }).click();
      await secretPanel.getByRole('button', { name: 'Remove secret' }).click();
      await secretPanel.getByRole('button', { name: 'Yes, delete' }).click();
      await secretPanel.getByRole('status').filter({ hasText: 'The client secret is removed.' }).waitFor();
      await signOut(page);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('adds a key to a private_key_jwt API application and removes it; edits an OIDC application', async () => {
    const project = await svc.api('POST', `/management/v1/orgs/${orgId}/projects`, { token: svc.adminToken, body: { name: unique('Billing') } });
    assert.equal(project.status, 201, project.text);
    const projectId = project.body.id as string;
    const apiApp = await svc.api('POST', `/management/v1/orgs/${orgId}/projects/${projectId}/apps/api`, {
      token: svc.adminToken,
      body: { name: 'Billing API', authMethod: 'private_key_jwt' },
    });
    assert.equal(apiApp.status, 201, apiApp.text);
    const web = await svc.api('POST', `/management/v1/orgs/${orgId}/projects/${projectId}/apps/oidc`, {
      token: svc.adminToken,
      body: {
        name: 'Billing web',
        redirectUris: ['https://billing.example.com/cb'],
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
        authMethod: 'none',
      },
    });
    assert.equal(web.status, 201, web.text);
    const mobile = await svc.api('POST', `/management/v1/orgs/${orgId}/projects/${projectId}/apps/oidc`, {
      token: svc.adminToken,
      body: {
        name: 'Billing mobile',
        redirectUris: ['https://billing.example.com/cb'],
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
        authMethod: 'private_key_jwt',
      },
    });
    assert.equal(mobile.status, 201, mobile.text);
    const { context, page, problems } = await open();
    try {
      await asAdmin(page, `/console/orgs/${orgId}/projects/${projectId}`);
      await page.getByRole('heading', { name: 'Applications', level: 2 }).waitFor();
      await page.getByRole('row').filter({ hasText: 'Billing API' }).getByRole('button', { name: 'Keys' }).click();
      const keys = page.getByRole('region', { name: 'Keys of Billing API' });
      await keys.getByRole('button', { name: 'Add key' }).click();
      const privateKey = keys.getByRole('textbox', { name: 'Private key' });
      await privateKey.waitFor();
      assert.match(await privateKey.inputValue(), /PRIVATE KEY-----/);
      await check(page, 'application-keys');
      await keys.getByRole('button', { name: 'Done' }).click();
      const listed = await svc.api('GET', `/management/v1/orgs/${orgId}/projects/${projectId}/apps/${apiApp.body.appId}/keys`, { token: svc.adminToken });
      assert.equal(listed.body.total, 1);
      const keyRow = keys.getByRole('row').filter({ hasText: listed.body.keys[0].keyId });
      await keyRow.getByRole('button', { name: 'Remove' }).click();
      await keyRow.getByRole('button', { name: 'Yes, delete' }).click();
      await keys.getByText('Nothing found.').waitFor();
      const after = await svc.api('GET', `/management/v1/orgs/${orgId}/projects/${projectId}/apps/${apiApp.body.appId}/keys`, { token: svc.adminToken });
      assert.equal(after.body.total, 0);
      await page.getByRole('button', { name: 'Close keys' }).click();

      // The OIDC application's other fields: grant types, access token type, user info in the ID token.
      const webRow = page.getByRole('row').filter({ hasText: 'Billing web' });
      await webRow.getByRole('button', { name: 'Edit application' }).click();
      const form = webRow.getByRole('form', { name: 'Edit application' });
      await form.getByLabel('refresh_token').check();
      await form.getByLabel('Access token type').selectOption('jwt');
      await form.getByLabel('User info in the ID token').check();
      // The profiles of docs/oauth-profiles.md: the device grant, PAR, DPoP and back-channel logout.
      await form.getByLabel('urn:ietf:params:oauth:grant-type:device_code').check();
      await form.getByLabel('Require pushed authorization requests (PAR)').check();
      await form.getByLabel('DPoP-bound access tokens only').check();
      await form.getByLabel('Back-channel logout URI').fill('https://billing.example.com/backchannel-logout');
      await form.getByLabel('Logout tokens name the session (sid)').check();
      await check(page, 'application-edit');
      await form.getByRole('button', { name: 'Save' }).click();
      await webRow.getByRole('button', { name: 'Edit application' }).waitFor();
      const changed = await svc.api('GET', `/management/v1/orgs/${orgId}/projects/${projectId}/apps/${web.body.appId}`, { token: svc.adminToken });
      assert.deepEqual(changed.body.grantTypes, ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']);
      assert.equal(changed.body.requirePushedAuthorizationRequests, true);
      assert.equal(changed.body.dpopBoundAccessTokens, true);
      assert.equal(changed.body.backchannelLogoutUri, 'https://billing.example.com/backchannel-logout');
      assert.equal(changed.body.backchannelLogoutSessionRequired, true);
      assert.equal(changed.body.requireSignedRequestObject, false);
      assert.equal(changed.body.authorizationSignedResponseAlg, null);
      assert.equal(changed.body.accessTokenType, 'jwt');
      assert.equal(changed.body.idTokenUserinfoAssertion, true);
      assert.deepEqual(changed.body.redirectUris, ['https://billing.example.com/cb']);
      assert.equal(changed.body.subjectType, 'public');

      // Pairwise subjects (OIDC Core §8), which the device grant does not take.
      await webRow.getByRole('button', { name: 'Edit application' }).click();
      await form.getByLabel('urn:ietf:params:oauth:grant-type:device_code').uncheck();
      await form.getByLabel('Subject (sub)').selectOption('pairwise');
      await form.getByRole('button', { name: 'Save' }).click();
      await webRow.getByRole('button', { name: 'Edit application' }).waitFor();
      const pairwise = await svc.api('GET', `/management/v1/orgs/${orgId}/projects/${projectId}/apps/${web.body.appId}`, { token: svc.adminToken });
      assert.equal(pairwise.body.subjectType, 'pairwise');

      // The application's own keys (docs/oauth-profiles.md, "Client keys"): a JSON Web Key Set typed into the form.
      const jwk = { ...(await exportJWK((await generateKeyPair('ES256')).publicKey)), kid: 'console-key' };
      const mobileRow = page.getByRole('row').filter({ hasText: 'Billing mobile' });
      await mobileRow.getByRole('button', { name: 'Edit application' }).click();
      const mobileForm = mobileRow.getByRole('form', { name: 'Edit application' });
      await mobileForm.getByLabel("The application's own public keys").fill(JSON.stringify({ keys: [jwk] }));
      await mobileForm.getByRole('button', { name: 'Save' }).click();
      await mobileRow.getByRole('button', { name: 'Edit application' }).waitFor();
      const withKeys = await svc.api('GET', `/management/v1/orgs/${orgId}/projects/${projectId}/apps/${mobile.body.appId}`, { token: svc.adminToken });
      assert.deepEqual(withKeys.body.jwks, { keys: [jwk] });
      await signOut(page);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
