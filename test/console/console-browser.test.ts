import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../oidc/support/browser.js';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { SCREENSHOTS, consoleSteps } from './support/console-browser.js';

/**
 * The operator console as an operator uses it, in Chromium (docs/console.md), driven by
 * accessible names only: every control must have one. On every page visited, axe-core finds no serious
 * or critical violation, the CSP reports nothing and no request leaves for another host.
 *
 * Steps marked "new route" need the read/change/delete routes of docs/product-rules.md, "Changing and removing resources".
 */
describe('the operator console in Chromium', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let base: string;
  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl.replace(/\/$/, '');
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(() => browser?.close());

  const { open, check, signIn, signOut, nav } = consoleSteps({ browser: () => browser, base: () => base });

  it('the bootstrap admin signs in, creates an organization, a project, an application and a user, deactivates and reactivates it, finds its events and signs out', async () => {
    const { context, page, problems } = await open();
    try {
      // README: open http://localhost:8080 and sign in as admin with the password in data/admin.password.
      const password = readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim();
      await page.goto(`${base}/`);
      assert.equal(new URL(page.url()).pathname, '/console/');
      await page.getByRole('heading', { name: 'Portcullis console' }).waitFor();
      await check(page, 'sign-in');
      await signIn(page, 'admin', password);

      // An instance owner starts at the organizations.
      await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
      const orgName = unique('Console Org');
      await page.getByLabel('Name', { exact: true }).fill(orgName);
      await page.getByRole('button', { name: 'Create organization' }).click();
      const orgRow = page.getByRole('row').filter({ hasText: orgName });
      await orgRow.waitFor();
      await check(page, 'organizations');
      // The `default` organization offers no Delete (it cannot be removed); others do.
      const defaultRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'default', exact: true }) });
      await defaultRow.waitFor();
      assert.equal(await defaultRow.getByRole('button', { name: 'Delete' }).count(), 0);
      assert.equal(await orgRow.getByRole('button', { name: 'Delete' }).count(), 1);

      // Into the organization: its users (new route: GET …/users), then its projects.
      await orgRow.getByRole('link', { name: orgName }).click();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      const orgId = new URL(page.url()).pathname.split('/')[3];
      await nav(page).getByRole('link', { name: 'Projects' }).click();
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Shop');
      await page.getByRole('button', { name: 'Create project' }).click();
      // (new route: GET …/projects lists it)
      await page.getByRole('row').filter({ hasText: 'Shop' }).getByRole('link', { name: 'Shop' }).click();
      // The project's page is titled by the project; its applications are a section.
      await page.getByRole('heading', { name: 'Shop', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Applications', level: 2 }).waitFor();

      // An OIDC application; its secret is shown once, with a copy button.
      await page.getByRole('button', { name: 'New OIDC application' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Shop web');
      await page.getByLabel('Redirect URIs (one per line)', { exact: true }).fill('http://localhost:3000/callback');
      await page.getByLabel('Client authentication').selectOption('client_secret_basic');
      await page.getByLabel('Development mode (allow http and loopback redirect URIs)').check();
      await page.getByRole('button', { name: 'Create application' }).click();
      const secret = page.getByRole('textbox', { name: 'Client secret', exact: true });
      await secret.waitFor();
      assert.ok((await secret.inputValue()).length >= 32, 'the client secret is shown');
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), await secret.inputValue());
      await check(page, 'application-created');
      await page.getByRole('button', { name: 'Done' }).click();
      assert.equal(await page.getByRole('textbox', { name: 'Client secret', exact: true }).count(), 0, 'shown once: gone after Done');
      // (new route: GET …/apps lists it)
      const appRow = page.getByRole('row').filter({ hasText: 'Shop web' });
      await appRow.waitFor();
      // A new secret, shown once (new route: POST …/apps/{appId}/secret); new redirect URIs (new route: PATCH …/apps/{appId}).
      await appRow.getByRole('button', { name: 'Regenerate secret' }).click();
      const regenerated = appRow.getByRole('textbox', { name: 'Client secret', exact: true });
      await regenerated.waitFor();
      assert.notEqual(await regenerated.inputValue(), await page.evaluate<string>('navigator.clipboard.readText()'), 'a new secret');
      await appRow.getByRole('button', { name: 'Done' }).click();
      await appRow.getByRole('button', { name: 'Edit application' }).click();
      await appRow.getByLabel('Redirect URIs (one per line)', { exact: true }).fill('http://localhost:3000/callback\nhttp://localhost:3001/callback');
      await appRow.getByRole('button', { name: 'Save' }).click();
      await appRow.getByRole('button', { name: 'Edit application' }).waitFor();
      await appRow.getByRole('button', { name: 'Edit application' }).click();
      assert.equal(
        await appRow.getByLabel('Redirect URIs (one per line)', { exact: true }).inputValue(),
        'http://localhost:3000/callback\nhttp://localhost:3001/callback',
      );

      // Groups of the organization.
      await nav(page).getByRole('link', { name: 'Groups' }).click();
      await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
      await page.getByLabel('Display name').fill('Staff');
      await page.getByRole('button', { name: 'Create group' }).click();
      await page.getByRole('row').filter({ hasText: 'Staff' }).waitFor();
      await check(page, 'groups');

      // A person with a password.
      await nav(page).getByRole('link', { name: 'Users' }).click();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'New person' }).click();
      const userName = unique('jane');
      await page.getByLabel('User name', { exact: true }).fill(userName);
      await page.getByLabel('First name').fill('Jane');
      await page.getByLabel('Last name').fill('Doe');
      await page.getByLabel('E-mail', { exact: true }).fill(`${userName}@example.com`);
      await page.getByLabel('Initial password (optional)').fill('Console-Secret-42');
      await page.getByRole('button', { name: 'Create user' }).click();
      // The user's page (new route: GET …/users/{userId}).
      await page.getByRole('heading', { name: 'User', level: 1 }).waitFor();
      await page.waitForURL(/\/users\/[^/]+$/);
      const userId = new URL(page.url()).pathname.split('/').pop()!;
      await page.getByText(userName, { exact: true }).waitFor();
      await check(page, 'user');

      // Deactivate and reactivate (new routes: POST …/deactivate, …/reactivate).
      await page.getByRole('button', { name: 'Deactivate' }).click();
      await page.getByRole('status').filter({ hasText: 'The user is deactivated.' }).waitFor();
      await page.getByRole('button', { name: 'Reactivate' }).click();
      await page.getByRole('status').filter({ hasText: 'The user is active again.' }).waitFor();
      await page.getByRole('button', { name: 'Deactivate' }).waitFor();

      // The search finds the new user (new route: GET …/users?query=).
      await nav(page).getByRole('link', { name: 'Users' }).click();
      await page.getByLabel('Search by name or e-mail').fill(userName);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('row').filter({ hasText: userName }).waitFor();
      await check(page, 'users');

      // Its events, newest first.
      await nav(page).getByRole('link', { name: 'Events' }).click();
      // The newest page is there without a search: the user's reactivation is among the newest.
      const events = page.getByRole('table', { name: 'Events' });
      await events.locator('tbody tr').filter({ hasText: 'user.reactivated' }).first().waitFor();
      await page.getByLabel('Aggregate ID').fill(userId);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForFunction((id) => [...document.querySelectorAll('table tbody tr')].every((row) => row.textContent?.includes(id)), userId);
      const types = await events.locator('tbody tr th').allTextContents();
      // Newest first; other events of the user (if any) may sit between these.
      const at = (type: string) => types.indexOf(type);
      assert.ok(at('user.human.added') >= 0 && at('user.reactivated') >= 0 && at('user.deactivated') >= 0, types.join(', '));
      assert.ok(at('user.reactivated') < at('user.deactivated') && at('user.deactivated') < at('user.human.added'), types.join(', '));
      await check(page, 'events');

      // The other instance pages render and pass axe (new route for the keys list: GET /admin/v1/keys).
      for (const [link, heading, name] of [
        ['Instance members', 'Instance members', 'instance-members'],
        ['Webhooks', 'Webhooks', 'webhooks'],
        ['Audit streams', 'Audit streams', 'audit-streams'],
        ['Signing keys', 'Signing keys', 'signing-keys'],
        ['Features', 'Features', 'features'],
      ] as const) {
        await nav(page).getByRole('link', { name: link, exact: true }).first().click();
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        await page.getByText('Loading…').waitFor({ state: 'detached' });
        await check(page, name);
      }
      // The organization's members (new route: GET …/members lists them) and webhooks.
      for (const [path, heading, name] of [
        ['members', 'Members', 'org-members'],
        ['webhooks', 'Webhooks', 'org-webhooks'],
        ['audit-streams', 'Audit streams', 'org-audit-streams'],
      ] as const) {
        await page.goto(`${base}/console/orgs/${orgId}/${path}`);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        await page.getByText('Loading…').waitFor({ state: 'detached' });
        await check(page, name);
      }
      // An audit stream added by its form (syslog over plain TCP to a closed loopback port): listed with what it has
      // not delivered and, once the receiver refused a batch, why; found by its name; removed.
      await page.goto(`${base}/console/orgs/${orgId}/audit-streams`);
      const addStream = page.getByRole('form', { name: 'Add audit stream' });
      await addStream.getByLabel('Name', { exact: true }).fill('siem-console');
      await addStream.getByLabel('URL', { exact: true }).fill('syslog+tcp://127.0.0.1:9');
      await addStream.getByRole('button', { name: 'Add audit stream' }).click();
      const streamRow = page
        .getByRole('table', { name: 'Audit streams' })
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'siem-console' }) });
      await streamRow.waitFor();
      const streamsNow = () => svc.api('GET', `/management/v1/orgs/${orgId}/audit-streams`, { token: svc.adminToken });
      assert.equal((await streamsNow()).body.streams[0].url, 'syslog+tcp://127.0.0.1:9');
      const search = page.getByRole('search', { name: 'Search Audit streams' });
      await search.getByLabel('Search by name').fill('nothing-like-it');
      await search.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('Nothing matches “nothing-like-it”.').waitFor();
      await search.getByLabel('Search by name').fill('SIEM');
      await search.getByRole('button', { name: 'Search', exact: true }).click();
      await streamRow.getByRole('button', { name: 'Delete' }).click();
      await streamRow.getByRole('button', { name: 'Yes, delete' }).click();
      await page.getByText('Nothing matches “SIEM”.').waitFor();
      assert.equal((await streamsNow()).body.total, 0);

      await page.goto(`${base}/console/orgs/${orgId}/login-policy`);
      await page.getByLabel('Second factor').waitFor();
      await check(page, 'login-policy');

      // German, through the switch.
      await page.getByLabel('Language').selectOption('de');
      await page.getByRole('heading', { name: 'Anmelderichtlinie', level: 1 }).waitFor();
      await check(page, 'login-policy-de');
      await page.getByLabel('Sprache').selectOption('en');

      await signOut(page);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it("an ORG_USER_MANAGER sees only its organization's users and no instance page", async () => {
    const org = await createOrg(svc);
    const other = await createOrg(svc);
    const admin = svc.adminToken;
    const human = (orgId: string, userName: string) =>
      svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
        token: admin,
        body: {
          userName,
          profile: { firstName: 'Max', lastName: 'Muster' },
          email: { email: `${userName}@example.com`, isEmailVerified: true },
          password: 'Manager-Secret-42',
        },
      });
    const managerName = unique('manager');
    const created = await human(org.id, managerName);
    assert.equal(created.status, 201, created.text);
    const granted = await svc.api('PUT', `/management/v1/orgs/${org.id}/members/${created.body.userId}`, {
      token: admin,
      body: { roles: ['ORG_USER_MANAGER'] },
    });
    assert.equal(granted.status, 200, granted.text);
    const colleague = unique('colleague');
    assert.equal((await human(org.id, colleague)).status, 201);
    const stranger = unique('stranger');
    assert.equal((await human(other.id, stranger)).status, 201);

    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, `${managerName}@${org.primaryDomain}`, 'Manager-Secret-42');
      // Straight to its organization's users (new route: GET …/users).
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      assert.equal(new URL(page.url()).pathname, `/console/orgs/${org.id}/users`);
      const links = await nav(page).getByRole('link').allTextContents();
      assert.deepEqual(links, ['Users', 'Groups', 'Agents']);
      assert.equal(await nav(page).getByRole('heading', { name: 'Instance' }).count(), 0);
      await page.getByRole('row').filter({ hasText: colleague }).waitFor();
      assert.equal(await page.getByRole('row').filter({ hasText: stranger }).count(), 0);
      await check(page, 'org-user-manager-users');

      // An instance page is not there for it, whatever the address bar says.
      await page.goto(`${base}/console/orgs`);
      await page.getByText('This page does not exist, or your roles do not allow it.').waitFor();
      assert.equal(await page.getByRole('heading', { name: 'Organizations' }).count(), 0);
      // Another organization's users: the API answers 404, and the console says so.
      await page.goto(`${base}/console/orgs/${other.id}/users`);
      await page.getByRole('alert').filter({ hasText: 'Error 404' }).waitFor();
      assert.equal(await page.getByRole('row').filter({ hasText: stranger }).count(), 0);
      await signOut(page);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
