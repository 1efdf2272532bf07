import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LoginClient } from '../attack/support/login-client.js';
import { agentTokenRequest, createFilesResource, registerAgent } from '../oidc/support/agent-clients.js';
import type { AgentClient } from '../oidc/support/agent-clients.js';
import { authorize, REDIRECT, redeem } from '../oidc/support/agent-consent-flow.js';
import { launchBrowser } from '../oidc/support/browser.js';
import { PASSWORD, createHuman, createProject } from '../oidc/support/oidc-fixtures.js';
import { unique, useService } from '../support/fixtures.js';
import { organization, publicClient, registered, setMode } from '../oidc/support/dynamic-registration.js';
import { SCREENSHOTS, consoleSteps, nothingMatches, searchList } from './support/console-browser.js';

/**
 * The people's connected agents in the console (docs/console.md; docs/agents.md, "Consent and connected agents"): the
 * organization's **Agents** page and a person's **Connected agents**, where an administrator revokes one. Each agent
 * is connected through the real consent page and holds a real refresh token, which the revoke must end.
 */
describe('connected agents in the operator console (Chromium)', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}' });
  let browser: Browser;
  let base: string;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let resourceUri: string;
  let agent: AgentClient;
  before(async () => {
    browser = await launchBrowser();
    base = svc.config.publicUrl.replace(/\/$/, '');
    mkdirSync(SCREENSHOTS, { recursive: true });
    project = await createProject(svc);
    resourceUri = await createFilesResource(svc, project);
    agent = await registerAgent(svc, project.orgId, REDIRECT);
  });
  after(() => browser?.close());
  const { open, check, signIn, signOut, nav } = consoleSteps({ browser: () => browser, base: () => base });

  function orgPath(path: string): string {
    return `/management/v1/orgs/${project.orgId}${path}`;
  }

  /** A person of the organization (with these organization roles) who allowed the agent on the consent page; their refresh token. */
  async function connectedPerson(roles: string[] = []) {
    const person = await createHuman(svc, project.orgId);
    if (roles.length) {
      const res = await svc.api('PUT', orgPath(`/members/${person.userId}`), { token: svc.adminToken, body: { roles } });
      assert.equal(res.status, 200, res.text);
    }
    const loginName = `${person.userName}@${project.primaryDomain}`;
    const auth = await authorize(new LoginClient(svc.url), agent, loginName, 'openid offline_access files:read', resourceUri, 'allow');
    assert.ok(auth.consent, 'the consent page was shown');
    const tokens = await redeem(svc, agent, auth);
    assert.ok(tokens.refresh_token);
    return { ...person, loginName, refreshToken: tokens.refresh_token };
  }

  const refresh = (refreshToken: string) => agentTokenRequest(svc, agent, { grant_type: 'refresh_token', refresh_token: refreshToken });

  /** The row of the agent in the person's **Connected agents** section. */
  const agentRow = (page: Page) => page.getByRole('region', { name: 'Connected agents' }).locator(`tr[data-agent="${agent.clientId}"]`);

  it("lists a person's agent on the organization's page and theirs; a revoke there ends its refresh token", async () => {
    const person = await connectedPerson();
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/orgs/${project.orgId}/users`);
      await signIn(page, 'admin', readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim());
      await nav(page).getByRole('link', { name: 'Agents' }).click();
      await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
      const listed = page.locator(`tr[data-user="${person.userId}"][data-agent="${agent.clientId}"]`);
      await listed.waitFor();
      const text = (await listed.textContent()) ?? '';
      for (const shown of [person.loginName, person.userId, agent.clientId, resourceUri, 'files:read offline_access openid']) {
        assert.ok(text.includes(shown), `the organization's row shows ${shown}: ${text}`);
      }
      await check(page, 'org-agents');

      // Found by a part of the person's user name, any case; a query matching nothing says so.
      await searchList(page, 'Agents', person.loginName.split('@')[0].slice(1).toUpperCase());
      await listed.waitFor();
      await searchList(page, 'Agents', 'nothing-like-it');
      await nothingMatches(page, 'nothing-like-it').waitFor();
      assert.equal(await listed.count(), 0);
      await searchList(page, 'Agents', '');
      await listed.waitFor();

      await listed.getByRole('link', { name: person.loginName }).click();
      await page.getByRole('heading', { name: 'User', level: 1 }).waitFor();
      assert.equal(new URL(page.url()).pathname, `/console/orgs/${project.orgId}/users/${person.userId}`);
      await agentRow(page).waitFor();
      const row = (await agentRow(page).textContent()) ?? '';
      assert.ok(row.includes(resourceUri) && row.includes('files:read'), `the person's row shows the resource and scopes: ${row}`);
      await check(page, 'user-agents');

      // The person's agents are found by a part of the resource, any case, and the list says when nothing matches.
      await searchList(page, 'Connected agents', new URL(resourceUri).host.toUpperCase());
      await agentRow(page).waitFor();
      await searchList(page, 'Connected agents', 'nothing-like-it');
      await nothingMatches(page, 'nothing-like-it').waitFor();
      assert.equal(await agentRow(page).count(), 0);
      await searchList(page, 'Connected agents', '');
      await agentRow(page).waitFor();

      await agentRow(page)
        .getByRole('button', { name: /^Revoke / })
        .click();
      await agentRow(page).getByRole('button', { name: 'Yes, revoke' }).click();
      await page.getByRole('status').filter({ hasText: 'Revoked' }).waitFor();
      await page.getByText('No agent may act for this person.').waitFor();
      assert.equal(await agentRow(page).count(), 0);

      const after = await refresh(person.refreshToken);
      assert.equal(after.status, 400, after.text);
      assert.equal(after.body.error, 'invalid_grant');
      await signOut(page);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it("a user manager's revoke of an organization owner's agent shows the API's 403, and the agent keeps working", async () => {
    const owner = await connectedPerson(['ORG_OWNER']);
    const manager = await createHuman(svc, project.orgId, PASSWORD);
    const granted = await svc.api('PUT', orgPath(`/members/${manager.userId}`), { token: svc.adminToken, body: { roles: ['ORG_USER_MANAGER'] } });
    assert.equal(granted.status, 200, granted.text);
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/orgs/${project.orgId}/users/${owner.userId}`);
      await signIn(page, `${manager.userName}@${project.primaryDomain}`, PASSWORD);
      await page.getByRole('heading', { name: 'User', level: 1 }).waitFor();
      await agentRow(page)
        .getByRole('button', { name: /^Revoke / })
        .click();
      await agentRow(page).getByRole('button', { name: 'Yes, revoke' }).click();
      const alert = agentRow(page).getByRole('alert');
      await alert.filter({ hasText: 'Error 403' }).waitFor();
      assert.match((await alert.textContent()) ?? '', /ORG_OWNER/, 'the error names the role the caller lacks');
      assert.equal(await agentRow(page).count(), 1, 'the row stays');

      const still = await refresh(owner.refreshToken);
      assert.equal(still.status, 200, still.text);
      await signOut(page);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
  it("registered clients: the organization's by name, searched and removed; the unbound ones removed all at once by the IAM_OWNER", async () => {
    const removable = await registerAgent(svc, project.orgId, REDIRECT, unique('Removable agent'));
    const elsewhere = await organization(svc);
    await setMode(svc, elsewhere.project.orgId, 'open');
    const openName = unique('Open agent');
    const openClient = await registered(svc, publicClient({ client_name: openName }));
    const { context, page, problems } = await open();
    try {
      await page.goto(`${base}/console/orgs/${project.orgId}/users`);
      await signIn(page, 'admin', readFileSync(join(svc.dataDir, 'admin.password'), 'utf8').trim());
      await nav(page).getByRole('link', { name: 'Registered clients', exact: true }).click();
      await page.getByRole('heading', { name: 'Registered clients', level: 1 }).waitFor();
      const table = page.getByRole('table', { name: 'Registered clients' });
      const row = table.getByRole('row').filter({ hasText: removable.clientId });
      await row.getByRole('rowheader', { name: removable.clientName }).waitFor();
      await table.getByRole('row').filter({ hasText: agent.clientId }).waitFor();
      await check(page, 'org-registered-clients');

      await searchList(page, 'Registered clients', removable.clientName.toUpperCase());
      await table.getByRole('row').filter({ hasText: agent.clientId }).waitFor({ state: 'detached' });
      await row.getByRole('button', { name: 'Remove', exact: true }).click();
      await row.getByRole('button', { name: `Yes, remove ${removable.clientName}` }).click();
      await nothingMatches(page, removable.clientName.toUpperCase()).waitFor();
      const left = await svc.api('GET', orgPath(`/registered-clients?query=${removable.clientId}`), { token: svc.adminToken });
      assert.equal(left.body.total, 0, left.text);
      const kept = await svc.api('GET', orgPath(`/registered-clients?query=${agent.clientId}`), { token: svc.adminToken });
      assert.equal(kept.body.total, 1, 'the other client stays');

      await nav(page).getByRole('link', { name: 'Unbound registered clients' }).click();
      const unbound = page.getByRole('table', { name: 'Unbound registered clients' });
      await unbound.getByRole('row').filter({ hasText: openClient.client_id }).getByRole('rowheader', { name: openName }).waitFor();
      await check(page, 'unbound-registered-clients');
      await page.getByRole('button', { name: 'Remove all unbound clients' }).click();
      await page.getByRole('button', { name: /^Yes, remove all \d+$/ }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /^\d+ clients removed\.$/ })
        .waitFor();
      await page.getByText('No registered clients.').waitFor();
      const none = await svc.api('GET', '/admin/v1/registered-clients/unbound', { token: svc.adminToken });
      assert.equal(none.body.total, 0, none.text);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
});
