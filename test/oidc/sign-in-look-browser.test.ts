import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { useService } from '../support/fixtures.js';
import { registerAgent, createFilesResource } from './support/agent-clients.js';
import { launchBrowser, newPage, submitLogin } from './support/browser.js';
import { PASSWORD, createHuman, createOidcApp, createProject, discover } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { setLoginPolicy, totpCode } from './support/second-factor.js';
import { formatText } from '../../src/texts/texts.js';
import { textDirection } from '../../src/texts/locales.js';
import type { Locale } from '../../src/texts/locales.js';

const RP = 'http://127.0.0.1:65529';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** axe-core's rules of WCAG 2.0, 2.1 and 2.2, levels A and AA. */
const WCAG_AA = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } };
/** What the colour scheme changes: in dark, the rules about colours run again (the others read the same document). */
const COLOUR_RULES = { runOnly: { type: 'rule', values: ['color-contrast', 'link-in-text-block'] } };
/** The page background of the design system's tokens (docs/design.md), light and dark: proof the stylesheet applies. */
const BACKGROUND = { light: 'rgb(244, 245, 247)', dark: 'rgb(14, 16, 20)' };
/** With DESIGN_SCREENSHOTS=1 the test also writes each page at 1280 and 360 px, light and dark, into docs/screenshots/. */
const SCREENSHOTS = process.env.DESIGN_SCREENSHOTS ? new URL('../../../docs/screenshots/', import.meta.url).pathname : undefined;
/** Every page in English, in Arabic (right to left) and in Japanese (another script, no spaces between words). */
const LOCALES: Locale[] = ['en', 'ar', 'ja'];
/** Latin words a Japanese page may carry: the product's name and protocol names. */
const LATIN_NAMES = new Set(['Portcullis', 'OpenID', 'Connect', 'SAML']);

/**
 * The look of the sign-in pages (docs/design.md) in Chromium: every page of the sign-in a person meets — login name and
 * password, a refused password, passkey and authenticator enrolment, recovery codes, the second factor, consent, the
 * device code and its confirmation, an owed password change, a refusal, an error, forgot password, registration —
 * and the account page and my applications, each light and dark: the design system's stylesheet applies under the
 * page's CSP, no horizontal overflow at 1280 or 360 px, axe-core finds no WCAG 2.2 AA violation, and the keyboard
 * focus has a visible ring.
 */
