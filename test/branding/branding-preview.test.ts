import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { contentSecurityPolicy } from '../../src/login/login-page.headers.js';
import { createCaller, useService } from '../support/fixtures.js';
import { launchBrowser, newPage } from '../oidc/support/browser.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';

const RP = 'http://127.0.0.1:65527';
const SAVED = { primary: '#1f4f7a', onPrimary: '#ffffff', background: '#f2f6fa', surface: '#ffffff', text: '#101820', link: '#1f4f7a' };
const DRAFT = { primary: '#7a1f5c', onPrimary: '#ffffff', background: '#fbf7f9', surface: '#ffffff', text: '#1e1a1c', link: '#7a1f5c' };
const DRAFT_DARK = { primary: '#f0a8d0', onPrimary: '#1a0a12', background: '#120a0e', surface: '#1c1218', text: '#f5e9ef', link: '#f0a8d0' };
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
const directive = (csp: string, name: string) => csp.split('; ').find((d) => d.startsWith(`${name} `));

/**
 * The preview of a draft brand (docs/branding.md, "Preview") on the started service and in Chromium: only who may
 * set the brand may preview it, a draft goes through the checks of a `PUT` and applies nothing, the link shows the
 * sign-in pages with the draft (escaped, under the sign-in pages' CSP for styles and images, with forms that post
 * nowhere), expires, and shows nothing of another organization.
 */
