import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../oidc/support/browser.js';
import { createProject } from '../oidc/support/oidc-fixtures.js';
import { useService } from '../support/fixtures.js';
import { consoleSteps } from './support/console-browser.js';

/** With DESIGN_SCREENSHOTS=1 the editor is also written, light and dark, into docs/screenshots/ (docs/branding.md). */
const SCREENSHOTS = process.env.DESIGN_SCREENSHOTS ? new URL('../../../docs/screenshots/', import.meta.url).pathname : undefined;
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/** The preview frame's page background, once its document has loaded. */
function previewBackground(page: Page): Promise<string> {
  return page.evaluate(() => {
    const frame = document.querySelector<HTMLIFrameElement>('iframe[data-brand-preview-frame]');
    const body = frame?.contentDocument?.body;
    return body && frame.contentDocument?.readyState === 'complete' ? getComputedStyle(body).backgroundColor : '';
  });
}

/**
 * The console's branding editor in Chromium (docs/branding.md, "In the console"): each change shows in the live
 * preview of the sign-in page before anything is saved, a palette below WCAG 2.2 AA is named, and "Save" applies it.
 */
describe("the console's branding editor in Chromium", () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let base: string;
  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl.replace(/\/$/, '');
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(() => browser?.close());
  const { open, check, signIn } = consoleSteps({ browser: () => browser, base: () => base });

  it('previews each change live, names a failing contrast, and saves', async () => {
    const { orgId } = await createProject(svc);
    const brandPath = `/management/v1/orgs/${orgId}/branding`;
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim());
      await page.goto(`${base}/console/orgs/${orgId}/branding`);
      await page.getByRole('heading', { name: 'Branding', level: 1 }).waitFor();
      // Before any change: the design system's own look in the preview.
      await page.waitForFunction(() => document.querySelector('iframe[data-brand-preview-frame]') !== null);
      await page.getByLabel('Display name').fill('Acme <b>');
      await page.getByLabel('Own colours', { exact: true }).check();
      await page.getByLabel('Page background').fill('#fbf7f9');
      await page.getByLabel('Buttons', { exact: true }).fill('#7a1f5c');
      await page.getByLabel('Links', { exact: true }).fill('#7a1f5c');
      let seen = '';
      for (let i = 0; i < 100 && seen !== rgb('#fbf7f9'); i++) {
        seen = await previewBackground(page);
        if (seen !== rgb('#fbf7f9')) await page.waitForTimeout(100);
      }
      assert.equal(seen, rgb('#fbf7f9'), 'the preview shows the draft’s background');
      const frame = page.frameLocator('iframe[data-brand-preview-frame]');
      assert.equal(await frame.locator('.pc-brand span').textContent(), 'Acme <b>', 'the name as text');
      assert.ok(await frame.locator('[data-brand-preview]').isVisible(), 'the frame says it is a preview');
      assert.equal((await svc.api('GET', brandPath, { token: svc.adminToken })).status, 404, 'nothing is applied by a preview');
      // Another page of the sign-in in the preview.
      await page.locator('section.brand-preview select').selectOption('register');
      await frame.locator('input[name="firstName"]').waitFor();
      if (SCREENSHOTS)
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.screenshot({ path: join(SCREENSHOTS, `console-branding-1280-${scheme}.png`), fullPage: true });
        }
      await page.emulateMedia({ colorScheme: 'light' });
      await page.locator('section.brand-preview select').selectOption('login');
      // A palette below WCAG 2.2 AA: named by its pair, before any save.
      await page.getByLabel('Text', { exact: true }).fill('#dddddd');
      await page.getByRole('alert').filter({ hasText: 'colors.text/colors.' }).waitFor();
      await page.getByLabel('Text', { exact: true }).fill('#1e1a1c');
      await page.getByRole('alert').filter({ hasText: 'colors.text/colors.' }).waitFor({ state: 'detached' });
      await check(page, 'console-branding');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      const saved = await svc.api('GET', brandPath, { token: svc.adminToken });
      assert.equal(saved.status, 200);
      assert.equal(saved.body.displayName, 'Acme <b>');
      assert.equal(saved.body.colors.background, '#fbf7f9');
      assert.equal(saved.body.colors.text, '#1e1a1c');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
