/**
 * The console with a large organization: Chromium (playwright-core, Debian's chromium as in the
 * browser tests) signed in as the bootstrap admin opens the console's pages of an organization holding
 * `peerSize` users (100,000 in the full run), each by a fresh navigation (a reload: the bundle from the
 * browser's cache, every API call made again), and the time from navigation to the page being usable —
 * its heading shown and its first data row (or the user's name) visible — is taken per load. Target: every
 * page interactive within 1 s (p99 ≤ 1,000 ms).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../../test/oidc/support/browser.js';
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { freePort, startService } from '../lib/processes.js';
import { seedEvents, seedUsers, userId, userName } from '../lib/seed.js';

interface ConsolePage {
  id: string;
  label: string;
  path(orgId: string, size: number): string;
  /** Resolves when the page can be used. */
  ready(page: Page, size: number): Promise<void>;
}

const firstRow = (page: Page) => page.locator('tbody tr').first().waitFor();

const PAGES: ConsolePage[] = [
  {
    id: 'console.users',
    label: 'console: users of the organization, first page',
    path: (org) => `/console/orgs/${org}/users`,
    ready: async (page) => (await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor(), await firstRow(page)),
  },
  {
    id: 'console.user',
    label: 'console: one user',
    path: (org, size) => `/console/orgs/${org}/users/${userId(Math.floor(size / 2))}`,
    ready: async (page, size) => (
      await page.getByRole('heading', { name: 'User', level: 1 }).waitFor(),
      await page
        .getByText(userName(Math.floor(size / 2)), { exact: true })
        .first()
        .waitFor()
    ),
  },
  {
    id: 'console.events',
    label: 'console: events, newest first (the page and one search)',
    path: () => '/console/events',
    ready: async (page) => {
      await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await firstRow(page);
    },
  },
  {
    id: 'console.orgs',
    label: 'console: organizations',
    path: () => '/console/orgs',
    ready: async (page) => (await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor(), await firstRow(page)),
  },
];

export async function runConsole(ctx: Context): Promise<void> {
  const size = ctx.options.peerSize;
  const loads = ctx.options.quick ? 3 : 20;
  const store = await ctx.newStore();
  const port = await freePort();
  try {
    const setup = await startService(store, 1, port);
    const org = await call(setup.url, adminToken(store.dataDir), 'POST', '/admin/v1/orgs', { name: 'console-bench' });
    await setup.stop();
    await seedUsers(store, org.id, 0, size);
    await seedEvents(store, org.id, 0, size);
    const service = await startService(store, 1, port);
    const browser = await launchBrowser();
    try {
      const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
      await signIn(page, service.url, readFileSync(join(store.dataDir, 'admin.password'), 'utf8').trim());
      for (const p of PAGES) {
        const url = service.url + p.path(org.id, size);
        await page.goto(url); // once unmeasured: the first visit compiles the page's code paths
        await p.ready(page, size);
        const times: number[] = [];
        for (let i = 0; i < loads; i++) {
          const started = performance.now();
          await page.goto(url);
          await p.ready(page, size);
          times.push(performance.now() - started);
        }
        times.sort((a, b) => a - b);
        const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]);
        ctx.record({
          scenario: p.id,
          label: p.label,
          kind: 'portcullis',
          server: 'Portcullis WORKERS=1, Chromium',
          workers: 1,
          size,
          unit: 'page loads/s',
          rate: 1000 / (times.reduce((a, b) => a + b, 0) / times.length),
          p50: at(0.5),
          p99: at(0.99),
          max: Math.round(times[times.length - 1]),
          errors: 0,
        });
      }
    } finally {
      await browser.close();
      await service.stop();
    }
  } finally {
    await store.drop();
  }
}

/** The login UI as the browser tests drive it: login name, password, a second factor declined. */
export async function signIn(page: Page, base: string, password: string): Promise<void> {
  await page.goto(`${base}/console/`);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/ui/login'));
  await page.getByLabel('Login name').fill('admin');
  const passwordField = page.getByLabel('Password', { exact: true });
  if (!(await passwordField.isVisible())) await page.getByRole('button', { name: 'Next' }).click();
  await passwordField.fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname.startsWith('/console/') || url.pathname.startsWith('/ui/login'));
  if (page.url().includes('/ui/login')) await page.getByRole('button', { name: 'Not now' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}
