import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { consoleSteps } from '../console/support/console-browser.js';
import { launchBrowser, newPage, submitLogin } from '../oidc/support/browser.js';
import { createOrg, unique, useService } from '../support/fixtures.js';

const PASSWORD = 'My apps page 1';

/**
 * `/ui/apps` (docs/application-access.md, "My applications") in Chromium: after the account page's sign-in, exactly
 * the OIDC and SAML applications the person may enter that have a `homeUrl`, each a link to exactly that URL; in
 * English and German, axe-clean, linked from `/ui/account`.
 */
describe('the page of my applications in Chromium', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let base: string;
  let orgId: string;

  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl;
    orgId = (await createOrg(svc)).id;
  });
  after(async () => {
    await browser?.close();
  });

  const api = async (method: string, path: string, body?: unknown, org = orgId) => {
    const res = await svc.api(method, `/management/v1/orgs/${org}${path}`, { token: svc.adminToken, body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const project = async (org = orgId): Promise<string> => (await api('POST', '/projects', { name: unique('p') }, org)).id;
  async function oidc(projectId: string, fields: Record<string, unknown>, org = orgId): Promise<string> {
    const body = {
      redirectUris: ['https://rp.example.com/cb'],
      responseTypes: ['code'],
      grantTypes: ['authorization_code'],
      authMethod: 'client_secret_basic',
    };
    return (await api('POST', `/projects/${projectId}/apps/oidc`, { ...body, ...fields }, org)).appId;
  }
  async function saml(projectId: string, fields: Record<string, unknown>): Promise<string> {
    const body = { entityId: `https://${unique('sp')}.example.com/saml`, acsUrls: ['https://sp.example.com/acs'] };
    return (await api('POST', `/projects/${projectId}/apps/saml`, { ...body, ...fields })).appId;
  }
  async function person(org = orgId, preferredLanguage?: string): Promise<{ userId: string; userName: string }> {
    const userName = unique('grace');
    const profile = { firstName: 'Grace', lastName: 'Hopper', ...(preferredLanguage ? { preferredLanguage } : {}) };
    const email = { email: `${userName}@example.com`, isEmailVerified: true };
    const created = await api('POST', '/users/human', { userName, profile, email, password: PASSWORD }, org);
    return { userId: created.userId, userName };
  }

  /** Opens /ui/apps without a session: the account page's sign-in, then back to /ui/apps. */
  async function openApps(userName: string): Promise<Page> {
    const { page } = await newPage(browser);
    await page.goto(`${base}/ui/apps`);
    await page.waitForURL((url) => url.pathname.startsWith('/ui/login/'));
    await submitLogin(page, userName, PASSWORD);
    await page.waitForURL((url) => url.pathname === '/ui/apps');
    return page;
  }

  const listed = (page: Page) => page.$$eval('[data-app] a', (links) => links.map((a) => ({ name: a.textContent ?? '', href: a.getAttribute('href') ?? '' })));

  it('lists exactly the applications the person may enter with their homeUrl as links, in English, axe-clean', async () => {
    const gated = await project();
    const open = await project();
    const viaGroup = await project();
    const names = { everyone: unique('A everyone'), saml: unique('B saml'), direct: unique('C direct'), group: unique('D group') };
    await oidc(open, { name: names.everyone, homeUrl: 'https://everyone.example.com/start?x=1&y=2' });
    await saml(open, { name: names.saml, homeUrl: 'https://saml.example.com/saml/v2/init' });
    await oidc(gated, { name: names.direct, access: 'granted', homeUrl: 'https://direct.example.com/' });
    await saml(viaGroup, { name: names.group, access: 'granted', homeUrl: 'https://group.example.com/home' });
    // Absent: granted without a grant, no homeUrl, another organization's.
    await oidc(await project(), { name: unique('E ungranted'), access: 'granted', homeUrl: 'https://ungranted.example.com/' });
    await oidc(open, { name: unique('F no home') });
    await saml(gated, { name: unique('G no home'), access: 'granted' });
    const other = (await createOrg(svc)).id;
    await oidc(await project(other), { name: unique('H elsewhere'), homeUrl: 'https://elsewhere.example.com/' }, other);

    const grace = await person();
    await api('POST', `/projects/${gated}/grants`, { userId: grace.userId, roles: [] });
    const group = (await api('POST', '/groups', { displayName: unique('staff') })).id;
    await api('PUT', `/groups/${group}/members/${grace.userId}`);
    await api('POST', `/projects/${viaGroup}/grants`, { groupId: group, roles: [] });

    const page = await openApps(grace.userName);
    assert.equal(await page.title(), 'Your applications');
    assert.deepEqual(await listed(page), [
      { name: names.everyone, href: 'https://everyone.example.com/start?x=1&y=2' },
      { name: names.saml, href: 'https://saml.example.com/saml/v2/init' },
      { name: names.direct, href: 'https://direct.example.com/' },
      { name: names.group, href: 'https://group.example.com/home' },
    ]);
    await consoleSteps({ browser: () => browser, base: () => base }).check(page, 'my-apps');

    // Read on use: the group leaves, its application goes; the account page links here.
    await api('DELETE', `/groups/${group}/members/${grace.userId}`);
    await page.goto(`${base}/ui/account`);
    await page.click('[data-my-apps]');
    await page.waitForURL((url) => url.pathname === '/ui/apps');
    assert.deepEqual(
      (await listed(page)).map((a) => a.name),
      [names.everyone, names.saml, names.direct],
    );
    await page.context().close();
  });

  it('speaks German to a person who prefers it, and says when there is nothing to open', async () => {
    const other = (await createOrg(svc)).id;
    const { userName } = await person(other, 'de');
    await oidc(await project(other), { name: unique('gesperrt'), access: 'granted', homeUrl: 'https://gesperrt.example.com/' }, other);
    const page = await openApps(userName);
    assert.equal(await page.title(), 'Ihre Anwendungen');
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    assert.equal((await page.textContent('[data-apps-none]'))?.trim(), 'Noch keine Anwendung zum Öffnen.');
    assert.deepEqual(await listed(page), []);
    await consoleSteps({ browser: () => browser, base: () => base }).check(page, 'my-apps-de');
    await page.context().close();
  });
});
