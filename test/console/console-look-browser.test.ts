import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../oidc/support/browser.js';
import { createHuman, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import { useService } from '../support/fixtures.js';
import { consoleSteps } from './support/console-browser.js';

/** axe-core's rules of WCAG 2.0, 2.1 and 2.2, levels A and AA. */
const WCAG_AA = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } };
/** What the colour scheme changes: in dark, the rules about colours run again. */
const COLOUR_RULES = { runOnly: { type: 'rule', values: ['color-contrast', 'link-in-text-block'] } };
/** The page background of the design system's tokens (docs/design.md), light and dark: proof the console uses them. */
const BACKGROUND = { light: 'rgb(244, 245, 247)', dark: 'rgb(14, 16, 20)' };
/** With DESIGN_SCREENSHOTS=1 each page is also written at 1280 and 360 px, light and dark, into docs/screenshots/. */
const SCREENSHOTS = process.env.DESIGN_SCREENSHOTS ? new URL('../../../docs/screenshots/', import.meta.url).pathname : undefined;

/**
 * The console's look (docs/design.md, docs/console.md) in Chromium: every page on the design system's tokens, light
 * and dark, no horizontal overflow at 1280 or 360 px, no WCAG 2.2 AA violation (axe-core); one navigation entry
 * current; people and roles by name; the events as a timeline with details and filters; the forms that explain
 * themselves (an OIDC application's field errors, a webhook's misspelt event type, the key rotation's question, the
 * identity provider's claim).
 */
