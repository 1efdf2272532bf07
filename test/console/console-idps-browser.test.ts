import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../oidc/support/browser.js';
import { createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { SCREENSHOTS, consoleSteps, nothingMatches, searchList } from './support/console-browser.js';
import { idpMetadataXml } from '../federation/support/saml-metadata.js';
import { startUpstreamIdp } from '../federation/support/upstream-idp.js';
import { verifiedDomain } from '../federation/support/domains.js';

/** The confirmation every removal asks for (components.tsx, DeleteButton). */
const CONFIRM = 'Yes, delete';

/**
 * The console's federation pages (docs/federation.md): an organization owner adds an OpenID
 * Connect identity provider (choosing client_secret_post, and back to client_secret_basic in the edit form), reads the
 * redirect URI to register upstream and removes it again; a user's page lists
 * linked identities and unlinks one. Driven by accessible names; the secret never comes back to the page.
 */
describe('identity providers in the operator console (Chromium)', () => {
  // The issuer below is loopback: the switch lets it through the outbound check.
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let browser: Browser;
  let base: string;
  let orgId: string;
  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl.replace(/\/$/, '');
    mkdirSync(SCREENSHOTS, { recursive: true });
    orgId = (await createOrg(svc)).id;
    // Home-realm domains are verified domains of the organization (docs/federation.md, "Organization domains").
    for (const domain of ['contoso-console.example', 'contoso-renamed.example']) await verifiedDomain(svc, orgId, domain);
  });
  after(() => browser?.close());
  const { open, check, signIn } = consoleSteps({ browser: () => browser, base: () => base });
  const password = () => readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim();

  it('adds an OIDC identity provider, shows its redirect URI, never its secret, and removes it', async () => {
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', password());
      await page.goto(`${base}/console/orgs/${orgId}/users`);
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Identity providers' }).click();
      await page.getByRole('heading', { name: 'Identity providers', level: 1 }).waitFor();
      await page.getByText('No identity providers yet.').waitFor();

      const form = page.getByRole('form', { name: 'Add identity provider' });
      const name = unique('Contoso');
      await form.getByLabel('Name', { exact: true }).fill(name);
      await form.getByLabel('Issuer').fill('http://127.0.0.1:9/upstream');
      await form.getByLabel('Client ID').fill('portcullis');
      await form.getByLabel('Client secret').fill('console-secret-71c2');
      await form.getByLabel('Client authentication').selectOption('client_secret_post');
      await form.getByLabel('Domains for home-realm discovery (comma-separated, optional)').fill('contoso-console.example');
      await form.getByLabel('Link existing users by').selectOption('externalId');
      await form.getByLabel('Claim to match').fill('oid');
      await form.getByLabel('Create users at first sign-in').check();
      await form.getByRole('button', { name: 'Add identity provider' }).click();

      const added = page.getByRole('status').filter({ hasText: 'Identity provider added' });
      await added.waitFor();
      const [idp] = (await svc.api('GET', `/management/v1/orgs/${orgId}/idps`, { token: svc.adminToken })).body.idps;
      assert.equal(idp.name, name);
      assert.deepEqual(
        [idp.domains, idp.link, idp.jit, idp.mfa, idp.authMethod],
        [['contoso-console.example'], { by: 'externalId', from: 'oid' }, true, 'local', 'client_secret_post'],
      );
      assert.match((await added.textContent()) ?? '', new RegExp(`${base}/ui/login/idp/${idp.id}/callback`));
      const row = page.getByRole('table', { name: 'Identity providers' }).getByRole('row').filter({ hasText: name });
      await row.waitFor();
      assert.ok(!(await page.content()).includes('console-secret-71c2'), 'the secret is not shown');
      await check(page, 'org-idps');

      // The list finds it by a part of its name, any case, and says so when nothing matches (the server's `?query=`).
      await searchList(page, 'Identity providers', name.slice(3).toUpperCase());
      await row.waitFor();
      await searchList(page, 'Identity providers', 'nothing-like-it');
      await nothingMatches(page, 'nothing-like-it').waitFor();
      assert.equal(await row.count(), 0);
      await searchList(page, 'Identity providers', '');
      await row.waitFor();

      // The organization's domains, searched the same way.
      await page.goto(`${base}/console/orgs/${orgId}/domains`);
      const domains = page.getByRole('table', { name: 'Domains' });
      await domains.getByRole('rowheader', { name: 'contoso-console.example', exact: true }).waitFor();
      await searchList(page, 'Domains', 'RENAMED');
      await domains.getByRole('rowheader', { name: 'contoso-renamed.example', exact: true }).waitFor();
      await domains.getByRole('rowheader', { name: 'contoso-console.example', exact: true }).waitFor({ state: 'detached' });
      await page.goto(`${base}/console/orgs/${orgId}/idps`);
      await row.waitFor();

      await page.getByLabel('Language').selectOption('de');
      await page.getByRole('heading', { name: 'Identitätsanbieter', level: 1 }).waitFor();
      await check(page, 'org-idps-de');
      await page.getByLabel('Sprache').selectOption('en');

      // Edit: a new name and domain, no JIT, a new secret (never shown); the list follows.
      await row.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('form', { name: `Edit ${name}` });
      const renamed = unique('Contoso renamed');
      await edit.getByLabel('Name', { exact: true }).fill(renamed);
      await edit.getByLabel('Domains for home-realm discovery (comma-separated, optional)').fill('contoso-renamed.example');
      await edit.getByLabel('Create users at first sign-in').uncheck();
      await edit.getByLabel('Client authentication').selectOption('client_secret_basic');
      await edit.getByLabel('New client secret (empty: keep the stored one)').fill('console-secret-rotated-9');
      await edit.getByRole('button', { name: 'Save' }).click();
      const renamedRow = page.getByRole('table', { name: 'Identity providers' }).getByRole('row').filter({ hasText: renamed });
      await renamedRow.waitFor();
      const changed = (await svc.api('GET', `/management/v1/orgs/${orgId}/idps/${idp.id}`, { token: svc.adminToken })).body;
      assert.deepEqual(
        [changed.name, changed.domains, changed.jit, changed.link, changed.hasClientSecret, changed.authMethod],
        [renamed, ['contoso-renamed.example'], false, { by: 'externalId', from: 'oid' }, true, 'client_secret_basic'],
      );
      const [event] = await searchEvents(svc, { event_types: ['org.idp.changed'], aggregate_id: idp.id });
      assert.equal(event.payload.clientSecretChanged, true);
      assert.ok(!(await page.content()).includes('console-secret-rotated-9'), 'the new secret is not shown');

      await renamedRow.getByRole('button', { name: 'Delete' }).click();
      await renamedRow.getByRole('button', { name: CONFIRM }).click();
      await page.getByText('No identity providers yet.').waitFor();
      assert.equal((await svc.api('GET', `/management/v1/orgs/${orgId}/idps`, { token: svc.adminToken })).body.total, 0);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it("lists a user's linked identities and unlinks one", async () => {
    const idp = await svc.api('POST', `/management/v1/orgs/${orgId}/idps`, {
      token: svc.adminToken,
      body: { type: 'oidc', name: unique('Okta'), issuer: 'http://127.0.0.1:9/okta', clientId: 'portcullis', clientSecret: 'okta-secret' },
    });
    assert.equal(idp.status, 201, idp.text);
    const user = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName: unique('linked'), profile: { firstName: 'Lin', lastName: 'Ked' }, email: { email: 'linked@example.com' } },
    });
    const identities = `/management/v1/orgs/${orgId}/users/${user.body.userId}/identities`;
    assert.equal((await svc.api('POST', identities, { token: svc.adminToken, body: { idpId: idp.body.id, subject: 'okta-00u1' } })).status, 201);

    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', password());
      await page.goto(`${base}/console/orgs/${orgId}/users/${user.body.userId}`);
      const table = page.getByRole('table', { name: 'Linked identities' });
      await table.getByRole('row').filter({ hasText: 'okta-00u1' }).waitFor();
      await check(page, 'user-identities');
      await table.getByRole('button', { name: 'Unlink' }).click();
      await table.getByRole('button', { name: CONFIRM }).click();
      await page.getByText('No linked identities.').waitFor();
      assert.deepEqual((await svc.api('GET', identities, { token: svc.adminToken })).body.identities, []);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('adds a SAML identity provider by its metadata URL and shows the SP metadata, entity ID and ACS to hand over', async () => {
    const metadata = idpMetadataXml('https://idp.fabrikam.example/saml', 'https://idp.fabrikam.example/sso');
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(metadata));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', password());
      await page.goto(`${base}/console/orgs/${orgId}/idps`);
      const form = page.getByRole('form', { name: 'Add identity provider' });
      await form.getByLabel('Protocol').selectOption('saml');
      const name = unique('Fabrikam SAML');
      await form.getByLabel('Name', { exact: true }).fill(name);
      await form.getByLabel('Metadata URL of the identity provider').fill(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metadata`);
      assert.equal(await form.getByLabel('Client secret').count(), 0, 'no OIDC fields for SAML');
      await form.getByRole('button', { name: 'Add identity provider' }).click();
      const added = page.getByRole('status').filter({ hasText: 'Identity provider added' });
      await added.waitFor();
      const listed = (await svc.api('GET', `/management/v1/orgs/${orgId}/idps`, { token: svc.adminToken })).body.idps.find(
        (i: { name: string }) => i.name === name,
      );
      assert.equal(listed.type, 'saml');
      assert.equal(listed.entityId, 'https://idp.fabrikam.example/saml');
      const shown = (await added.textContent()) ?? '';
      for (const value of [listed.spMetadataUrl, listed.spEntityId, listed.acsUrl]) assert.ok(shown.includes(value), `${value} is shown`);
      await page.getByRole('table', { name: 'Identity providers' }).getByRole('row').filter({ hasText: name }).waitFor();
      await check(page, 'org-idps-saml');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('adds a SAML identity provider from pasted metadata XML; an IdP whose host does not resolve says it could not be reached yet', async () => {
    const unresolved = await svc.api('POST', `/management/v1/orgs/${orgId}/idps`, {
      token: svc.adminToken,
      body: { type: 'oidc', name: unique('Not yet'), issuer: 'https://login.not-yet.invalid/tenant', clientId: 'later', clientSecret: 'later-secret' },
    });
    assert.equal(unresolved.status, 201, unresolved.text);
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', password());
      await page.goto(`${base}/console/orgs/${orgId}/idps`);
      const table = page.getByRole('table', { name: 'Identity providers' });
      await table.getByRole('row').filter({ hasText: 'login.not-yet.invalid' }).getByText('Could not be reached yet').waitFor();

      const form = page.getByRole('form', { name: 'Add identity provider' });
      await form.getByLabel('Protocol').selectOption('saml');
      await form.getByRole('combobox', { name: /^Metadata/ }).selectOption('xml');
      assert.equal(await form.getByLabel('Metadata URL of the identity provider').count(), 0, 'no URL field for pasted XML');
      const name = unique('Pasted SAML');
      await form.getByLabel('Name', { exact: true }).fill(name);
      await form.getByLabel('Metadata XML of the identity provider').fill(idpMetadataXml('https://idp.pasted.example/saml', 'https://idp.pasted.example/sso'));
      await form.getByRole('button', { name: 'Add identity provider' }).click();
      const added = page.getByRole('status').filter({ hasText: 'Identity provider added' });
      await added.waitFor();
      const listed = (await svc.api('GET', `/management/v1/orgs/${orgId}/idps`, { token: svc.adminToken })).body.idps.find(
        (i: { name: string }) => i.name === name,
      );
      assert.deepEqual(
        [listed.type, listed.entityId, listed.ssoUrl, listed.metadataUrl, listed.reached],
        ['saml', 'https://idp.pasted.example/saml', 'https://idp.pasted.example/sso', null, true],
      );
      assert.ok(((await added.textContent()) ?? '').includes(listed.spMetadataUrl), 'the SP metadata URL is shown');
      const row = table.getByRole('row').filter({ hasText: name });
      await row.waitFor();
      assert.equal(await row.getByText('Could not be reached yet').count(), 0, 'pasted metadata needs no reaching');
      await check(page, 'org-idps-pasted-saml');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('a test sign-in opens the upstream in a new tab and ends on a page saying what a sign-in would do; the console stays signed in', async () => {
    const upstream = await startUpstreamIdp({ 'tester-sub': { preferred_username: 'tester' } });
    const { context, page, problems } = await open();
    try {
      const name = unique('Tested');
      const created = await svc.api('POST', `/management/v1/orgs/${orgId}/idps`, {
        token: svc.adminToken,
        body: { type: 'oidc', name, issuer: upstream.issuer, clientId: 'console-test', clientSecret: 'console-test-secret' },
      });
      assert.equal(created.status, 201, created.text);
      upstream.addClient({ client_id: 'console-test', client_secret: 'console-test-secret', redirect_uris: [created.body.callbackUrl] });
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', password());
      await page.goto(`${base}/console/orgs/${orgId}/idps`);
      const row = page.getByRole('table', { name: 'Identity providers' }).getByRole('row').filter({ hasText: name });
      await row.getByRole('button', { name: 'Test sign-in' }).click();
      const link = page.getByRole('link', { name: `Open the test sign-in through ${name}` });
      const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
      await tab.locator('[data-upstream-account]').fill('tester-sub');
      await tab.locator('[data-upstream-submit]').click();
      await tab.locator('[data-outcome="refused"]').waitFor();
      assert.match((await tab.textContent('main')) ?? '', /no_account/);
      assert.match((await tab.textContent('[data-subject]')) ?? '', /tester-sub/);
      // The operator's console is still the operator's.
      await page.reload();
      await page.getByRole('heading', { name: 'Identity providers', level: 1 }).waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
      await upstream.close();
    }
  });
});
