import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { newSelfSignedCredentials } from '../../src/common/crypto/self-signed-credentials.js';
import { launchBrowser } from '../oidc/support/browser.js';
import { createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { SCREENSHOTS, consoleSteps } from './support/console-browser.js';
import { mellonMetadata } from '../saml/support/sp-metadata.js';

/**
 * SAML applications in the operator console (docs/console.md, "SAML applications"; docs/saml.md): an organization owner
 * creates one from the service provider's pasted metadata, reads on its page what to hand to the SP — the IdP's entity
 * id, SSO and metadata URLs and the certificate that signs now — and edits it; a bad value shows beside its field and
 * creates nothing. By accessible names; every outcome checked through the API or the live metadata.
 */
describe('SAML applications in the operator console (Chromium)', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let base: string;
  let orgId: string;
  let projectId: string;
  let spCertificate: string;
  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl.replace(/\/$/, '');
    mkdirSync(SCREENSHOTS, { recursive: true });
    orgId = (await createOrg(svc)).id;
    const project = await svc.api('POST', `/management/v1/orgs/${orgId}/projects`, { token: svc.adminToken, body: { name: unique('Intranet') } });
    assert.equal(project.status, 201, project.text);
    projectId = project.body.id;
    spCertificate = (await newSelfSignedCredentials('console test SP')).certificatePem;
  });
  after(() => browser?.close());
  const { open, check, signIn } = consoleSteps({ browser: () => browser, base: () => base });
  const password = () => readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim();
  const appsPath = () => `/management/v1/orgs/${orgId}/projects/${projectId}/apps`;
  const base64Der = (pem: string) => new X509Certificate(pem).raw.toString('base64');

  /** Signs the bootstrap admin in and opens the project's applications. */
  async function projectPage(page: Page): Promise<void> {
    await page.goto(`${base}/console/`);
    await signIn(page, 'admin', password());
    await page.goto(`${base}/console/orgs/${orgId}/projects/${projectId}`);
    await page.getByRole('heading', { name: 'Applications', level: 2 }).waitFor();
  }

  it("creates one from the SP's pasted metadata; its page shows the IdP's URLs and signing certificate; an edit changes the NameID format and the ACS URLs", async () => {
    const name = unique('Mellon wiki');
    const entityId = `https://${unique('wiki')}.example.com/mellon/metadata`;
    const { context, page, problems } = await open();
    try {
      await projectPage(page);
      await page.getByRole('button', { name: 'New SAML application' }).click();
      const create = page.getByRole('form', { name: 'New SAML application' });
      await create.getByLabel('Name', { exact: true }).fill(name);
      assert.equal(await create.getByRole('radio', { name: "Paste the service provider's metadata" }).isChecked(), true, 'pasted metadata is the first choice');
      await create.getByLabel("Service provider's metadata (XML)").fill(mellonMetadata(entityId, 'https://wiki.example.com/mellon', base64Der(spCertificate)));
      await create.getByRole('button', { name: 'Add attribute' }).click();
      const attribute = create.getByRole('group', { name: 'Attribute 1' });
      await attribute.getByLabel('Attribute name').fill('urn:oid:0.9.2342.19200300.100.1.3');
      await attribute.getByLabel('Value from').selectOption('email');
      await attribute.getByLabel('Name format').selectOption('uri');
      await check(page, 'saml-application-new');
      await create.getByRole('button', { name: 'Create application' }).click();

      // The new application's page.
      await page.getByRole('heading', { name: `Application ${name}`, level: 1 }).waitFor();
      const appId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
      assert.equal(new URL(page.url()).pathname, `/console/orgs/${orgId}/projects/${projectId}/apps/${appId}`);

      // What the API stored: the metadata's values, the attribute typed in, the defaults for the rest.
      const path = `${appsPath()}/${encodeURIComponent(appId)}`;
      const stored = (await svc.api('GET', path, { token: svc.adminToken })).body;
      assert.equal(stored.name, name);
      assert.equal(stored.type, 'saml');
      assert.equal(stored.entityId, entityId);
      assert.deepEqual(stored.acsUrls, ['https://wiki.example.com/mellon/postResponse']);
      assert.equal(stored.sloUrl, 'https://wiki.example.com/mellon/logout');
      assert.equal(stored.nameIdFormat, 'transient');
      assert.equal(stored.requireSignedRequests, true);
      assert.deepEqual([stored.signAssertion, stored.signResponse, stored.encryptAssertion, stored.allowIdpInitiated], [true, true, false, false]);
      assert.equal(new X509Certificate(stored.spCertificate).fingerprint256, new X509Certificate(spCertificate).fingerprint256);
      assert.deepEqual(stored.attributes, [{ name: 'urn:oid:0.9.2342.19200300.100.1.3', from: 'email', nameFormat: 'uri' }]);

      // What the service provider is told, as the API answers it.
      const details = page.getByRole('region', { name: 'Connection details' });
      const value = (label: string) => details.getByRole('textbox', { name: label, exact: true }).inputValue();
      assert.equal(await value('IdP entity ID'), stored.idpEntityId);
      assert.equal(await value('Single sign-on URL'), stored.ssoUrl);
      assert.equal(await value('IdP metadata URL'), `${base}/saml/v2/${orgId}/metadata`);
      assert.equal(await value('SP entity ID'), entityId);
      assert.equal(await value('Assertion consumer service (ACS)'), 'https://wiki.example.com/mellon/postResponse');

      // The certificate shown is the first of the live metadata, and it is the key that signs now.
      const certificate = page.getByRole('region', { name: 'IdP signing certificate' });
      const pemBox = certificate.getByRole('textbox', { name: 'IdP signing certificate (PEM)', exact: true });
      await pemBox.waitFor();
      const pem = await pemBox.inputValue();
      assert.match(pem, /^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE-----\n$/);
      const shown = new X509Certificate(pem);
      const metadata = await (await fetch(`${base}/saml/v2/${orgId}/metadata`)).text();
      const first = /<ds:X509Certificate>([^<]+)<\/ds:X509Certificate>/.exec(metadata)![1]!.replace(/\s+/g, '');
      assert.equal(shown.raw.toString('base64'), first, 'the first certificate of the metadata');
      const keys = await svc.api('GET', '/admin/v1/saml/keys', { token: svc.adminToken });
      const active = keys.body.keys.find((k: { status: string }) => k.status === 'active');
      assert.equal(shown.fingerprint256.replace(/:/g, '').toLowerCase(), active.keyId.toLowerCase(), 'the active signing key');
      assert.equal(
        await certificate.getByRole('textbox', { name: 'SHA-256 fingerprint of the IdP signing certificate', exact: true }).inputValue(),
        shown.fingerprint256,
      );
      await certificate.getByRole('button', { name: 'Copy IdP signing certificate (PEM)', exact: true }).click();
      await certificate.getByRole('status').filter({ hasText: 'IdP signing certificate (PEM) copied to the clipboard.' }).waitFor();
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), pem);

      const settings = page.getByRole('region', { name: 'Settings' });
      assert.equal(await settings.locator('[data-setting="nameIdFormat"]').innerText(), 'transient');
      assert.equal(await settings.locator('[data-setting="requireSignedRequests"]').innerText(), 'yes');
      assert.equal(await settings.locator('[data-setting="sloUrl"]').innerText(), 'https://wiki.example.com/mellon/logout');
      await check(page, 'saml-application-page');

      // The edit: another NameID format, the ACS URL replaced and one added.
      await settings.getByRole('button', { name: 'Edit application' }).click();
      const edit = settings.getByRole('form', { name: 'Edit application' });
      assert.equal(await edit.getByLabel('SP entity ID').inputValue(), entityId);
      assert.equal(await edit.getByLabel('NameID format').inputValue(), 'transient');
      assert.equal(await edit.getByRole('checkbox', { name: 'Require signed authentication requests (needs the certificate)' }).isChecked(), true);
      await edit.getByLabel('NameID format').selectOption('emailAddress');
      const acsUrls = ['https://wiki.example.com/mellon/postResponse2', 'http://localhost:8081/mellon/postResponse'];
      await edit.getByLabel('Assertion consumer service URLs (one per line)').fill(acsUrls.join('\n'));
      await check(page, 'saml-application-edit');
      await edit.getByRole('button', { name: 'Save' }).click();
      await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      await settings.locator('[data-setting="nameIdFormat"]', { hasText: 'emailAddress' }).waitFor();
      assert.equal(await value('Assertion consumer service (ACS) 1'), acsUrls[0]);
      assert.equal(await value('Assertion consumer service (ACS) 2'), acsUrls[1]);

      const changed = (await svc.api('GET', path, { token: svc.adminToken })).body;
      assert.equal(changed.nameIdFormat, 'emailAddress');
      assert.deepEqual(changed.acsUrls, acsUrls);
      assert.deepEqual({ ...changed, nameIdFormat: stored.nameIdFormat, acsUrls: stored.acsUrls }, stored, 'nothing else changed');
      // Only the changed fields were sent: the change event names exactly those.
      const [event] = await searchEvents(svc, { aggregate_id: appId, event_types: ['project.application.changed'], asc: false, limit: 1 });
      assert.deepEqual(Object.keys(event!.payload).sort(), ['acsUrls', 'clientId', 'nameIdFormat', 'projectId']);

      // Saving again without a change sends nothing.
      await settings.getByRole('button', { name: 'Edit application' }).click();
      await settings.getByRole('form', { name: 'Edit application' }).getByRole('button', { name: 'Save' }).click();
      await settings.getByRole('button', { name: 'Edit application' }).waitFor();
      const events = await searchEvents(svc, { aggregate_id: appId, event_types: ['project.application.changed'], asc: false, limit: 10 });
      assert.equal(events.length, 1, 'no second change');

      // An emptied single logout URL is removed (sent as null); a landing page for IdP-initiated sign-in is set.
      await settings.getByRole('button', { name: 'Edit application' }).click();
      const again = settings.getByRole('form', { name: 'Edit application' });
      await again.getByLabel('Single logout URL (optional)').fill('');
      await again.getByLabel('Landing page after IdP-initiated sign-in', { exact: false }).fill('/wiki/home');
      await again.getByRole('button', { name: 'Save' }).click();
      await settings.locator('[data-setting="sloUrl"]', { hasText: 'not set' }).waitFor();
      assert.equal(await settings.locator('[data-setting="idpInitiatedRelayState"]').innerText(), '/wiki/home');
      const cleared = (await svc.api('GET', path, { token: svc.adminToken })).body;
      assert.equal(cleared.sloUrl, null);
      assert.equal(cleared.idpInitiatedRelayState, '/wiki/home');
      assert.equal(cleared.requireSignedRequests, true, 'the rest unchanged');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('a bad entity id shows beside its field, a bad value in pasted metadata beside the metadata, and nothing is created', async () => {
    const name = unique('Bad SP');
    const count = async () => (await svc.api('GET', appsPath(), { token: svc.adminToken })).body.apps.filter((a: { name: string }) => a.name === name).length;
    const { context, page, problems } = await open();
    try {
      await projectPage(page);
      await page.getByRole('button', { name: 'New SAML application' }).click();
      const create = page.getByRole('form', { name: 'New SAML application' });
      await create.getByLabel('Name', { exact: true }).fill(name);
      await create.getByRole('radio', { name: 'Enter its settings' }).check();
      await create.getByLabel('SP entity ID').fill('not a uri');
      await create.getByLabel('Assertion consumer service URLs (one per line)').fill('https://bad.example.com/acs');
      await create.getByRole('button', { name: 'Create application' }).click();

      const error = create.locator('[data-field-error="entityId"]');
      await error.waitFor();
      assert.match(await error.innerText(), /absolute URI/);
      const entityField = create.getByLabel('SP entity ID');
      assert.equal(await entityField.getAttribute('aria-invalid'), 'true');
      assert.equal(await entityField.getAttribute('aria-describedby'), await error.getAttribute('id'), 'the error describes the field');
      await create.getByRole('alert').first().waitFor();
      assert.equal(await create.locator('[data-field-error]').count(), 1, 'only the entity id is wrong');
      await check(page, 'saml-application-invalid');
      assert.equal(new URL(page.url()).pathname, `/console/orgs/${orgId}/projects/${projectId}`, 'still on the list');
      assert.equal(await count(), 0);

      // Metadata whose ACS is plain http to another host: the problem is the metadata's, shown beside it.
      await create.getByRole('radio', { name: "Paste the service provider's metadata" }).check();
      await create
        .getByLabel("Service provider's metadata (XML)")
        .fill(mellonMetadata(`https://${unique('bad')}.example.com/sp`, 'http://bad.example.com/mellon', base64Der(spCertificate)));
      await create.getByRole('button', { name: 'Create application' }).click();
      const fromMetadata = create.locator('[data-field-error="metadataXml"]');
      await fromMetadata.waitFor();
      assert.match(await fromMetadata.innerText(), /^from the metadata, acsUrls\.0: https is needed/);
      assert.equal(await create.locator('[data-field-error="entityId"]').count(), 0, 'the earlier error is gone');
      assert.equal(await count(), 0);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