describe("the console's look in Chromium", () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let base: string;
  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl.replace(/\/$/, '');
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(() => browser?.close());

  const { open, signIn, nav } = consoleSteps({ browser: () => browser, base: () => base });

  /** The checks of one page, light and dark, at 1280 and 360 px; the page ends light at 1280 px. */
  async function look(page: Page, name: string): Promise<void> {
    await page.getByText('Loading…').first().waitFor({ state: 'detached' });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      assert.equal(await page.evaluate('getComputedStyle(document.body).backgroundColor'), BACKGROUND[scheme], `${name}: the ${scheme} tokens apply`);
      for (const width of [1280, 360]) {
        await page.setViewportSize({ width, height: 800 });
        const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
        assert.ok(overflow <= 0, `${name} at ${width} px, ${scheme}: ${overflow} px of horizontal overflow`);
        if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `console-${name}-${width}-${scheme}.png`), fullPage: true });
      }
      assert.deepEqual(await violations(page, scheme === 'light' ? WCAG_AA : COLOUR_RULES), [], `${name}, ${scheme}: axe-core finds no WCAG 2.2 AA violation`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  async function violations(page: Page, options: object): Promise<string[]> {
    if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(axe.source);
    const found = await page.evaluate(
      `axe.run(document, ${JSON.stringify(options)}).then((r) => JSON.stringify(r.violations.map((v) => v.id + ': ' + v.help + ' (' + v.nodes.map((n) => n.target.join(' ')).join(', ') + ')')))`,
    );
    return JSON.parse(String(found));
  }

  const current = (page: Page) => nav(page).locator('[aria-current="page"]').allTextContents();

  it('every page of an instance owner and an organization owner, light and dark, at 1280 and 360 px', async () => {
    const project = await createProject(svc);
    const { orgId, projectId } = project;
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    const ada = await createHuman(svc, orgId);
    const admin = (method: string, path: string, body?: unknown) => svc.api(method, path, { token: svc.adminToken, body });
    assert.equal(
      (await admin('POST', `/management/v1/orgs/${orgId}/projects/${projectId}/roles`, { key: 'payroll_admin', displayName: 'Payroll admins' })).status,
      201,
    );
    assert.equal(
      (await admin('POST', `/management/v1/orgs/${orgId}/projects/${projectId}/grants`, { userId: ada.userId, roles: ['payroll_admin'] })).status,
      201,
    );
    const projectName = (await admin('GET', `/management/v1/orgs/${orgId}/projects/${projectId}`)).body.name as string;
    const group = await admin('POST', `/management/v1/orgs/${orgId}/groups`, { displayName: 'Payroll admins' });
    assert.equal(group.status, 201, group.text);
    assert.ok((await admin('PUT', `/management/v1/orgs/${orgId}/groups/${group.body.id}/members/${ada.userId}`)).status < 300);

    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      await look(page, 'sign-in');
      await signIn(page, 'admin', readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim());

      await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
      await look(page, 'organizations');

      // The project page is titled by the project; its grant names the person and the role, ids on hover.
      await page.goto(`${base}/console/orgs/${orgId}/projects/${projectId}`);
      await page.getByRole('heading', { name: projectName, level: 1 }).waitFor();
      const grant = page.getByRole('table', { name: 'Grants' }).getByRole('row', { name: new RegExp(`Ada Lovelace \\(${ada.userName}\\)`) });
      await grant.waitFor();
      assert.equal(await grant.locator('th').getAttribute('title'), ada.userId);
      assert.match((await grant.textContent()) ?? '', /Payroll admins/);
      assert.doesNotMatch((await grant.textContent()) ?? '', new RegExp(ada.userId));
      assert.deepEqual(await current(page), ['Projects'], 'one navigation entry is current');
      await look(page, 'project');

      // The OIDC form: a refused redirect URI names the field; its options stay within a phone's width.
      await page.getByRole('button', { name: 'New OIDC application' }).click();
      const create = page.getByRole('form', { name: 'New OIDC application' });
      await create.getByLabel('Name', { exact: true }).fill('Payroll');
      await create.getByLabel('Redirect URIs (one per line)', { exact: true }).fill('not a url');
      await create.getByRole('button', { name: 'Create application' }).click();
      const refused = create.getByRole('alert');
      await refused.waitFor();
      assert.match((await refused.textContent()) ?? '', /redirectUris/, 'the API’s field details are shown');
      await look(page, 'project-new-oidc-app');

      await page.goto(`${base}/console/orgs/${orgId}/projects/${projectId}/apps/${app.appId}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await look(page, 'application');

      for (const [path, heading, name] of [
        ['users', 'Users', 'users'],
        [`users/${ada.userId}`, 'User', 'user'],
        ['groups', 'Groups', 'groups'],
        ['projects', 'Projects', 'projects'],
        ['members', 'Members', 'org-members'],
        ['login-policy', 'Login policy', 'login-policy'],
        ['domains', 'Domains', 'domains'],
        ['provisioning', 'Provisioning targets', 'provisioning'],
        ['registered-clients', 'Registered clients', 'registered-clients'],
      ] as const) {
        await page.goto(`${base}/console/orgs/${orgId}/${path}`);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        assert.equal((await current(page)).length, 1, `${name}: one navigation entry is current`);
        await look(page, name);
      }

      // The identity provider form explains the claim it asks for.
      await page.goto(`${base}/console/orgs/${orgId}/idps`);
      const idp = page.getByRole('form', { name: 'Add identity provider' });
      await idp.getByLabel('Link existing users by').selectOption('email');
      const claim = idp.getByLabel('Claim to match');
      const hint = await claim.getAttribute('aria-describedby');
      assert.ok(hint, 'the claim has a hint');
      assert.match((await page.locator(`[id="${hint}"]`).textContent()) ?? '', /claim \(OIDC\) or attribute \(SAML\).*email/);
      await look(page, 'identity-providers');

      // A webhook's misspelt event type is named, with the type it likely meant; nothing is created.
      await page.goto(`${base}/console/orgs/${orgId}/webhooks`);
      const hook = page.getByRole('form', { name: 'Create webhook' });
      await hook.getByLabel('URL').fill('https://hooks.example.com/in');
      await hook.getByLabel('Event types (comma-separated, optional)').fill('user.humna.added');
      await hook.getByRole('button', { name: 'Create webhook' }).click();
      await hook.getByRole('alert').filter({ hasText: '"user.humna.added" is not a known event type. Did you mean "user.human.added"?' }).waitFor();
      assert.equal((await admin('GET', `/management/v1/orgs/${orgId}/webhooks`)).body.total, 0);
      await page.getByText('Choose from the known event types').click();
      await hook.getByRole('checkbox', { name: 'user.human.added', exact: true }).waitFor();
      await look(page, 'webhooks');

      // Audit streams and directories: their empty states say what to do next.
      for (const [path, heading, name] of [
        ['audit-streams', 'Audit streams', 'audit-streams'],
        ['directories', 'Directories', 'directories'],
      ] as const) {
        await page.goto(`${base}/console/orgs/${orgId}/${path}`);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        await page.getByText(`No ${heading.toLowerCase()} yet.`).waitFor();
        await look(page, name);
      }

      // Rotating the signing key asks first and speaks of the relying parties' JWKS caches.
      const keysBefore = (await admin('GET', '/admin/v1/keys')).body.keys.length as number;
      await nav(page).getByRole('link', { name: 'Signing keys' }).click();
      await page.getByRole('button', { name: 'Rotate signing key' }).click();
      await page.getByText(/cache the JWKS/).waitFor();
      await look(page, 'signing-keys-rotate');
      await page.getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await admin('GET', '/admin/v1/keys')).body.keys.length, keysBefore, 'nothing rotates without a yes');

      for (const [link, name] of [
        ['Instance members', 'instance-members'],
        ['Unbound registered clients', 'unbound-registered-clients'],
        ['Features', 'features'],
        ['Settings', 'settings'],
      ] as const) {
        await nav(page).getByRole('link', { name: link, exact: true }).click();
        await page.getByRole('heading', { name: link, level: 1 }).waitFor();
        assert.deepEqual(await current(page), [link]);
        await look(page, name);
      }

      // Events: a timeline by name, routine sign-in checks folded, details on demand, a type prefix filter.
      await nav(page).getByRole('link', { name: 'Events' }).click();
      const events = page.getByRole('table', { name: 'Events' });
      await events.locator('tbody tr').first().waitFor();
      const added = events
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'user.human.added', exact: true }) })
        .first();
      const sentence = (row: typeof added) => row.getByRole('cell').nth(1).innerText();
      assert.match(await sentence(added), /^\S.* added Ada Lovelace$/);
      // "Alice added Bob to Payroll admins": who, whom and which group by name, each id on hover, no id in the text.
      const joined = events
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'group.member.added', exact: true }) })
        .first();
      assert.match(await sentence(joined), /^\S.* added Ada Lovelace to Payroll admins$/);
      const titles = await joined
        .getByRole('cell')
        .nth(1)
        .locator('[title]')
        .evaluateAll((spans) => spans.map((s) => s.getAttribute('title')));
      assert.equal(titles.length, 3, 'the admin, Ada and the group each carry their id');
      assert.ok(titles[1]?.endsWith(ada.userId), String(titles[1]));
      assert.equal(titles[2], group.body.id);
      assert.doesNotMatch(await sentence(joined), new RegExp(`${ada.userId}|${group.body.id}`));
      assert.match((await added.locator('time').textContent()) ?? '', /ago|now/);
      assert.ok(await added.locator('time').getAttribute('title'), 'the exact time on hover');
      assert.equal(await events.getByRole('rowheader', { name: 'user.human.password.check.succeeded', exact: true }).count(), 0, 'routine checks are folded');
      await added.getByText('Details').click();
      await added.getByRole('button', { name: 'Only events about this' }).waitFor();
      await look(page, 'events');
      await page.getByLabel('Event type or prefix (comma-separated)').fill('project.role');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForFunction(() => [...document.querySelectorAll('table tbody tr th')].every((th) => th.textContent?.startsWith('project.role.')));
      await page.getByLabel('Event type or prefix (comma-separated)').fill('projct');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'No event type is or starts with "projct".' }).waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
