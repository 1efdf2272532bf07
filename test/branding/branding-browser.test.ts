import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { contentSecurityPolicy } from '../../src/login/login-page.headers.js';
import { useService } from '../support/fixtures.js';
import { spawnSecondProcess } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';
import { freePort } from '../support/service.js';
import { launchBrowser, newPage } from '../oidc/support/browser.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';

const RP = 'http://127.0.0.1:65528';
const INSTANCE = { background: '#f3f7ef' };
const ORG_A = { primary: '#7a1f5c', onPrimary: '#ffffff', background: '#fbf7f9', surface: '#ffffff', text: '#1e1a1c', link: '#7a1f5c' };
const ORG_A_DARK = { primary: '#f0a8d0', onPrimary: '#1a0a12', background: '#120a0e', surface: '#1c1218', text: '#f5e9ef', link: '#f0a8d0' };
const APP_A2 = { background: '#eef5fb' };
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/**
 * Brands on the sign-in pages in Chromium (docs/branding.md): an organization's theme on its applications' pages and
 * not another's, application over organization over instance, dark mode by prefers-color-scheme, the logo served
 * re-encoded, texts as plain text, the CSP the same as an unbranded page's, and a change seen by a second process of
 * the instance on its next page.
 */
describe('branded sign-in pages in Chromium', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let orgA: { orgId: string; projectId: string };
  let appA1: OidcApp;
  let appA2: OidcApp;
  let appB: OidcApp;
  const contexts: BrowserContext[] = [];
  let second: ServiceProcess | undefined;

  before(async () => {
    browser = await launchBrowser();
    orgA = await createProject(svc);
    const orgB = await createProject(svc);
    appA1 = await createOidcApp(svc, orgA, { authMethod: 'none' }, RP);
    appA2 = await createOidcApp(svc, orgA, { authMethod: 'none' }, RP);
    appB = await createOidcApp(svc, orgB, { authMethod: 'none' }, RP);
    const logo = await sharp(Buffer.alloc(40 * 20 * 3, 0x7a), { raw: { width: 40, height: 20, channels: 3 } })
      .png()
      .toBuffer();
    const put = async (path: string, body: unknown) => {
      const res = await svc.api('PUT', path, { token: svc.adminToken, body });
      assert.equal(res.status, 200, res.text);
    };
    await put('/admin/v1/branding', { colors: INSTANCE });
    await put(`/management/v1/orgs/${orgA.orgId}/branding`, {
      displayName: 'Org A <b>bold</b>',
      colors: ORG_A,
      dark: ORG_A_DARK,
      logo: `data:image/png;base64,${logo.toString('base64')}`,
      links: { privacy: 'https://a.example/privacy' },
      texts: { en: { 'login.title': 'Welcome to <i>A</i>' } },
    });
    await put(`/management/v1/orgs/${orgA.orgId}/projects/${orgA.projectId}/apps/${appA2.appId}/branding`, { colors: APP_A2 });
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await second?.stop();
  });

  function authorizeUrl(base: string, clientId: string, uiLocales?: string): string {
    return `${base}/oauth/v2/authorize?${new URLSearchParams({
      ...(uiLocales ? { ui_locales: uiLocales } : {}),
      client_id: clientId,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
    })}`;
  }

  /** The login page of a client in a fresh browser: the page, its CSP header and any CSP report. */
  async function open(clientId: string, base = svc.config.publicUrl, uiLocales?: string): Promise<{ page: Page; csp: string; reports: string[] }> {
    const { context, page } = await newPage(browser);
    contexts.push(context);
    const reports: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) reports.push(message.text());
    });
    await page.goto(authorizeUrl(base, clientId, uiLocales));
    await page.waitForSelector('input[name="loginName"]');
    const html = await page.request.get(page.url());
    return { page, csp: html.headers()['content-security-policy'] ?? '', reports };
  }
  const background = (page: Page) => page.evaluate('getComputedStyle(document.body).backgroundColor');

  it("shows an organization's theme on its application's page, light and dark, under the same CSP", async () => {
    const { page, csp, reports } = await open(appA1.clientId);
    assert.equal(await background(page), rgb(ORG_A.background), 'light: the organization’s background');
    assert.equal(await page.evaluate('getComputedStyle(document.querySelector("button[type=submit]")).backgroundColor'), rgb(ORG_A.primary));
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await background(page), rgb(ORG_A_DARK.background), 'dark: the organization’s dark background');
    await page.emulateMedia({ colorScheme: 'light' });
    // The display name and an overridden text are text: their markup shows as characters, no element is made.
    assert.equal(await page.textContent('.pc-brand span'), 'Org A <b>bold</b>');
    assert.equal(await page.textContent('h1'), 'Welcome to <i>A</i>');
    assert.equal(await page.locator('.pc-brand b, h1 i').count(), 0);
    // The logo: loaded from its own route, a PNG, not sniffed.
    const logo = page.locator('img[data-brand-logo]');
    assert.ok(Number(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth)) === 40, 'the logo loads');
    const served = await page.request.get(new URL(String(await logo.getAttribute('src')), page.url()).href);
    assert.equal(served.headers()['content-type'], 'image/png');
    assert.equal(served.headers()['x-content-type-options'], 'nosniff');
    assert.equal(await page.getAttribute('a[data-brand-link="privacy"]', 'href'), 'https://a.example/privacy');
    // No inline style anywhere, and the policy is what every sign-in page has.
    assert.equal(await page.locator('[style], style').count(), 0);
    assert.equal(csp, contentSecurityPolicy("'self'", [`${RP}/cb`]));
    assert.deepEqual(reports, []);
  });

  it('has no WCAG 2.2 AA violation (axe-core) on a branded sign-in page, light and dark, in English, Arabic and Japanese', async () => {
    const WCAG_AA = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } };
    for (const locale of ['en', 'ar', 'ja']) {
      const { page } = await open(appA1.clientId, svc.config.publicUrl, locale);
      assert.equal(await background(page), rgb(ORG_A.background), `${locale}: the brand applies`);
      for (const scheme of ['light', 'dark'] as const) {
        // Reduced motion: no colour transition is caught half-way (design.css animates only without it).
        await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
        if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(axe.source);
        const found = await page.evaluate(
          `axe.run(document, ${JSON.stringify(WCAG_AA)}).then((r) => JSON.stringify(r.violations.map((v) => v.id + ': ' + v.help + ' (' + v.nodes.map((n) => n.target.join(' ')).join(', ') + ')')))`,
        );
        assert.deepEqual(JSON.parse(String(found)), [], `${locale}, ${scheme}: axe-core finds no WCAG 2.2 AA violation`);
      }
    }
  });

  it("keeps another organization's pages on the instance's brand, and the application's over its organization's", async () => {
    const b = await open(appB.clientId);
    assert.equal(await background(b.page), rgb(INSTANCE.background), 'another organization: the instance’s');
    assert.equal(await b.page.locator('img[data-brand-logo]').count(), 0);
    assert.equal(await b.page.textContent('.pc-brand span'), 'Portcullis');
    assert.equal(await b.page.textContent('h1'), 'Sign in');
    const a1 = await open(appA1.clientId);
    assert.equal(b.csp, a1.csp, 'a brand never changes the CSP');
    const a2 = await open(appA2.clientId);
    assert.equal(await background(a2.page), rgb(APP_A2.background), 'the application’s colours over its organization’s');
    assert.equal(await a2.page.textContent('.pc-brand span'), 'Org A <b>bold</b>', 'what the application does not set comes from its organization');
  });

  it('applies a change on the next page of a second process, without a restart', async () => {
    const port = await freePort();
    second = await spawnSecondProcess(svc, { PUBLIC_URL: `http://localhost:${port}` }, { port });
    const base = `http://localhost:${port}`;
    const first = await open(appA1.clientId, base);
    assert.equal(await background(first.page), rgb(ORG_A.background), 'the second process shows the brand');
    const changed = { ...ORG_A, background: '#f7fbf7' };
    const res = await svc.api('PUT', `/management/v1/orgs/${orgA.orgId}/branding`, { token: svc.adminToken, body: { colors: changed } });
    assert.equal(res.status, 200, res.text);
    // Polled page by page (the second process keeps what it read for at most BRAND_FRESHNESS_MS).
    let seen = '';
    for (let attempt = 0; attempt < 50 && seen !== rgb(changed.background); attempt++) {
      const { page } = await open(appA1.clientId, base);
      seen = String(await background(page));
      await page.context().close();
    }
    assert.equal(seen, rgb(changed.background));
  });
});
