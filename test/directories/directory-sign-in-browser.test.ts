import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../faults/faults.helpers.js';
import { searchEvents, useService } from '../support/fixtures.js';
import { personLdif, startSlapd, SUFFIX } from '../support/slapd.js';
import type { Slapd } from '../support/slapd.js';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitLogin } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { PASSWORD, createHuman, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';

const WRONG = 'The login name or password is wrong.';

/** docs/directories.md, "Sign-in": a synced person signs in in Chromium with the password slapd keeps, checked by a bind. */
describe('directories: sign-in by bind against slapd (Chromium)', () => {
  const svc = useService();
  let slapd: Slapd;
  let browser: Browser;
  let rp: RelyingParty;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  let directoryId: string;
  let aliceId: string;
  const directories = () => `/management/v1/orgs/${project.orgId}/directories`;

  before(async () => {
    slapd = await startSlapd(personLdif('alice', { givenName: 'Alice', sn: 'Archer', password: 'Alice-LDAP-pw-1' }));
    browser = await launchBrowser();
    rp = await startRelyingParty();
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, rp.url);
    assert.equal((await svc.api('PUT', '/admin/v1/directory-hosts', { token: svc.adminToken, body: { allow: ['127.0.0.1'] } })).status, 200);
    const created = await svc.api('POST', directories(), {
      token: svc.adminToken,
      body: {
        name: 'slapd',
        url: slapd.url,
        bindDn: slapd.serviceDn,
        bindPassword: slapd.servicePassword,
        usersDn: `ou=people,${SUFFIX}`,
        sync: { intervalMinutes: 0 },
      },
    });
    assert.equal(created.status, 201, created.text);
    directoryId = created.body.id;
    const started = await svc.api('POST', `${directories()}/${directoryId}/sync`, { token: svc.adminToken, body: {} });
    await eventually('the first sync', async () => {
      const res = await svc.api('GET', `${directories()}/${directoryId}/syncs/${started.body.syncId}`, { token: svc.adminToken });
      return res.body.state === 'finished' ? res.body : undefined;
    });
    const users = await svc.api('GET', `/management/v1/orgs/${project.orgId}/users?query=alice`, { token: svc.adminToken });
    aliceId = users.body.users[0].userId;
  });
  after(async () => {
    await browser?.close();
    await rp?.close();
    await slapd?.stop();
  });

  const authUrl = () => {
    const url = new URL('/oauth/v2/authorize', svc.config.publicUrl);
    url.search = new URLSearchParams({ client_id: app.clientId, redirect_uri: `${rp.url}/cb`, response_type: 'code', scope: 'openid', state: 'st' }).toString();
    return url;
  };

  /** Opens the login page and submits it; answers the page's text after the POST. */
  async function tryPassword(page: Page, loginName: string, password: string): Promise<string> {
    await page.goto(String(authUrl()));
    await page.fill('input[name="loginName"]', loginName);
    await page.fill('input[name="password"]', password);
    await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type="submit"]')]);
    return page.innerText('body');
  }

  it('the directory password signs in; no password hash is stored for the person', async () => {
    const ui = await newPage(browser);
    try {
      const cb = await authorize(rp, ui.page, authUrl(), (page) => submitLogin(page, `alice@${project.primaryDomain}`, 'Alice-LDAP-pw-1'));
      assert.ok(callbackParams(cb).get('code'), 'a code at the redirect URI');
    } finally {
      await ui.context.close();
    }
    const [row] = await svc.dataSource.query('SELECT password_hash FROM users WHERE id = ?', [aliceId]);
    assert.equal(row.password_hash, null);
  });

  it('a wrong password is the ordinary wrong-password page and counts toward lockout; an injected login name matches nobody', async () => {
    const ui = await newPage(browser);
    try {
      const before = (await searchEvents(svc, { aggregate_id: aliceId, event_types: ['user.human.password.check.failed'] })).length;
      assert.ok((await tryPassword(ui.page, `alice@${project.primaryDomain}`, 'not-her-password')).includes(WRONG));
      const failed = await searchEvents(svc, { aggregate_id: aliceId, event_types: ['user.human.password.check.failed'] });
      assert.equal(failed.length, before + 1);
      const [row] = await svc.dataSource.query('SELECT failed_password_checks FROM users WHERE id = ?', [aliceId]);
      assert.ok(Number(row.failed_password_checks) >= 1);
      for (const injected of ['*)(uid=*', `*)(uid=*@${project.primaryDomain}`, '*']) {
        assert.ok((await tryPassword(ui.page, injected, 'Alice-LDAP-pw-1')).includes(WRONG), injected);
      }
    } finally {
      await ui.context.close();
    }
  });

  it('an unreachable directory gives its users a clear page, does not count the attempt, and local users still sign in', async () => {
    const local = await createHuman(svc, project.orgId);
    const moved = await svc.api('PATCH', `${directories()}/${directoryId}`, { token: svc.adminToken, body: { url: 'ldap://127.0.0.1:1' } });
    assert.equal(moved.status, 200, moved.text);
    const ui = await newPage(browser);
    try {
      const [before] = await svc.dataSource.query('SELECT failed_password_checks FROM users WHERE id = ?', [aliceId]);
      const text = await tryPassword(ui.page, `alice@${project.primaryDomain}`, 'Alice-LDAP-pw-1');
      assert.match(text, /directory, which cannot be reached/);
      const [after] = await svc.dataSource.query('SELECT failed_password_checks FROM users WHERE id = ?', [aliceId]);
      assert.equal(Number(after.failed_password_checks), Number(before.failed_password_checks));
      const cb = await authorize(rp, ui.page, authUrl(), (page) => submitLogin(page, `${local.userName}@${project.primaryDomain}`, PASSWORD));
      assert.ok(callbackParams(cb).get('code'));
    } finally {
      await ui.context.close();
      await svc.api('PATCH', `${directories()}/${directoryId}`, { token: svc.adminToken, body: { url: slapd.url } });
    }
  });
});
