import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../oidc/support/browser.js';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { eventually } from '../faults/faults.helpers.js';
import { ScimmyTarget } from '../provisioning/support/scimmy-target.js';
import { SCREENSHOTS, consoleSteps } from './support/console-browser.js';

const PEER_TOKEN = 'console-peer-token-5d1f0a';
/** The confirmation every removal asks for (components.tsx, DeleteButton). */
const CONFIRM = 'Yes, delete';

/**
 * The console's outbound provisioning pages (docs/console.md, docs/provisioning.md), in Chromium by
 * accessible names: an organization owner adds a target pointing at a real SCIM peer (scimmy, with a fault switch),
 * tests its connection, watches a user pushed and a user failing with the peer's error, retries it, plans and
 * applies a reconcile, edits the target with its token kept and removes it. Bad input shows the server's 400 and
 * creates nothing. The peer is on loopback: OUTBOUND_ALLOW_PRIVATE_NETWORKS lets it through.
 */
describe('outbound provisioning in the operator console (Chromium)', () => {
  const svc = useService({
    PUBLIC_URL: 'http://localhost:{port}',
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    PROVISIONING_RETRY_BASE_MS: '50',
    PROVISIONING_RETRY_WINDOW_MS: '600000',
  });
  let browser: Browser;
  let base: string;
  let peer: ScimmyTarget;
  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl.replace(/\/$/, '');
    mkdirSync(SCREENSHOTS, { recursive: true });
    peer = await ScimmyTarget.start(PEER_TOKEN);
  });
  after(async () => {
    await browser?.close();
    await peer?.close();
  });
  const { open, check, signIn } = consoleSteps({ browser: () => browser, base: () => base });
  const password = () => readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim();
  const admin = (method: string, path: string, body?: unknown) => svc.api(method, path, { token: svc.adminToken, body });
  const targets = (orgId: string) => `/management/v1/orgs/${orgId}/provisioning/targets`;
  const people = new Map<string, string>();
  const person = async (orgId: string) => {
    const userName = unique('pushed');
    const res = await admin('POST', `/management/v1/orgs/${orgId}/users/human`, {
      userName,
      profile: { firstName: 'Ada', lastName: 'Lovelace' },
      email: { email: `${userName}@example.com` },
    });
    assert.equal(res.status, 201, res.text);
    people.set(res.body.userId, userName);
    return res.body.userId as string;
  };
  const inPeer = (userId: string) => peer.users.find((u) => u.externalId === userId);

  /** The row of an object in the objects table, once Refresh shows it with `text` (the pusher works in the background). */
  const objectRow = (page: Page, userId: string, text: RegExp) =>
    eventually(
      `${userId} shown as ${text}`,
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        const row = page
          .getByRole('table', { name: 'Objects' })
          .getByRole('row')
          .filter({ hasText: `(${people.get(userId)})` });
        return (await row.count()) === 1 && text.test((await row.textContent()) ?? '') ? row : undefined;
      },
      30_000,
      250,
    );

  /** The status list, once Refresh shows the count of `key` the API reads (at least one). */
  const statusShows = (page: Page, orgId: string, targetId: string, key: 'provisioned' | 'failing') =>
    eventually(
      `status shows ${key}`,
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        const count = (await admin('GET', `${targets(orgId)}/${targetId}/status`)).body.objects[key];
        const label = { provisioned: 'Provisioned\\s*(\\d+)\\s*Pending', failing: 'Failing\\s*(\\d+)\\s*Conflict' }[key];
        const shown = new RegExp(label).exec((await page.locator('[data-target-status]').textContent()) ?? '')?.[1];
        return count >= 1 && shown === String(count) ? true : undefined;
      },
      30_000,
      250,
    );

  it('adds a target, tests its connection, shows a pushed user and a failing one with its error, edits it (token kept, then OAuth client credentials) and deletes it', async () => {
    const orgId = (await createOrg(svc)).id;
    const pushed = await person(orgId);
    const groupName = unique('Engineering');
    const group = await admin('POST', `/management/v1/orgs/${orgId}/groups`, { displayName: groupName });
    assert.equal(group.status, 201, group.text);
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', password());
      await page.goto(`${base}/console/orgs/${orgId}/users`);
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Provisioning' }).click();
      await page.getByRole('heading', { name: 'Provisioning targets', level: 1 }).waitFor();
      await page.getByText('No provisioning targets yet.').waitFor();

      const form = page.getByRole('form', { name: 'Add provisioning target' });
      const name = unique('scimmy');
      await form.getByLabel('Name', { exact: true }).fill(name);
      await form.getByLabel('SCIM base URL').fill(peer.baseUrl);
      await form.getByLabel('Token', { exact: true }).fill(PEER_TOKEN);
      await form.getByLabel('When a user is deleted or leaves the scope').selectOption('deactivate');
      await form.getByRole('button', { name: 'Add provisioning target' }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      const [target] = (await admin('GET', targets(orgId))).body.targets;
      assert.equal(new URL(page.url()).pathname, `/console/orgs/${orgId}/provisioning/${target.id}`);
      assert.deepEqual(
        [target.name, target.baseUrl, target.auth, target.scope, target.enabled],
        [name, peer.baseUrl, { type: 'bearer' }, { users: 'all', groupIds: [] }, true],
      );

      // The list finds it by a part of its name, and says so when nothing matches (the server's `?query=`).
      await page.goto(`${base}/console/orgs/${orgId}/provisioning`);
      const search = page.getByRole('search', { name: 'Search Provisioning targets' });
      await search.getByLabel('Search by name').fill(name.slice(2).toUpperCase());
      await search.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('table', { name: 'Provisioning targets' }).getByRole('link', { name, exact: true }).waitFor();
      await search.getByLabel('Search by name').fill('nothing-like-it');
      await search.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('Nothing matches “nothing-like-it”.').waitFor();
      await page.goto(`${base}/console/orgs/${orgId}/provisioning/${target.id}`);
      await page.getByRole('heading', { name, level: 1 }).waitFor();

      // Test connection: what the peer's ServiceProviderConfig says, as the API reads it.
      await page.getByRole('button', { name: 'Test connection' }).click();
      const tested = page.getByRole('status').filter({ hasText: 'Connected' });
      await tested.waitFor();
      const said = (await admin('POST', `${targets(orgId)}/${target.id}/test`, {})).body;
      const yes = (v: boolean) => (v ? 'yes' : 'no');
      assert.equal(said.patch, true);
      assert.match(
        (await tested.textContent()) ?? '',
        new RegExp(`PATCH supported${yes(said.patch)}Filter supported${yes(said.filter)}Bulk supported${yes(said.bulk)}$`),
      );

      // The first sync pushes the person; the status counts it.
      await objectRow(page, pushed, /Provisioned/);
      assert.ok(inPeer(pushed), 'the user is at the peer');
      await statusShows(page, orgId, target.id, 'provisioned');

      // A peer fault (400) fails the next user at once: its answer and error are shown.
      peer.fault = { status: 400, count: 1 };
      const failing = await person(orgId);
      await page.getByLabel('Show objects').selectOption('failing');
      const failingRow = await objectRow(page, failing, /Failing/);
      assert.match((await failingRow.textContent()) ?? '', /400.*answered 400/);
      await statusShows(page, orgId, target.id, 'failing');
      await check(page, 'org-provisioning-target');

      await page.getByLabel('Language').selectOption('de');
      await page.getByRole('button', { name: 'Verbindung testen' }).waitFor();
      await check(page, 'org-provisioning-target-de');
      await page.getByLabel('Sprache').selectOption('en');

      // Edit: a new name, a chosen group (its members sent, and it pushed), the token left empty (kept: the connection still works).
      const edit = page.getByRole('form', { name: `Edit ${name}` });
      const renamed = unique('scimmy renamed');
      await edit.getByLabel('Name', { exact: true }).fill(renamed);
      await edit.getByLabel('Users sent').selectOption('groups');
      await edit.getByLabel(groupName, { exact: true }).check();
      await edit.getByLabel('Groups pushed').selectOption('scoped');
      assert.equal(await edit.getByLabel('Token: stored (empty keeps it)').inputValue(), '');
      // The request timeout: shown as stored; one out of range is the server's 400 naming it, and nothing changes.
      const timeout = edit.getByLabel('Request timeout (ms, 1000 to 120000)');
      assert.equal(await timeout.inputValue(), '10000');
      await timeout.fill('999');
      await edit.getByRole('button', { name: 'Save' }).click();
      await edit
        .getByText(/requestTimeoutMs/)
        .first()
        .waitFor();
      assert.equal((await admin('GET', `${targets(orgId)}/${target.id}`)).body.name, name, 'the refused edit changed nothing');
      await timeout.fill('60000');
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: renamed, level: 1 }).waitFor();
      const changed = (await admin('GET', `${targets(orgId)}/${target.id}`)).body;
      assert.deepEqual(
        [changed.name, changed.scope, changed.pushGroups, changed.requestTimeoutMs],
        [renamed, { users: 'groups', groupIds: [group.body.id] }, 'scoped', 60000],
      );
      await eventually('the chosen group at the peer', async () => peer.groups.find((g) => g.displayName === groupName), 30_000);
      assert.equal((await admin('POST', `${targets(orgId)}/${target.id}/test`, {})).body.ok, true, 'the stored token is kept');
      assert.ok(!(await page.content()).includes(PEER_TOKEN), 'the token is never shown');

      // OAuth client credentials instead of the token: a new type needs its secret, which is then stored, never shown.
      const oauth = page.getByRole('form', { name: `Edit ${renamed}` });
      await oauth.getByLabel('Type').selectOption('oauth_client_credentials');
      await oauth.getByLabel('Token URL').fill(peer.tokenUrl);
      await oauth.getByLabel('Client ID').fill(peer.client.id);
      await oauth.getByLabel('Client secret', { exact: true }).fill(peer.client.secret);
      await oauth.getByRole('button', { name: 'Save' }).click();
      await oauth.getByLabel('Client secret: stored (empty keeps it)').waitFor();
      const switched = (await admin('GET', `${targets(orgId)}/${target.id}`)).body;
      assert.deepEqual(switched.auth, { type: 'oauth_client_credentials', tokenUrl: peer.tokenUrl, clientId: peer.client.id });
      assert.equal((await admin('POST', `${targets(orgId)}/${target.id}/test`, {})).body.ok, true, 'the client credentials work');
      assert.ok(!(await page.content()).includes(peer.client.secret), 'the client secret is never shown');

      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('button', { name: CONFIRM }).click();
      await page.getByText('No provisioning targets yet.').waitFor();
      assert.equal((await admin('GET', targets(orgId))).body.total, 0);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('retries a failing object, plans a reconcile of a drifted target and applies it', async () => {
    const orgId = (await createOrg(svc)).id;
    const pushed = await person(orgId);
    const created = await admin('POST', targets(orgId), { name: unique('drifting'), baseUrl: peer.baseUrl, auth: { type: 'bearer', token: PEER_TOKEN } });
    assert.equal(created.status, 201, created.text);
    await eventually('pushed', async () => inPeer(pushed), 30_000);
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', password());
      await page.goto(`${base}/console/orgs/${orgId}/provisioning/${created.body.id}`);
      peer.fault = { status: 400, count: 1 };
      const failing = await person(orgId);
      await page.getByLabel('Show objects').selectOption('failing');
      const failingRow = await objectRow(page, failing, /Failing/);
      await failingRow.getByRole('button', { name: 'Retry' }).click();
      await page.getByLabel('Show objects').selectOption('');
      await objectRow(page, failing, /Provisioned/);
      assert.ok(inPeer(failing), 'the retried user is at the peer');

      // Reconcile: the person removed at the peer behind our back is in the plan; Apply starts a run.
      peer.users.splice(peer.users.indexOf(inPeer(pushed)!), 1);
      await page.getByRole('button', { name: 'Plan' }).click();
      const plan = page.getByRole('table', { name: 'Reconcile plan' });
      await plan.waitFor();
      const planned = (await admin('POST', `${targets(orgId)}/${created.body.id}/reconcile`, { dryRun: true })).body.plan;
      assert.deepEqual(
        planned.create.items.map((i: { localId: string }) => i.localId),
        [pushed],
      );
      assert.equal((await plan.getByRole('row').filter({ hasText: 'To create' }).textContent()) ?? '', `To create1${people.get(pushed)}`);
      assert.equal(
        (await plan.getByRole('row').filter({ hasText: 'To update' }).textContent()) ?? '',
        `To update${planned.update.count}${planned.update.items.map((i: { userName: string }) => i.userName).join(', ')}`,
      );
      await page.getByRole('button', { name: 'Apply' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /Reconcile started \(run .+\)/ })
        .waitFor();
      await eventually('re-created by the reconcile', async () => inPeer(pushed), 30_000);

      await check(page, 'org-provisioning-reconcile');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it("bad input (an empty name, a URL that is not https, this instance itself) shows the server's error and creates nothing", async () => {
    const orgId = (await createOrg(svc)).id;
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', password());
      await page.goto(`${base}/console/orgs/${orgId}/provisioning`);
      const form = page.getByRole('form', { name: 'Add provisioning target' });
      const submit = async (name: string, baseUrl: string, expected: RegExp) => {
        await form.getByLabel('Name', { exact: true }).fill(name);
        await form.getByLabel('SCIM base URL').fill(baseUrl);
        await form.getByLabel('Token', { exact: true }).fill(PEER_TOKEN);
        await form.getByRole('button', { name: 'Add provisioning target' }).click();
        const alert = form.getByRole('alert');
        await alert.filter({ hasText: expected }).waitFor();
        assert.match((await alert.textContent()) ?? '', /^Error 400: /);
        assert.equal((await admin('GET', targets(orgId))).body.total, 0, `${name || 'an empty name'}, ${baseUrl}: nothing created`);
      };
      await submit('', peer.baseUrl, /name must not be blank/);
      // Plain http is refused only without OUTBOUND_ALLOW_PRIVATE_NETWORKS, which this service needs for its loopback
      // peer; a scheme other than http(s) is refused always.
      await submit('Not https', 'ftp://scim.example.com/v2', /baseUrl must be an absolute https URL/);
      await submit('Myself', `${base}/scim/v2`, /baseUrl must not point at this instance itself/);
      await page.getByText('No provisioning targets yet.').waitFor();
      await check(page, 'org-provisioning-errors');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
