import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../faults/faults.helpers.js';
import { searchEvents, useService } from '../support/fixtures.js';
import { personLdif, startSlapd, SUFFIX } from '../support/slapd.js';
import type { Slapd } from '../support/slapd.js';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitForm, submitLogin } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { PASSWORD, createHuman, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';

const WRONG = 'The login name or password is wrong.';

/** A ppolicy subentry whose passwords expire after a day (pwdMaxAge), with `grace` grace logins, keeping three old ones. */
function ageingPolicy(cn: string, grace: number): string {
  return `dn: cn=${cn},ou=policies,${SUFFIX}
objectClass: device
objectClass: pwdPolicy
cn: ${cn}
pwdAttribute: userPassword
pwdMaxAge: 86400
pwdGraceAuthNLimit: ${grace}
pwdInHistory: 3
pwdMustChange: TRUE
pwdAllowUserChange: TRUE
`;
}

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
    slapd = await startSlapd(
      [
        personLdif('alice', { givenName: 'Alice', sn: 'Archer', password: 'Alice-LDAP-pw-1' }),
        // payroll ⊃ payroll-clerks ∋ alice: a grant to payroll must admit her through the nesting.
        `dn: cn=payroll-clerks,ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: payroll-clerks\nmember: uid=alice,ou=people,${SUFFIX}\n`,
        `dn: cn=payroll,ou=groups,${SUFFIX}\nobjectClass: groupOfNames\ncn: payroll\nmember: cn=payroll-clerks,ou=groups,${SUFFIX}\n`,
        // Passwords that expire after a day, remembering the last three; one policy gives no grace login, one gives five.
        ageingPolicy('ageing', 0),
        ageingPolicy('ageing-grace', 5),
        `${personLdif('erin', { givenName: 'Erin', sn: 'Early', password: 'Erin-LDAP-pw-1' })}pwdPolicySubentry: cn=ageing,ou=policies,${SUFFIX}\n`,
        `${personLdif('gus', { givenName: 'Gus', sn: 'Grace', password: 'Gus-LDAP-pw-1' })}pwdPolicySubentry: cn=ageing-grace,ou=policies,${SUFFIX}\n`,
      ].join('\n'),
    );
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
        groupsDn: `ou=groups,${SUFFIX}`,
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

  it('an application that requires a grant admits a directory person through a grant to a directory group she is in by nesting', async () => {
    const orgApi = `/management/v1/orgs/${project.orgId}`;
    const gated = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', settings: { access: 'granted', name: 'Payroll' } }, rp.url);
    const gatedUrl = () => {
      const url = new URL('/oauth/v2/authorize', svc.config.publicUrl);
      url.search = new URLSearchParams({
        client_id: gated.clientId,
        redirect_uri: `${rp.url}/cb`,
        response_type: 'code',
        scope: 'openid',
        state: 'st',
      }).toString();
      return url;
    };
    const groups = await svc.api('GET', `${orgApi}/groups`, { token: svc.adminToken });
    const payroll = groups.body.groups.find((g: { displayName: string }) => g.displayName === 'payroll');
    assert.ok(payroll, groups.text);
    const ui = await newPage(browser);
    try {
      // No grant yet: the refusal page names the application, and no code reaches the application.
      await ui.page.goto(String(gatedUrl()));
      await ui.page.fill('input[name="loginName"]', `alice@${project.primaryDomain}`);
      await ui.page.fill('input[name="password"]', 'Alice-LDAP-pw-1');
      const [refused] = await Promise.all([ui.page.waitForResponse((r) => r.request().method() === 'POST'), ui.page.click('button[type="submit"]')]);
      await ui.page.waitForLoadState();
      assert.ok((await ui.page.innerText('body')).includes('Payroll'), 'the page names the application');
      assert.ok(!ui.page.url().startsWith(rp.url), `no redirect to the application (${refused.status()})`);
    } finally {
      await ui.context.close();
    }
    const grant = await svc.api('POST', `${orgApi}/projects/${project.projectId}/grants`, { token: svc.adminToken, body: { groupId: payroll.id, roles: [] } });
    assert.equal(grant.status, 201, grant.text);
    const admitted = await newPage(browser);
    try {
      const cb = await authorize(rp, admitted.page, gatedUrl(), (page) => submitLogin(page, `alice@${project.primaryDomain}`, 'Alice-LDAP-pw-1'));
      assert.ok(callbackParams(cb).get('code'), 'a code at the redirect URI');
    } finally {
      await admitted.context.close();
    }
    const effective = await svc.api('GET', `${orgApi}/users/${aliceId}/grants`, { token: svc.adminToken });
    assert.deepEqual(
      effective.body.grants.map((g: { via: string; groupId?: string }) => [g.via, g.groupId]),
      [['group', payroll.id]],
    );
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

  it('with writeBack, a reset is written to slapd; a ppolicy must-change (pwdReset) is changed on the way in, as the person', async () => {
    assert.equal((await svc.api('PATCH', `${directories()}/${directoryId}`, { token: svc.adminToken, body: { writeBack: true } })).status, 200);
    const reset = await svc.api('PUT', `/management/v1/orgs/${project.orgId}/users/${aliceId}/password`, {
      token: svc.adminToken,
      body: { password: 'Alice-reset-pw-2' },
    });
    assert.equal(reset.status, 200, reset.text);
    const dn = `uid=alice,ou=people,${SUFFIX}`;
    assert.ok(slapd.binds(dn, 'Alice-reset-pw-2'), 'slapd took the reset');
    // Marked must-change, as an administrator's reset with ppolicy's pwdMustChange leaves it (the Relax Rules control
    // lets the administrator write the operational attribute).
    slapd.modify(`dn: ${dn}\nchangetype: modify\nreplace: pwdReset\npwdReset: TRUE\n`, false, true);
    const ui = await newPage(browser);
    try {
      const cb = await authorize(rp, ui.page, authUrl(), async (page) => {
        await submitLogin(page, `alice@${project.primaryDomain}`, 'Alice-reset-pw-2');
        await page.waitForSelector('form[data-directory-password-change]');
        await page.fill('input[name="currentPassword"]', 'Alice-reset-pw-2');
        await page.fill('input[name="password"]', 'Alice-own-pw-3');
        await page.fill('input[name="passwordConfirm"]', 'Alice-own-pw-3');
        await page.click('button[type="submit"]');
      });
      assert.ok(callbackParams(cb).get('code'), 'a code at the redirect URI after the change');
    } finally {
      await ui.context.close();
    }
    // Changed by alice herself (ppolicy clears pwdReset): Who am I? answers, which ppolicy refuses a reset entry.
    assert.ok(slapd.binds(dn, 'Alice-own-pw-3'), 'slapd took the new password and no longer asks for a change');
    assert.ok(!slapd.binds(dn, 'Alice-reset-pw-2'));
    assert.equal((await svc.api('PATCH', `${directories()}/${directoryId}`, { token: svc.adminToken, body: { writeBack: false } })).status, 200);
  });

  it("a password past ppolicy's pwdMaxAge (passwordExpired) is not signed in with: the expired page, or with writeBack the change under the directory's rules", async () => {
    const dn = `uid=erin,ou=people,${SUFFIX}`;
    // Last changed years ago (pwdChangedTime is the server's own: set with the Relax Rules control).
    slapd.modify(`dn: ${dn}\nchangetype: modify\nreplace: pwdChangedTime\npwdChangedTime: 20200101000000Z\n`, false, true);
    assert.ok(!slapd.binds(dn, 'Erin-LDAP-pw-1'), 'slapd refuses the expired password');
    const erinId = (await svc.api('GET', `/management/v1/orgs/${project.orgId}/users?query=erin`, { token: svc.adminToken })).body.users[0].userId;
    const failedChecks = async () =>
      Number((await svc.dataSource.query('SELECT failed_password_checks FROM users WHERE id = ?', [erinId]))[0].failed_password_checks);
    const ui = await newPage(browser);
    try {
      // Without writeBack: the page says where to change it; a wrong password is still the ordinary page, and counts.
      const before = await failedChecks();
      assert.match(await tryPassword(ui.page, `erin@${project.primaryDomain}`, 'Erin-LDAP-pw-1'), /has expired and must be changed/);
      assert.ok(!ui.page.url().startsWith(rp.url), 'no code for an expired password');
      assert.equal(await failedChecks(), before, 'the right, expired password is no failure');
      assert.ok((await tryPassword(ui.page, `erin@${project.primaryDomain}`, 'not-her-password')).includes(WRONG));
      assert.equal(await failedChecks(), before + 1);
    } finally {
      await ui.context.close();
    }

    assert.equal((await svc.api('PATCH', `${directories()}/${directoryId}`, { token: svc.adminToken, body: { writeBack: true } })).status, 200);
    const changing = await newPage(browser);
    try {
      const cb = await authorize(rp, changing.page, authUrl(), async (page) => {
        await submitLogin(page, `erin@${project.primaryDomain}`, 'Erin-LDAP-pw-1');
        await page.waitForSelector('form[data-directory-password-change]');
        // The directory's own rule (pwdInHistory) refuses the old password again, with its reason; nothing changes.
        await page.fill('input[name="currentPassword"]', 'Erin-LDAP-pw-1');
        await page.fill('input[name="password"]', 'Erin-LDAP-pw-1');
        await page.fill('input[name="passwordConfirm"]', 'Erin-LDAP-pw-1');
        await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type="submit"]')]);
        assert.match(await page.innerText('body'), /refused the password: .*(not being changed|history)/i);
        await page.fill('input[name="currentPassword"]', 'Erin-LDAP-pw-1');
        await page.fill('input[name="password"]', 'Erin-own-pw-2');
        await page.fill('input[name="passwordConfirm"]', 'Erin-own-pw-2');
        // A new person is offered a second factor after the change, as after any first sign-in: declined.
        await submitForm(page, 'directory-password');
      });
      assert.ok(callbackParams(cb).get('code'), 'a code at the redirect URI after the change');
    } finally {
      await changing.context.close();
    }
    // Who am I? answers only to an entry ppolicy does not hold for a change (no pwdReset): the change was the person's.
    assert.ok(slapd.binds(dn, 'Erin-own-pw-2'), 'slapd took the new password, and it is neither expired nor to be changed');
    assert.ok(!slapd.binds(dn, 'Erin-LDAP-pw-1'));
    const [row] = await svc.dataSource.query('SELECT password_hash FROM users WHERE id = ?', [erinId]);
    assert.equal(row.password_hash, null, 'no hash is stored here');

    // With grace logins left, slapd lets the expired password bind (graceAuthNsRemaining): still the change first.
    const gusDn = `uid=gus,ou=people,${SUFFIX}`;
    slapd.modify(`dn: ${gusDn}\nchangetype: modify\nreplace: pwdChangedTime\npwdChangedTime: 20200101000000Z\n`, false, true);
    const grace = await newPage(browser);
    try {
      const cb = await authorize(rp, grace.page, authUrl(), async (page) => {
        await submitLogin(page, `gus@${project.primaryDomain}`, 'Gus-LDAP-pw-1');
        await page.waitForSelector('form[data-directory-password-change]');
        await page.fill('input[name="currentPassword"]', 'Gus-LDAP-pw-1');
        await page.fill('input[name="password"]', 'Gus-own-pw-2');
        await page.fill('input[name="passwordConfirm"]', 'Gus-own-pw-2');
        // A new person is offered a second factor after the change, as after any first sign-in: declined.
        await submitForm(page, 'directory-password');
      });
      assert.ok(callbackParams(cb).get('code'), 'a code at the redirect URI after the change');
    } finally {
      await grace.context.close();
    }
    assert.ok(slapd.binds(gusDn, 'Gus-own-pw-2'));
    assert.ok(!slapd.binds(gusDn, 'Gus-LDAP-pw-1'));
    assert.equal((await svc.api('PATCH', `${directories()}/${directoryId}`, { token: svc.adminToken, body: { writeBack: false } })).status, 200);
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
