import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../oidc/support/browser.js';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { personLdif, startSlapd, SUFFIX } from '../support/slapd.js';
import type { Slapd } from '../support/slapd.js';
import { SCREENSHOTS, consoleSteps } from './support/console-browser.js';

/**
 * The console's directories page (docs/directories.md), in Chromium by accessible names, against Debian's slapd
 * started here: an organization owner adds a directory by its form (the bind password typed, never shown again),
 * tests the connection (the first people, through the mapping), syncs it now and reads the sync's counts; a wrong
 * service password is the test's plain answer. axe on the page.
 */
describe('directories in the operator console (Chromium)', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let slapd: Slapd;
  let base: string;
  before(async () => {
    [browser, slapd] = await Promise.all([
      launchBrowser(),
      startSlapd([personLdif('alice', { givenName: 'Alice', sn: 'Archer' }), personLdif('bob', { givenName: 'Bob', sn: 'Baker' })].join('\n')),
    ]);
    base = svc.config.publicUrl.replace(/\/$/, '');
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await slapd?.stop();
  });
  const { open, check, signIn } = consoleSteps({ browser: () => browser, base: () => base });
  const password = () => readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim();

  it('adds a directory, tests it, syncs it and shows the sync; the bind password is never shown', async () => {
    assert.equal((await svc.api('PUT', '/admin/v1/directory-hosts', { token: svc.adminToken, body: { allow: ['127.0.0.1'] } })).status, 200);
    const orgId = (await createOrg(svc)).id;
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', password());
      await page.goto(`${base}/console/orgs/${orgId}/users`);
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Directories' }).click();
      await page.getByRole('heading', { name: 'Directories', level: 1 }).waitFor();
      await page.getByText('No directories yet.').waitFor();
      await check(page, 'directories-empty');

      const form = page.getByRole('form', { name: 'Add directory' });
      const name = unique('Corporate LDAP');
      await form.getByLabel('Name', { exact: true }).fill(name);
      await form.getByLabel('URL', { exact: true }).fill(slapd.url);
      await form.getByLabel('Service account (bind DN)').fill(slapd.serviceDn);
      await form.getByLabel('Service account password').fill(slapd.servicePassword);
      await form.getByLabel('Where the people are (base DN)').fill(`ou=people,${SUFFIX}`);
      await form.getByRole('button', { name: 'Add directory' }).click();
      const row = page
        .getByRole('table', { name: 'Directories' })
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name }) });
      await row.waitFor();
      assert.ok(!(await page.content()).includes(slapd.servicePassword), 'the bind password is not on the page');

      await row.getByRole('button', { name: 'Test connection' }).click();
      await row.getByRole('status').filter({ hasText: 'Connected (without TLS, on loopback). First people:' }).waitFor();
      assert.match(await row.getByRole('status').innerText(), /alice/);

      await row.getByRole('button', { name: 'Sync now' }).click();
      const syncs = page.getByRole('table', { name: 'Last syncs' });
      const finished = syncs.getByRole('row').filter({ hasText: 'Finished' });
      for (let i = 0; i < 50 && (await finished.count()) === 0; i++) {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await page.waitForTimeout(200);
      }
      assert.match(await finished.first().innerText(), /2 created/);
      await check(page, 'directories-synced');

      // A wrong service password: the test names it, as a status, not an error page.
      const [directory] = (await svc.api('GET', `/management/v1/orgs/${orgId}/directories`, { token: svc.adminToken })).body.directories;
      const changed = await svc.api('PATCH', `/management/v1/orgs/${orgId}/directories/${directory.id}`, {
        token: svc.adminToken,
        body: { bindPassword: 'not-the-password' },
      });
      assert.equal(changed.status, 200, changed.text);
      await row.getByRole('button', { name: 'Test connection' }).click();
      await row.getByRole('status').filter({ hasText: 'Reached, with problems:' }).waitFor();
      assert.match(await row.getByRole('status').innerText(), /service account/);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
