import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../oidc/support/browser.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import { useService } from '../support/fixtures.js';
import { consoleSteps } from './support/console-browser.js';

/**
 * The console's settings page and an application's token fields (docs/operations.md, "Settings"), as an operator
 * uses them in Chromium: what is saved is what the API answers afterwards.
 */
describe('the console: instance settings and application token lifetimes in Chromium', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let base: string;
  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl.replace(/\/$/, '');
  });
  after(() => browser?.close());

  const { open, check, signIn, nav } = consoleSteps({ browser: () => browser, base: () => base });

  it('an instance owner changes the access token lifetime and an application sets its own', async () => {
    const project = await createProject(svc);
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/`);
      await signIn(page, 'admin', readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim());
      await nav(page).getByRole('link', { name: 'Settings', exact: true }).click();
      await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
      const access = page.getByLabel('Access token lifetime (seconds)');
      await access.waitFor();
      assert.equal(await access.inputValue(), String(12 * 3600));
      await check(page, 'settings');
      await access.fill('900');
      await page.getByLabel('Password needs a digit').check();
      await page.getByLabel('A new password differs from the last (0 to 24 passwords; 0: any)').fill('5');
      await page.getByLabel('A password expires after (0 to 3650 days; 0: never)').fill('90');
      const lockSeconds = page.getByLabel('A lockout ends after (0 to 86400 seconds; 0: when an administrator unlocks)');
      await lockSeconds.fill('90000');
      await page.getByRole('button', { name: 'Save' }).click();
      await page
        .getByText(/lockout\.lockSeconds/)
        .first()
        .waitFor();
      await lockSeconds.fill('900');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved').waitFor();
      const settings = await svc.api('GET', '/admin/v1/settings', { token: svc.adminToken });
      assert.equal(settings.body.tokens.accessTokenSeconds, 900);
      assert.equal(settings.body.passwordPolicy.requireDigit, true);
      assert.equal(settings.body.passwordPolicy.historyCount, 5);
      assert.equal(settings.body.passwordPolicy.maxAgeDays, 90);
      assert.equal(settings.body.lockout.lockSeconds, 900);

      await page.goto(`${base}/console/orgs/${project.orgId}/projects/${project.projectId}/apps/${app.appId}`);
      const panel = page.getByRole('region', { name: "Token lifetimes (seconds; empty: the instance's)" });
      await panel.getByLabel('ID token lifetime (seconds)').fill('600');
      await panel.getByRole('button', { name: 'Save' }).click();
      await panel.getByText('Saved').waitFor();
      await check(page, 'application-tokens');
      const read = await svc.api('GET', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/${app.appId}`, { token: svc.adminToken });
      assert.deepEqual(read.body.tokens, { idTokenSeconds: 600 });
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