describe('branding preview', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let orgA: { orgId: string; projectId: string };
  let orgB: { orgId: string; projectId: string };
  let appA: OidcApp;
  let ownerA: { userId: string; token: string };
  let managerA: { userId: string; token: string };
  let ownerB: { userId: string; token: string };
  let logo: Buffer;

  before(async () => {
    browser = await launchBrowser();
    orgA = await createProject(svc);
    orgB = await createProject(svc);
    appA = await createOidcApp(svc, orgA, { authMethod: 'none' }, RP);
    ownerA = await createCaller(svc, orgA.orgId, { org: ['ORG_OWNER'] });
    managerA = await createCaller(svc, orgA.orgId, { org: ['ORG_USER_MANAGER'] });
    ownerB = await createCaller(svc, orgB.orgId, { org: ['ORG_OWNER'] });
    logo = await sharp(Buffer.alloc(48 * 16 * 3, 0x5c), { raw: { width: 48, height: 16, channels: 3 } })
      .png()
      .toBuffer();
    const res = await svc.api('PUT', `/management/v1/orgs/${orgA.orgId}/branding`, { token: ownerA.token, body: { displayName: 'Saved A', colors: SAVED } });
    assert.equal(res.status, 200, res.text);
  });
  after(() => browser?.close());

  const previewPath = (orgId: string) => `/management/v1/orgs/${orgId}/branding/preview`;
  const draft = {
    displayName: 'Draft <b>A</b>',
    colors: DRAFT,
    dark: DRAFT_DARK,
    texts: { en: { 'login.title': 'Welcome <i>back</i>' } },
    links: { terms: 'https://a.example/terms' },
  };
  const body = () => ({ ...draft, logo: `data:image/png;base64,${logo.toString('base64')}` });
  const preview = async (token: string, orgId = orgA.orgId, sent: unknown = body()) => svc.api('POST', previewPath(orgId), { token, body: sent });

  it('answers by role and organization: the privilege rows', async () => {
    const rows: [string, string, string, number][] = [
      ['ORG_OWNER of A previews A', ownerA.token, orgA.orgId, 200],
      ['IAM_OWNER previews A', svc.adminToken, orgA.orgId, 200],
      ['ORG_USER_MANAGER of A may not preview A (it may not set the brand either)', managerA.token, orgA.orgId, 403],
      ['ORG_OWNER of B cannot preview A', ownerB.token, orgA.orgId, 404],
      ['ORG_OWNER of A cannot preview B', ownerA.token, orgB.orgId, 404],
      ['no token', '', orgA.orgId, 401],
    ];
    for (const [what, token, orgId, status] of rows) assert.equal((await preview(token, orgId)).status, status, what);
  });

  it('checks a draft as a save does, and applies nothing', async () => {
    const low = await preview(ownerA.token, orgA.orgId, { colors: { ...DRAFT, text: '#aaaaaa' } });
    assert.equal(low.status, 400);
    assert.match(low.body.message, /colors\.text\/colors\.(surface|background): contrast/);
    const svg = await preview(ownerA.token, orgA.orgId, { logo: `data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}` });
    assert.equal(svg.status, 400);
    assert.equal((await preview(ownerA.token, orgA.orgId, { style: 'body{}' })).status, 400, 'no field that is not a brand’s');
    const res = await preview(ownerA.token);
    assert.equal(res.status, 200, res.text);
    assert.match(res.body.previewUrl, new RegExp(`^${svc.config.publicUrl.replace(/\/$/, '')}/ui/login/preview/[A-Za-z0-9_-]{43}$`));
    const ttl = Date.parse(res.body.expiresAt) - Date.now();
    assert.ok(ttl > 9 * 60_000 && ttl <= 10 * 60_000, `ten minutes (${ttl} ms)`);
    const saved = await svc.api('GET', `/management/v1/orgs/${orgA.orgId}/branding`, { token: ownerA.token });
    assert.equal(saved.body.displayName, 'Saved A', 'the saved brand is unchanged');
    const token = res.body.previewUrl.split('/').pop();
    const [row] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM branding_previews WHERE token_hash = ?', [token]);
    assert.equal(Number(row.n), 0, 'the token is kept only as its hash');
  });

  it('shows the draft on the sign-in pages in Chromium, escaped, under the same CSP for styles and images; not on the real sign-in', async () => {
    const res = await preview(ownerA.token);
    const url: string = res.body.previewUrl;
    const { context, page } = await newPage(browser);
    const reports: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) reports.push(message.text());
    });
    const answer = await page.goto(url);
    assert.equal(answer?.status(), 200);
    const csp = answer?.headers()['content-security-policy'] ?? '';
    const signIn = contentSecurityPolicy("'self'");
    for (const name of ['default-src', 'style-src', 'img-src', 'base-uri'])
      assert.equal(directive(csp, name), directive(signIn, name), `${name} as on every sign-in page`);
    assert.equal(directive(csp, 'form-action'), "form-action 'none'", 'its forms post nowhere');
    assert.equal(directive(csp, 'script-src'), "script-src 'none'");
    assert.equal(directive(csp, 'frame-ancestors'), "frame-ancestors 'self'", 'the console alone may frame it');
    assert.equal(answer?.headers()['cache-control'], 'no-store');
    assert.ok(await page.locator('[data-brand-preview]').isVisible(), 'it says it is a preview');
    assert.equal(await page.evaluate('getComputedStyle(document.body).backgroundColor'), rgb(DRAFT.background));
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await page.evaluate('getComputedStyle(document.body).backgroundColor'), rgb(DRAFT_DARK.background));
    await page.emulateMedia({ colorScheme: 'light' });
    assert.equal(await page.textContent('.pc-brand span'), 'Draft <b>A</b>');
    assert.equal(await page.textContent('h1'), 'Welcome <i>back</i>');
    assert.equal(await page.locator('.pc-brand b, h1 i, [style], style, script').count(), 0);
    const img = page.locator('img[data-brand-logo]');
    assert.equal(await img.evaluate((el: HTMLImageElement) => el.naturalWidth), 48, 'the draft’s logo, re-encoded, from this origin');
    assert.equal(await page.getAttribute('a[data-brand-link="terms"]', 'href'), 'https://a.example/terms');
    // The other pages of a sign-in, and a language.
    await page.goto(`${url}?page=register`);
    assert.ok(await page.locator('input[name="firstName"]').isVisible());
    await page.goto(`${url}?page=second-factor&lang=ar`);
    assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
    assert.equal(await page.evaluate('getComputedStyle(document.body).backgroundColor'), rgb(DRAFT.background));
    await page.goto(`${url}?page=error`);
    assert.equal(await page.evaluate('getComputedStyle(document.body).backgroundColor'), rgb(DRAFT.background));
    assert.deepEqual(reports, []);
    // The real sign-in of the organization's application shows the saved brand, not the draft.
    await page.goto(authorizeUrl(appA.clientId));
    await page.waitForSelector('input[name="loginName"]');
    assert.equal(await page.evaluate('getComputedStyle(document.body).backgroundColor'), rgb(SAVED.background));
    assert.equal(await page.textContent('.pc-brand span'), 'Saved A');
    await context.close();
  });

  it('shows nothing for an unknown or expired link, nor its stylesheet or logo', async () => {
    const res = await preview(ownerA.token);
    const url = new URL(res.body.previewUrl);
    const token = url.pathname.split('/').pop() ?? '';
    const page = await svc.api('GET', url.pathname);
    assert.equal(page.status, 200);
    const css = /href="([^"]*brand\.css[^"]*)"/.exec(page.text)?.[1]?.replaceAll('&#38;', '&') ?? '';
    const logoSrc = /src="([^"]*brand-logo\.png[^"]*)"/.exec(page.text)?.[1]?.replaceAll('&#38;', '&') ?? '';
    assert.match((await svc.api('GET', css)).text, new RegExp(`--pc-bg: ${DRAFT.background};`), css);
    assert.equal((await svc.api('GET', logoSrc)).status, 200);
    const other = randomBytes(32).toString('base64url');
    assert.equal((await svc.api('GET', `/ui/login/preview/${other}`)).status, 404, 'an unknown token');
    assert.equal((await svc.api('GET', '/ui/login/preview/not-a-token')).status, 404);
    const hash = createHash('sha256').update(token).digest('hex');
    await svc.dataSource.query('UPDATE branding_previews SET expires_at = ? WHERE token_hash = ?', [Date.now() - 1, hash]);
    assert.equal((await svc.api('GET', url.pathname)).status, 404, 'an expired link');
    assert.equal((await svc.api('GET', css)).status, 404, 'its stylesheet');
    assert.equal((await svc.api('GET', logoSrc)).status, 404, 'its logo');
  });

  it('goes with its organization', async () => {
    const project = await createProject(svc);
    const res = await svc.api('POST', previewPath(project.orgId), { token: svc.adminToken, body: { colors: DRAFT } });
    assert.equal(res.status, 200, res.text);
    assert.equal((await svc.api('DELETE', `/admin/v1/orgs/${project.orgId}`, { token: svc.adminToken })).status, 204);
    const [row] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM branding_previews WHERE org_id = ?', [project.orgId]);
    assert.equal(Number(row.n), 0);
  });

  function authorizeUrl(clientId: string): string {
    return `${svc.config.publicUrl.replace(/\/$/, '')}/oauth/v2/authorize?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
    })}`;
  }
});
