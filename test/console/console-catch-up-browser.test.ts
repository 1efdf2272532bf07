import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../oidc/support/browser.js';
import { createCaller, createOrg, unique, useService } from '../support/fixtures.js';
import { SCREENSHOTS, consoleSteps, nothingMatches, searchList } from './support/console-browser.js';

/**
 * What self-service (docs/account.md, docs/mail.md) adds to the console (docs/console.md), as an operator uses it in Chromium, by accessible
 * names only: names beside ids in the events list, users picked by name for member, role and group grants,
 * an application's connection details, and one confirmation to sign out. Each outcome is checked through
 * the API or the live discovery document, not only on the screen.
 */
describe('the console catches up with self-service (Chromium)', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let base: string;
  let org: { id: string; name: string; primaryDomain: string };
  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl.replace(/\/$/, '');
    mkdirSync(SCREENSHOTS, { recursive: true });
    org = await createOrg(svc);
  });
  after(() => browser?.close());
  const { open, check, signIn, nav } = consoleSteps({ browser: () => browser, base: () => base });

  const adminPassword = () => readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim();

  /** Signs the bootstrap admin in and opens `path` of the console. */
  async function asAdmin(page: Page, path: string): Promise<void> {
    await page.goto(`${base}/console/`);
    await signIn(page, 'admin', adminPassword());
    await page.goto(`${base}${path}`);
  }

  /** A person of `org` created through the API; its id. */
  async function person(userName: string, firstName: string, lastName: string): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.id}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName, lastName }, email: { email: `${userName}@example.com`, isEmailVerified: true }, password: 'Catch-Up-Secret-42' },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.userId;
  }

  it('the events list says who did what to whom by name, ids on hover; a removed user by the login name its removal recorded', async () => {
    const editor = await createCaller(svc, org.id, { org: ['ORG_USER_MANAGER'] });
    const graceName = unique('grace');
    const grace = await person(graceName, 'Grace', 'Hopper');
    const goneName = unique('gone');
    const gone = await person(goneName, 'Gone', 'Away');
    assert.equal((await svc.api('POST', `/management/v1/orgs/${org.id}/users/${grace}/deactivate`, { token: editor.token, body: {} })).status, 200);
    assert.equal((await svc.api('DELETE', `/management/v1/orgs/${org.id}/users/${gone}`, { token: editor.token })).status, 204);
    const editorName = (await svc.api('GET', `/management/v1/orgs/${org.id}/users/${editor.userId}`, { token: svc.adminToken })).body.userName;

    const { context, page, problems } = await open();
    try {
      await asAdmin(page, '/console/events');
      await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
      const events = page.getByRole('table', { name: 'Events' });
      await events.waitFor();
      const columns = await events.getByRole('columnheader').allTextContents();
      // A row's cells are its td elements: the event type before them is the row header.
      const cell = (row: ReturnType<typeof events.locator>, column: string) => row.getByRole('cell').nth(columns.indexOf(column) - 1);

      // The newest page, without a search: Grace's deactivation, by whom and about whom.
      const deactivated = events
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'user.deactivated', exact: true }) })
        .filter({ hasText: grace })
        .first();
      await deactivated.waitFor();
      // A sentence by name, each login name and id on hover.
      const about = cell(deactivated, 'What happened');
      assert.equal(await about.innerText(), 'test caller deactivated Grace Hopper');
      const titles = () => about.locator('[title]').evaluateAll((spans) => spans.map((s) => s.getAttribute('title')));
      assert.deepEqual(await titles(), [`${editorName}@${org.primaryDomain} · ${editor.userId}`, `${graceName}@${org.primaryDomain} · ${grace}`]);
      // In German, the same names in a German sentence.
      const languageSwitch = page.locator('label.language select');
      await languageSwitch.selectOption('de');
      await page.getByRole('heading', { name: 'Ereignisse', level: 1 }).waitFor();
      const deactiviert = page
        .getByRole('table', { name: 'Ereignisse' })
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: 'user.deactivated', exact: true }) })
        .filter({ hasText: grace })
        .first();
      assert.equal(await deactiviert.getByRole('cell').nth(1).innerText(), 'test caller hat Grace Hopper deaktiviert');
      await languageSwitch.selectOption('en');
      await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
      await check(page, 'events-with-names');

      // A removed user's events keep its id; no name is left to show.
      await page.getByLabel('Aggregate ID').fill(gone);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const removed = events.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'user.removed', exact: true }) });
      await removed.waitFor();
      // The removed user by the login name its removal recorded, the id on hover.
      const removal = cell(removed, 'What happened');
      assert.equal(await removal.innerText(), `test caller removed ${goneName}`);
      assert.deepEqual(await removal.locator('[title]').evaluateAll((spans) => spans.map((s) => s.getAttribute('title'))), [
        `${editorName}@${org.primaryDomain} · ${editor.userId}`,
        gone,
      ]);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('member, role and group grants pick the user by name (or take a typed id), and the grant is for that user', async () => {
    const katherineName = unique('kjohnson');
    const katherine = await person(katherineName, 'Katherine', 'Johnson');
    const dorothyName = unique('dvaughan');
    const dorothy = await person(dorothyName, 'Dorothy', 'Vaughan');
    const mary = await person(unique('mjackson'), 'Mary', 'Jackson');
    const groupName = unique('Computers');
    const group = await svc.api('POST', `/management/v1/orgs/${org.id}/groups`, { token: svc.adminToken, body: { displayName: groupName } });
    assert.equal(group.status, 201, group.text);
    // The group holds a grant (docs/application-access.md, "Groups that hold a grant"): the console marks it.
    const projectName = unique('Orbits');
    const project = await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: svc.adminToken, body: { name: projectName } });
    assert.equal(project.status, 201, project.text);
    const projectGrant = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${project.body.id}/grants`, {
      token: svc.adminToken,
      body: { groupId: group.body.id, roles: [] },
    });
    assert.equal(projectGrant.status, 201, projectGrant.text);

    const { context, page, problems } = await open();
    try {
      // An organization member, found by first name; Dorothy (another match for the search) is not chosen.
      await asAdmin(page, `/console/orgs/${org.id}/members`);
      await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
      const grant = page.getByRole('form', { name: 'Grant roles' });
      await grant.getByLabel('Find a user by name').fill('Katherine');
      await grant.getByRole('button', { name: `Choose Katherine Johnson (${katherineName})` }).click();
      assert.equal(await grant.getByLabel('User ID').inputValue(), katherine);
      await grant
        .getByRole('status')
        .filter({ hasText: `Chosen: Katherine Johnson (${katherineName}), ID ${katherine}` })
        .waitFor();
      await check(page, 'member-picked-by-name');
      await grant.getByLabel('ORG_OWNER').check();
      await grant.getByRole('button', { name: 'Grant roles' }).click();
      // The organization's member by name and login name, the id on hover and on its copy button.
      const member = page.getByRole('table', { name: 'Members' }).getByRole('rowheader', { name: `Katherine Johnson (${katherineName}@` });
      await member.waitFor();
      assert.equal(await member.getByText(`Katherine Johnson (${katherineName}@`).getAttribute('title'), katherine);
      assert.equal(await member.getByRole('button', { name: `Copy the ID of Katherine Johnson (${katherineName}@` }).getAttribute('title'), katherine);
      const members = await svc.api('GET', `/management/v1/orgs/${org.id}/members`, { token: svc.adminToken });
      const granted = members.body.members.filter((m: { userId: string }) => [katherine, dorothy].includes(m.userId));
      assert.deepEqual(
        granted.map((m: { userId: string; roles: string[] }) => ({ userId: m.userId, roles: [...m.roles].sort() })),
        [{ userId: katherine, roles: ['ORG_OWNER', 'ORG_USER_MANAGER'] }],
      );

      // An instance member: the organization to search in first, then the user, by its user name.
      await nav(page).getByRole('link', { name: 'Instance members' }).click();
      await page.getByRole('heading', { name: 'Instance members', level: 1 }).waitFor();
      const instanceGrant = page.getByRole('form', { name: 'Grant roles' });
      await instanceGrant.getByLabel('Search in organization').selectOption({ label: org.name });
      await instanceGrant.getByLabel('Find a user by name').fill(dorothyName);
      await instanceGrant.getByRole('button', { name: `Choose Dorothy Vaughan (${dorothyName})` }).click();
      assert.equal(await instanceGrant.getByLabel('User ID').inputValue(), dorothy);
      await instanceGrant.getByRole('button', { name: 'Grant roles' }).click();
      // A member of another organization than the viewer's is named too, never shown as a bare id.
      const instanceMember = page.getByRole('table', { name: 'Members' }).getByRole('rowheader', { name: `Dorothy Vaughan (${dorothyName}@` });
      await instanceMember.waitFor();
      assert.equal(await instanceMember.getByText(`Dorothy Vaughan (${dorothyName}@`).getAttribute('title'), dorothy);
      const instance = await svc.api('GET', '/admin/v1/members', { token: svc.adminToken });
      const { userId, roles } = instance.body.members.find((m: { userId: string }) => m.userId === dorothy);
      assert.deepEqual({ userId, roles }, { userId: dorothy, roles: ['IAM_OWNER'] });
      await check(page, 'instance-member-picked-by-name');

      // A group member by a typed id: the field still takes one. The group is marked as holding a grant, with who
      // may change its members; the admin (IAM_OWNER) may.
      await page.goto(`${base}/console/orgs/${org.id}/groups`);
      const groupRow = page.getByRole('row').filter({ hasText: groupName });
      await groupRow.getByText(`Holds a grant: ${projectName}.`).waitFor();
      await groupRow.getByRole('button', { name: 'Members', exact: true }).click();
      const note = page.getByRole('note').filter({ hasText: `Holds a grant: ${projectName}.` });
      assert.match(await note.innerText(), /only an ORG_OWNER or a machine user with ORG_USER_MANAGER .* nobody their own membership/);
      const addMember = page.getByRole('form', { name: 'Add member' });
      await addMember.getByLabel('User ID').fill(mary);
      await addMember.getByRole('button', { name: 'Add member' }).click();
      // Members by name with the id on hover, searched by the server.
      const groupMembers = page.getByRole('table', { name: 'Group members' });
      const maryRow = groupMembers.getByRole('rowheader', { name: 'Mary Jackson' });
      await maryRow.waitFor();
      assert.equal(await maryRow.getByRole('link', { name: 'Mary Jackson' }).getAttribute('title'), mary);
      await searchList(page, 'Group members', 'no-such-member');
      await nothingMatches(page, 'no-such-member').waitFor();
      await searchList(page, 'Group members', 'JACKSON');
      await maryRow.waitFor();
      const groups = await svc.api('GET', `/management/v1/orgs/${org.id}/groups`, { token: svc.adminToken });
      assert.equal(groups.body.groups.find((g: { id: string }) => g.id === group.body.id)?.memberCount, 1);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it("an application's page shows the issuer, the discovery URL, the client id and the redirect URIs, each copyable", async () => {
    const project = await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: svc.adminToken, body: { name: unique('Shop') } });
    assert.equal(project.status, 201, project.text);
    const appName = unique('Shop web');
    const redirectUris = ['http://localhost:3000/callback', 'http://localhost:3001/callback'];
    const app = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${project.body.id}/apps/oidc`, {
      token: svc.adminToken,
      body: {
        name: appName,
        redirectUris,
        postLogoutRedirectUris: ['http://localhost:3000/'],
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
        authMethod: 'none',
        accessTokenType: 'opaque',
        devMode: true,
      },
    });
    assert.equal(app.status, 201, app.text);
    // The values to expect come from the live discovery document, not from the console's own rule.
    const discovery = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as { issuer: string };

    const { context, page, problems } = await open();
    try {
      await asAdmin(page, `/console/orgs/${org.id}/projects/${project.body.id}`);
      await page.getByRole('heading', { name: 'Applications', level: 2 }).waitFor();
      await page.getByRole('link', { name: appName }).click();
      await page.getByRole('heading', { name: `Application ${appName}`, level: 1 }).waitFor();
      const details = page.getByRole('region', { name: 'Connection details' });
      const value = (label: string) => details.getByRole('textbox', { name: label, exact: true }).inputValue();
      assert.equal(await value('Issuer'), discovery.issuer);
      const discoveryUrl = await value('Discovery URL');
      assert.equal(discoveryUrl, `${discovery.issuer}/.well-known/openid-configuration`);
      const served = (await (await fetch(discoveryUrl)).json()) as { issuer: string };
      assert.equal(served.issuer, discovery.issuer, 'the discovery URL shown serves this issuer');
      assert.equal(await value('Client ID'), app.body.clientId);
      assert.equal(await value('Redirect URI 1'), redirectUris[0]);
      assert.equal(await value('Redirect URI 2'), redirectUris[1]);
      assert.equal(await value('Post-logout redirect URI'), 'http://localhost:3000/');
      for (const [label, expected] of [
        ['Issuer', discovery.issuer],
        ['Discovery URL', discoveryUrl],
        ['Client ID', app.body.clientId],
        ['Redirect URI 2', redirectUris[1]],
      ]) {
        await details.getByRole('button', { name: `Copy ${label}`, exact: true }).click();
        await details
          .getByRole('status')
          .filter({ hasText: `${label} copied to the clipboard.` })
          .waitFor();
        assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), expected);
      }
      await check(page, 'application-details');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it("a SAML application's page shows what its service provider is told — the IdP's entity id, SSO and metadata URLs — and what it registered", async () => {
    const project = await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: svc.adminToken, body: { name: unique('Wiki') } });
    const appName = unique('Wiki SAML');
    const entityId = `https://${unique('wiki')}.example.com/saml`;
    const app = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${project.body.id}/apps/saml`, {
      token: svc.adminToken,
      body: { name: appName, entityId, acsUrls: ['https://wiki.example.com/saml/acs'] },
    });
    assert.equal(app.status, 201, app.text);
    const { context, page, problems } = await open();
    try {
      await asAdmin(page, `/console/orgs/${org.id}/projects/${project.body.id}`);
      const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: appName }) });
      assert.equal(await row.getByRole('cell').first().innerText(), 'SAML');
      await page.getByRole('link', { name: appName }).click();
      await page.getByRole('heading', { name: `Application ${appName}`, level: 1 }).waitFor();
      const details = page.getByRole('region', { name: 'Connection details' });
      const value = (label: string) => details.getByRole('textbox', { name: label, exact: true }).inputValue();
      assert.equal(await value('IdP entity ID'), app.body.idpEntityId);
      assert.equal(await value('Single sign-on URL'), app.body.ssoUrl);
      assert.equal(await value('IdP metadata URL'), app.body.idpMetadataUrl);
      assert.equal((await fetch(await value('IdP metadata URL'))).status, 200, 'the metadata URL shown serves the metadata');
      assert.equal(await value('SP entity ID'), entityId);
      assert.equal(await value('Assertion consumer service (ACS)'), 'https://wiki.example.com/saml/acs');
      assert.equal(await details.getByRole('textbox', { name: 'Issuer', exact: true }).count(), 0, 'no OIDC issuer for a SAML application');
      await check(page, 'saml-application-details');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('signing out takes one confirmation, then the console is signed out: token revoked, provider session ended', async () => {
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', adminPassword());
      // The landing page's own API calls finish first: one still in flight would race the sign-out.
      await page.waitForLoadState('networkidle');
      const token = await page.evaluate(
        () => (JSON.parse(sessionStorage.getItem('portcullis.console.session') ?? '{}') as { accessToken?: string }).accessToken,
      );
      assert.ok(token);
      assert.equal((await svc.api('GET', '/auth/v1/users/me', { token })).status, 200);

      // Every page the tab shows from the click on: exactly one of them asks.
      const shown: string[] = [];
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) shown.push(frame.url());
      });
      await page.getByRole('button', { name: 'Sign out' }).click();
      const yes = page.getByRole('button', { name: 'Yes, sign me out' });
      await yes.waitFor();
      await check(page, 'sign-out-confirmation');
      await yes.click();
      await page.waitForURL(`${base}/console/`);
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      const pages = shown.map((url) => new URL(url).pathname);
      assert.deepEqual(pages, ['/oidc/v1/end_session', '/console/'], `pages shown: ${shown.join(' → ')}`);
      assert.equal(await page.locator('[data-logged-out]').count(), 0, 'no dead-end logged-out page');

      // Signed out for real: the token is revoked, and signing in again asks for the login name.
      assert.equal((await svc.api('GET', '/auth/v1/users/me', { token })).status, 401);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL((url) => url.pathname.startsWith('/ui/login'));
      await page.getByLabel('Login name').waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it("signing out after the console's token expired still ends the provider session, with the same one confirmation", async () => {
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, 'admin', adminPassword());
      // The landing page's API calls finish first: one made after the expiry below would see the expired token and
      // show "signed out" (the console's answer to a 401), which is a different case from this one.
      await page.waitForLoadState('networkidle');
      // The token's end as the console keeps it, moved into the past: what an hour without an API call leaves.
      await page.evaluate(() => {
        const key = 'portcullis.console.session';
        const session = JSON.parse(sessionStorage.getItem(key)!) as { expiresAt: number };
        sessionStorage.setItem(key, JSON.stringify({ ...session, expiresAt: Date.now() - 1000 }));
      });
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Yes, sign me out' }).click();
      await page.waitForURL(`${base}/console/`);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      // The provider's session is gone: it asks who is signing in instead of signing the admin straight back in.
      await page.waitForURL((url) => url.pathname.startsWith('/ui/login'));
      await page.getByLabel('Login name').waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
