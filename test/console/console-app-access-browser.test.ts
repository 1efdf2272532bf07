import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../oidc/support/browser.js';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { SCREENSHOTS, consoleSteps } from './support/console-browser.js';

/**
 * Application access in the operator console (docs/application-access.md): an organization owner adds a project's
 * roles, grants them to a group (the group picker) and a user (the user picker), edits and removes them, switches an
 * application to `granted` with a home URL, and reads a user's effective grants on the user's page. By accessible
 * names; every outcome checked through the API; each page axe-clean.
 */
describe('application access in the operator console (Chromium)', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let base: string;
  let orgId: string;
  let projectId: string;
  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl.replace(/\/$/, '');
    mkdirSync(SCREENSHOTS, { recursive: true });
    orgId = (await createOrg(svc)).id;
    projectId = (await call('POST', '/projects', { name: unique('Payroll') })).id;
  });
  after(() => browser?.close());
  const { open, check, signIn } = consoleSteps({ browser: () => browser, base: () => base });
  const password = () => readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim();
  async function call(method: string, path: string, body?: unknown) {
    const res = await svc.api(method, `/management/v1/orgs/${orgId}${path}`, { token: svc.adminToken, body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  }

  it('manages roles and grants with the pickers, the access switch and home URL, and shows effective grants', async () => {
    const userName = unique('carol');
    const user = await call('POST', '/users/human', {
      userName,
      profile: { firstName: 'Carol', lastName: 'Shaw' },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      password: 'Console access 1',
    });
    const groupName = unique('Approvers');
    const group = await call('POST', '/groups', { displayName: groupName });
    await call('PUT', `/groups/${group.id}/members/${user.userId}`);
    const app = await call('POST', `/projects/${projectId}/apps/oidc`, {
      name: unique('Payroll web'),
      redirectUris: ['https://payroll.example.com/cb'],
      responseTypes: ['code'],
      grantTypes: ['authorization_code'],
      authMethod: 'client_secret_basic',
    });
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', password());
      await page.goto(`${base}/console/orgs/${orgId}/projects/${projectId}`);
      await page.getByRole('heading', { name: 'Roles of the project' }).waitFor();

      // Roles: two added, one renamed.
      const addRole = page.getByRole('form', { name: 'Add role' });
      for (const key of ['approver', 'viewer']) {
        await addRole.getByLabel('Role key').fill(key);
        await addRole.getByRole('button', { name: 'Add role' }).click();
        await page.getByRole('row', { name: new RegExp(`^${key}`) }).waitFor();
      }
      await page.getByRole('button', { name: 'Edit role viewer' }).click();
      const editRole = page.getByRole('form', { name: 'Edit role viewer' });
      await editRole.getByLabel('Display name').fill('Viewer');
      await editRole.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('cell', { name: 'Viewer', exact: true }).waitFor();

      // A grant to the group with a role, one to the user (found by name) with none.
      const addGrant = page.getByRole('form', { name: 'Add grant' });
      await addGrant.getByLabel('Grant to').selectOption('group');
      await addGrant.getByLabel(/^Group/).selectOption(group.id);
      await addGrant.getByRole('checkbox', { name: 'approver' }).check();
      await addGrant.getByRole('button', { name: 'Add grant' }).click();
      await page.getByRole('row', { name: new RegExp(`Group ${groupName}`) }).waitFor();
      await addGrant.getByLabel('Grant to').selectOption('user');
      await addGrant.getByLabel('Find a user by name').fill(userName);
      await addGrant.getByRole('button', { name: new RegExp(`^Choose .*${userName}`) }).click();
      await addGrant.getByRole('button', { name: 'Add grant' }).click();
      // The grant names the person (the id only on hover).
      await page.getByRole('row', { name: `Carol Shaw (${userName})` }).waitFor();
      await check(page, 'project-roles-grants');
      const grants = (await call('GET', `/projects/${projectId}/grants`)).grants as { grantId: string; userId?: string; groupId?: string; roles: string[] }[];
      assert.deepEqual(
        grants.map((g) => ({ userId: g.userId, groupId: g.groupId, roles: g.roles })),
        [
          { userId: undefined, groupId: group.id, roles: ['approver'] },
          { userId: user.userId, groupId: undefined, roles: [] },
        ],
      );

      // The user's grant gains a role; removing the role "approver" takes it out of the group's grant.
      await page.getByRole('button', { name: `Edit the grant of Carol Shaw (${userName})` }).click();
      const editGrant = page.getByRole('form', { name: `Edit the grant of Carol Shaw (${userName})` });
      await editGrant.getByRole('checkbox', { name: 'viewer' }).check();
      await editGrant.getByRole('button', { name: 'Save' }).click();
      await editGrant.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Remove role approver' }).click();
      await page.getByRole('button', { name: 'Yes, delete' }).click();
      await page.getByRole('row', { name: /^approver/ }).waitFor({ state: 'detached' });
      const after = (await call('GET', `/projects/${projectId}/grants`)).grants as { userId?: string; roles: string[] }[];
      assert.deepEqual(
        after.map((g) => g.roles),
        [[], ['viewer']],
      );

      // The application: only granted people, with its home URL.
      await page.goto(`${base}/console/orgs/${orgId}/projects/${projectId}/apps/${app.appId}`);
      const access = page.getByRole('form', { name: 'Who may enter' });
      await access.getByLabel('Access').selectOption('granted');
      await access.getByLabel(/^Home URL/).fill('https://payroll.example.com/');
      await access.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      await check(page, 'application-access');
      const stored = await call('GET', `/projects/${projectId}/apps/${app.appId}`);
      assert.deepEqual([stored.access, stored.homeUrl], ['granted', 'https://payroll.example.com/']);

      // The user's page: one effective grant of its own, one through the group.
      await page.goto(`${base}/console/orgs/${orgId}/users/${user.userId}`);
      const table = page.getByRole('table', { name: 'Effective grants' });
      await table.waitFor();
      await page.getByRole('cell', { name: `group ${groupName}` }).waitFor();
      const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent?.trim())));
      assert.equal(rows.length, 2);
      assert.deepEqual(rows.map((r) => r.slice(1)).sort(), [
        ['no roles', `group ${groupName}`],
        ['viewer', 'the user’s own grant'],
      ]);
      // A short list the API returns whole is filtered where it is shown.
      const filter = page.getByRole('search', { name: 'Filter Effective grants' }).getByLabel('Filter this list');
      const ownGrant = table.locator('tbody tr').filter({ hasText: 'the user’s own grant' });
      await filter.fill(groupName);
      await ownGrant.waitFor({ state: 'hidden' });
      assert.deepEqual(await table.locator('tbody tr:not([hidden]) td:last-child').allInnerTexts(), [`group ${groupName}`]);
      await filter.fill('no-such-grant');
      await page.getByRole('status').filter({ hasText: 'Nothing matches “no-such-grant”.' }).waitFor();
      assert.equal(await table.locator('tbody tr:not([hidden])').count(), 0);
      await filter.fill('');
      await ownGrant.waitFor();
      assert.equal(await table.locator('tbody tr:not([hidden])').count(), 2);
      await check(page, 'user-effective-grants');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
