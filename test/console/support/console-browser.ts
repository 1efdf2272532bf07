import assert from 'node:assert/strict';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** Where the screenshots of the main pages go (a CI artifact): CONSOLE_SCREENSHOTS, else test-artifacts/console. */
export const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ?? new URL('../../../../test-artifacts/console/', import.meta.url).pathname;

/**
 * The console's browser tests' common steps (docs/console.md): a fresh context watching for CSP reports and
 * requests to other hosts, axe-core with a screenshot, sign-in and sign-out through the login UI — all by
 * accessible names. `browser` and `base` are read when a step runs (they are set in `before`).
 */
export function consoleSteps(env: { browser: () => Browser; base: () => string }) {
  /** A fresh browser (no session), watching for CSP reports and requests to other hosts. */
  async function open(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await env.browser().newContext({ locale: 'en-US' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.base() });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (!['data:', 'blob:'].includes(url.protocol) && url.origin !== env.base()) problems.push(`request to another host: ${request.url()}`);
    });
    return { context, page, problems };
  }

  /** axe-core (WCAG 2 A/AA rules): no serious or critical violation; and a screenshot as an artifact. */
  async function check(page: Page, name: string): Promise<void> {
    const results = await new AxeBuilder({ page }).analyze();
    const grave = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      grave.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
      [],
      `accessibility of ${name}`,
    );
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  /** The login UI (server-rendered, docs/product-rules.md): login name and password, a second factor declined. */
  async function signIn(page: Page, loginName: string, password: string): Promise<void> {
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/ui/login'));
    await page.getByLabel('Login name').fill(loginName);
    const password1 = page.getByLabel('Password', { exact: true });
    if (!(await password1.isVisible())) await page.getByRole('button', { name: 'Next' }).click();
    await password1.fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/console/') || url.pathname.startsWith('/ui/login'));
    if (page.url().includes('/ui/login')) {
      const notNow = page.getByRole('button', { name: 'Not now' });
      if (await notNow.isVisible()) await notNow.click();
    }
    await page.waitForURL((url) => url.pathname.startsWith('/console/') && url.pathname !== '/console/callback');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  async function signOut(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${env.base()}/console/`);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  }

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Main navigation' });
  return { open, check, signIn, signOut, nav };
}

/** Searches a console list by its search form (the server's `?query=`); an empty text shows the whole list again. */
export async function searchList(page: Page, list: string, text: string): Promise<void> {
  const search = page.getByRole('search', { name: `Search ${list}` });
  await search.getByLabel('Search by name').fill(text);
  await search.getByRole('button', { name: 'Search', exact: true }).click();
}

/** What a searched list says when nothing matches `text`, for `waitFor`. */
export const nothingMatches = (page: Page, text: string) => page.getByText(`Nothing matches “${text}”.`);