describe('the look of the sign-in pages in Chromium', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let base: string;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  const contexts: BrowserContext[] = [];
  const looked: string[] = [];

  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl;
    project = await createProject(svc);
    await setLoginPolicy(svc, project.orgId, { mfa: 'optional', passkeys: true, allowRegistration: true });
    app = await createOidcApp(svc, project, { authMethod: 'none' }, RP);
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
  });

  /**
   * What a Japanese page shows as the operator or the client wrote it: names the test made (users, domains), the
   * agent's own name, the resource's name, its scopes and their descriptions.
   */
  const ownNames: string[] = ['Test agent', 'Files MCP', 'openid files:read', 'Read your files', 'example.com'];

  /** A person who chose the page's language: the pages after the password speak the person's language. */
  async function person(locale: Locale): Promise<{ userId: string; userName: string }> {
    const user = await createHuman(svc, project.orgId);
    const chosen = await svc.api('PATCH', `/management/v1/orgs/${project.orgId}/users/${user.userId}`, {
      token: svc.adminToken,
      body: { profile: { preferredLanguage: locale } },
    });
    assert.equal(chosen.status, 200, chosen.text);
    return user;
  }
  const loginName = (user: { userName: string }) => {
    ownNames.push(user.userName, project.primaryDomain);
    return `${user.userName}@${project.primaryDomain}`;
  };

  /** A fresh browser that records any report of a broken CSP. */
  async function open(locale: Locale): Promise<{ page: Page; csp: string[] }> {
    const { context, page } = await newPage(browser, { locale: locale === 'en' ? 'en-US' : locale });
    contexts.push(context);
    const csp: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) csp.push(message.text());
    });
    return { page, csp };
  }

  function authorizeUrl(clientId = app.clientId, extra: Record<string, string> = {}): string {
    const verifier = randomBytes(32).toString('base64url');
    return `${base}/oauth/v2/authorize?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    })}`;
  }

  /**
   * The checks of one page, light and dark, at 1280 and 360 px, in its language and direction; the page ends light
   * at 1280 px.
   */
  async function look(page: Page, pageName: string, csp: string[], locale: Locale): Promise<void> {
    const t0 = Date.now();
    const name = locale === 'en' ? pageName : `${pageName}-${locale}`;
    assert.deepEqual(
      JSON.parse(String(await page.evaluate('JSON.stringify([document.documentElement.lang, document.documentElement.dir])'))),
      [locale, textDirection(locale)],
      `${name}: the page says its language and direction`,
    );
    if (locale === 'ja') {
      // The page's visible words: what is marked as another language (each language's own name, the protocol's
      // English error) and scripts' data are not the page's text.
      const text = String(
        await page.evaluate(
          `(() => { const body = document.body.cloneNode(true); for (const e of body.querySelectorAll('[lang], script, style, template')) e.remove(); const words = []; const walk = document.createTreeWalker(body, NodeFilter.SHOW_TEXT); while (walk.nextNode()) words.push(walk.currentNode.nodeValue); return words.join(' '); })()`,
        ),
      );
      // One-time codes and keys (upper-case letters) are not words, nor the random suffix `unique()` gives the
      // test's own names (`Files MCP-3beca1f0`: its letters once read as the word "beca").
      const english = (
        text
          .replace(/\b[A-Z0-9]{4,}\b/g, '')
          .replace(/-[0-9a-f]{8}\b/g, '')
          .match(/[A-Za-z]{4,}/g) ?? []
      ).filter((word) => !LATIN_NAMES.has(word) && !ownNames.some((n) => n.includes(word)));
      assert.deepEqual(english, [], `${name}: no English left on a Japanese page`);
    }
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      assert.equal(
        await page.evaluate('getComputedStyle(document.body).backgroundColor'),
        BACKGROUND[scheme],
        `${name}: the design system's ${scheme} tokens apply`,
      );
      for (const width of [1280, 360]) {
        await page.setViewportSize({ width, height: 800 });
        const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
        assert.ok(overflow <= 0, `${name} at ${width} px, ${scheme}: ${overflow} px of horizontal overflow`);
        if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}-${scheme}.png`), fullPage: true });
      }
      assert.deepEqual(await violations(page, scheme === 'light' ? WCAG_AA : COLOUR_RULES), [], `${name}, ${scheme}: axe-core finds no WCAG 2.2 AA violation`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.deepEqual(csp, [], `${name}: no CSP report`);
    looked.push(name);
    if (process.env.LOOK_TIMING) console.log(name, Date.now() - t0);
  }

  /** axe-core injected into the page (once per document), run with `options`: each violation and where. */
  async function violations(page: Page, options: object): Promise<string[]> {
    if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(axe.source);
    const found = await page.evaluate(
      `axe.run(document, ${JSON.stringify(options)}).then((r) => JSON.stringify(r.violations.map((v) => v.id + ': ' + v.help + ' (' + v.nodes.map((n) => n.target.join(' ')).join(', ') + ')')))`,
    );
    return JSON.parse(String(found));
  }

  /** The outline of the focused element, after the keyboard moved the focus there. */
  async function focusRing(page: Page): Promise<{ tag: string; style: string; width: number }> {
    return JSON.parse(
      String(
        await page.evaluate(
          '(() => { const e = document.activeElement; const s = getComputedStyle(e); return JSON.stringify({ tag: e.tagName, style: s.outlineStyle, width: parseFloat(s.outlineWidth) }); })()',
        ),
      ),
    );
  }

  for (const locale of LOCALES) {
    it(`login, a refused password, enrolment of an authenticator app and its recovery codes; a visible focus ring (${locale})`, async () => {
      const user = await person(locale);
      const { page, csp: reports } = await open(locale);
      const loginPage = page.waitForResponse((r) => /^\/ui\/login\/[^/]+$/.test(new URL(r.url()).pathname));
      await page.goto(authorizeUrl());
      await page.waitForSelector('input[name="loginName"]');
      await page.locator('[data-passkey-login]').waitFor();
      // The page allows styles from its own origin only; the stylesheet's URL names its content, so it is kept a year.
      const csp = (await (await loginPage).allHeaders())['content-security-policy'];
      assert.match(csp, /style-src 'self';/);
      assert.doesNotMatch(csp, /unsafe-inline/);
      const href = String(await page.getAttribute('link[rel="stylesheet"]', 'href'));
      assert.match(href, /^\/ui\/login\/assets\/design-[A-Za-z0-9_-]{12}\.css$/);
      const sheet = await fetch(new URL(href, base));
      assert.equal(sheet.status, 200);
      assert.equal(sheet.headers.get('content-type'), 'text/css; charset=utf-8');
      assert.equal(sheet.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(sheet.headers.get('x-content-type-options'), 'nosniff');
      assert.equal((await fetch(new URL('/ui/login/assets/design-AAAAAAAAAAAA.css', base))).status, 404, 'another version is not this one');
      await look(page, 'login', reports, locale);

      // The keyboard's way from the password to the submit button: both show the focus ring.
      await page.focus('input[name="password"]');
      assert.deepEqual(await focusRing(page), { tag: 'INPUT', style: 'solid', width: 3 });
      await page.keyboard.press('Tab');
      assert.deepEqual(await focusRing(page), { tag: 'BUTTON', style: 'solid', width: 3 });

      await page.fill('input[name="loginName"]', loginName(user));
      await page.fill('input[name="password"]', 'not the password');
      await page.click('button[type="submit"]');
      await page.waitForSelector('p.error[role="alert"]');
      await look(page, 'login-refused', reports, locale);

      await submitLogin(page, undefined, PASSWORD, { declineMfaOffer: false });
      await page.waitForSelector('[data-totp-enrol]');
      await look(page, 'second-factor-offer', reports, locale);
      await page.click('[data-totp-enrol]');
      const secret = String(await page.textContent('[data-totp-secret]'));
      await look(page, 'totp-enrolment', reports, locale);
      await page.fill('input[name="code"]', totpCode(secret));
      await page.click('button[type="submit"]');
      await page.waitForSelector('[data-recovery-code]');
      await look(page, 'recovery-codes', reports, locale);

      // The next sign-in asks for the second factor.
      const again = await open(locale);
      await again.page.goto(authorizeUrl());
      await submitLogin(again.page, loginName(user), PASSWORD);
      await again.page.waitForSelector('input[name="code"]');
      await look(again.page, 'second-factor', again.csp, locale);
    });

    it(`consent, the device code and its confirmation, an owed password change (${locale})`, async () => {
      const user = await person(locale);
      const resource = await createFilesResource(svc, project);
      const agent = await registerAgent(svc, project.orgId, `${RP}/cb`);
      const consent = await open(locale);
      await consent.page.goto(authorizeUrl(agent.clientId, { scope: 'openid files:read', resource }));
      await submitLogin(consent.page, loginName(user), PASSWORD);
      await consent.page.waitForSelector('[data-consent-allow]');
      await look(consent.page, 'consent', consent.csp, locale);

      const device = await createOidcApp(svc, project, { authMethod: 'none', grantTypes: [DEVICE_GRANT], responseTypes: [], redirectUris: [] });
      const started = await oidc.initiateDeviceAuthorization(await discover(svc, device.clientId, oidc.None()), { scope: 'openid' });
      const tv = await open(locale);
      await tv.page.goto(started.verification_uri);
      await tv.page.waitForSelector('input[name="userCode"]');
      await look(tv.page, 'device-code', tv.csp, locale);
      await tv.page.fill('input[name="userCode"]', started.user_code);
      await tv.page.click('button[type="submit"]');
      await tv.page.waitForSelector('[data-device-confirm]');
      await look(tv.page, 'device-confirmation', tv.csp, locale);

      const owing = await person(locale);
      const set = await svc.api('PUT', `/management/v1/orgs/${project.orgId}/users/${owing.userId}/password`, {
        token: svc.adminToken,
        body: { password: 'Temporary pass 1', changeRequired: true },
      });
      assert.equal(set.status, 200, set.text);
      const change = await open(locale);
      await change.page.goto(authorizeUrl());
      await submitLogin(change.page, loginName(owing), 'Temporary pass 1');
      await change.page.waitForSelector('[data-password-change]');
      await look(change.page, 'password-change', change.csp, locale);
    });

    it(`a refusal is titled "Access denied", never "Something went wrong"; an error page; forgot password; registration (${locale})`, async () => {
      const gated = await createOidcApp(svc, project, { authMethod: 'none', settings: { access: 'granted', homeUrl: 'https://payroll.example.com/' } }, RP);
      const user = await person(locale);
      const refused = await open(locale);
      await refused.page.goto(authorizeUrl(gated.clientId));
      await submitLogin(refused.page, loginName(user), PASSWORD);
      await refused.page.waitForSelector('[data-error="access_denied"]');
      assert.equal((await refused.page.textContent('h1'))?.trim(), formatText(locale, 'login.refusedTitle'));
      assert.ok(!String(await refused.page.textContent('body')).includes(formatText(locale, 'login.errorTitle')));
      if (locale === 'en') assert.doesNotMatch(String(await refused.page.textContent('body')), /Something went wrong|try again/i);
      await look(refused.page, 'access-denied', refused.csp, locale);

      const error = await open(locale);
      const endSession = new URL('/oidc/v1/end_session', base);
      endSession.search = new URLSearchParams({ client_id: app.clientId, post_logout_redirect_uri: `${RP}/elsewhere` }).toString();
      await error.page.goto(String(endSession));
      await error.page.waitForSelector('[data-error="invalid_request"]');
      assert.equal((await error.page.textContent('h1'))?.trim(), formatText(locale, 'login.errorTitle'));
      await look(error.page, 'error', error.csp, locale);

      const forgot = await open(locale);
      await forgot.page.goto(authorizeUrl());
      await forgot.page.click('[data-forgot-password]');
      await forgot.page.waitForSelector('[data-reset-request]');
      await look(forgot.page, 'forgot-password', forgot.csp, locale);

      const register = await open(locale);
      await register.page.goto(authorizeUrl());
      await register.page.click('a[href$="?form=register"]');
      await register.page.waitForSelector('input[name="firstName"]');
      await look(register.page, 'registration', register.csp, locale);
    });

    it(`the account page and my applications, with its empty state (${locale})`, async () => {
      const user = await person(locale);
      const { page, csp } = await open(locale);
      await page.goto(`${base}/ui/account`);
      await page.waitForURL((url) => url.pathname.startsWith('/ui/login/'));
      await submitLogin(page, loginName(user), PASSWORD);
      await page.waitForSelector('[data-account-section="sessions"]');
      await look(page, 'account', csp, locale);
      await page.click('[data-my-apps]');
      await page.waitForSelector('[data-apps-none]');
      await look(page, 'my-apps-empty', csp, locale);
    });
  }

  it('looked at every page it names', () => {
    assert.equal(looked.length, 16 * LOCALES.length, looked.join(', '));
  });
});
