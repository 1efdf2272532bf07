import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { eventually } from '../faults/faults.helpers.js';
import { createCaller, searchEvents, useService } from '../support/fixtures.js';
import { AD_BASE, adUserLdif, startSambaDc } from '../support/samba-dc.js';
import type { SambaDc } from '../support/samba-dc.js';
import { throwAwayCa } from '../support/throw-away-ca.js';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitLogin } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';

const STAFF = `OU=Staff,${AD_BASE}`;
const GROUPS = `OU=Groups,${AD_BASE}`;
const WRONG = 'The login name or password is wrong.';

/**
 * docs/directories.md, "Active Directory": Samba as an AD domain controller, provisioned here (one for the whole
 * file: provisioning is the slow part), synced over LDAPS with a pinned CA — objectGUID links through renames and
 * moves, userAccountControl disables, deletions, uSNChanged incremental syncs, nested groups by the in-chain rule —
 * and sign-in by bind with the password AD keeps.
 */
describe('directories: Active Directory (Samba DC)', () => {
  const svc = useService();
  let dc: SambaDc;
  let browser: Browser;
  let rp: RelyingParty;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  let manager: { userId: string; token: string };
  let directoryId: string;
  const directories = () => `/management/v1/orgs/${project.orgId}/directories`;
  const api = (method: string, path: string, body?: unknown) => svc.api(method, path, { token: svc.adminToken, body });
  const directory = (extra: Record<string, unknown> = {}) => ({
    type: 'active-directory',
    name: 'Samba AD',
    url: dc.url,
    caCertificate: dc.caPem,
    bindDn: dc.serviceDn,
    bindPassword: dc.servicePassword,
    usersDn: STAFF,
    groupsDn: GROUPS,
    sync: { intervalMinutes: 0 },
    ...extra,
  });
  const syncOf = async (id: string, body: Record<string, unknown> = {}) => {
    const started = await api('POST', `${directories()}/${id}/sync`, body);
    assert.equal(started.status, 202, started.text);
    return eventually('the sync to finish', async () => {
      const res = await api('GET', `${directories()}/${id}/syncs/${started.body.syncId}`);
      return res.body.state === 'running' ? undefined : res.body;
    });
  };
  const counts = (created: number, updated: number, deactivated: number, reactivated: number, unchanged: number) => ({
    created,
    updated,
    deactivated,
    reactivated,
    unchanged,
    failed: 0,
  });
  const userNamed = async (userName: string) => {
    const res = await api('GET', `/management/v1/orgs/${project.orgId}/users?query=${userName}`);
    return res.body.users.find((u: { userName: string }) => u.userName === userName) as { userId: string; state: string } | undefined;
  };
  const groupMembers = async (displayName: string) => {
    const res = await svc.api('GET', `/scim/v2/${project.orgId}/Groups?filter=${encodeURIComponent(`displayName eq "${displayName}"`)}`, {
      token: manager.token,
      headers: { accept: 'application/scim+json' },
    });
    assert.equal(res.status, 200, res.text);
    const [group] = res.body.Resources as { id: string; externalId: string; members?: { display: string }[] }[];
    return group && { ...group, members: (group.members ?? []).map((m) => m.display).sort() };
  };
  const tokensOf = async (sam: string, password: string) =>
    signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${rp.url}/cb`,
      loginName: `${sam}@${project.primaryDomain}`,
      password,
    });
  const userinfo = async (token: string) => (await fetch(new URL('/oidc/v1/userinfo', svc.url), { headers: { authorization: `Bearer ${token}` } })).status;

  before(async () => {
    const [started, launched, relyingParty] = await Promise.all([startSambaDc(), launchBrowser(), startRelyingParty()]);
    [dc, browser, rp] = [started, launched, relyingParty];
    // The cost of this counterpart, for the CI budget (docs/testing.md).
    console.log(`samba-tool domain provision took ${dc.provisionMs} ms (0: a provisioned template was copied, in ${dc.copyMs} ms)`);
    dc.modify(
      [
        adUserLdif('alice', { givenName: 'Alice', sn: 'Archer', password: 'Alice-AD-pw-1' }),
        adUserLdif('bob', { givenName: 'Bob', sn: 'Baker', password: 'Bob-AD-pw-1' }),
        adUserLdif('carol', { givenName: 'Carol', sn: 'Cook', password: 'Carol-AD-pw-1' }),
        adUserLdif('dave', { givenName: 'Dave', sn: 'Diver', password: 'Dave-AD-pw-1' }),
        adUserLdif('frank', { givenName: 'Frank', sn: 'Fisher', password: 'Frank-AD-pw-1' }),
        `dn: OU=Elsewhere,${STAFF}\nobjectClass: organizationalUnit\nou: Elsewhere\n`,
        // all-staff ⊃ engineers ∋ alice, and bob directly: the in-chain rule finds alice through the nesting.
        `dn: CN=engineers,${GROUPS}\nobjectClass: group\nsAMAccountName: engineers\nmember: CN=Alice Archer,${STAFF}\n`,
        `dn: CN=all-staff,${GROUPS}\nobjectClass: group\nsAMAccountName: all-staff\nmember: CN=engineers,${GROUPS}\nmember: CN=Bob Baker,${STAFF}\n`,
      ].join('\n'),
      true,
    );
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, rp.url);
    manager = await createCaller(svc, project.orgId, { org: ['ORG_USER_MANAGER'] });
    assert.equal((await api('PUT', '/admin/v1/directory-hosts', { allow: [dc.address, '127.0.0.1'] })).status, 200);
    const created = await api('POST', directories(), directory());
    assert.equal(created.status, 201, created.text);
    directoryId = created.body.id;
  });
  after(async () => {
    await browser?.close();
    await rp?.close();
    await dc?.stop();
  });

  it('the test endpoint reaches the DC over LDAPS with the pinned CA, knows it is Active Directory, and maps its users; a wrong CA is refused', async () => {
    const tested = await api('POST', `${directories()}/${directoryId}/test`, {});
    assert.equal(tested.status, 200, tested.text);
    assert.equal(tested.body.connected, true, tested.text);
    assert.equal(tested.body.tls, true);
    assert.equal(tested.body.serverType, 'active-directory');
    assert.deepEqual(tested.body.problems, []);
    const alice = tested.body.users.find((u: { userName: string }) => u.userName === 'alice');
    assert.ok(alice, tested.text);
    assert.match(alice.externalId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'objectGUID as text');
    assert.equal(alice.displayName, 'Alice Archer');
    assert.equal(alice.email, 'alice@corp.example.test');
    assert.deepEqual(tested.body.groups.map((g: { name: string }) => g.name).sort(), ['all-staff', 'engineers']);

    const dir = mkdtempSync(join(tmpdir(), 'wrong-ca-'));
    try {
      const wrong = await api('POST', directories(), directory({ name: 'Samba AD, wrong CA', caCertificate: readFileSync(throwAwayCa(dir).ca, 'utf8') }));
      const refused = (await api('POST', `${directories()}/${wrong.body.id}/test`, {})).body;
      assert.equal(refused.connected, false);
      assert.match(refused.problems[0], /^TLS: .*certificate/i);
      await api('DELETE', `${directories()}/${wrong.body.id}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a full sync brings the people by objectGUID and the groups with their members, nested ones by the in-chain rule', async () => {
    const first = await syncOf(directoryId);
    assert.equal(first.state, 'finished', JSON.stringify(first));
    assert.equal(first.kind, 'full');
    assert.deepEqual(first.counts, counts(5, 0, 0, 0, 0), JSON.stringify(first));
    assert.deepEqual(first.groups, { created: 2, updated: 0, removed: 0, unchanged: 0, failed: 0 }, JSON.stringify(first));
    const alice = (await userNamed('alice'))!;
    const read = (await api('GET', `/management/v1/orgs/${project.orgId}/users/${alice.userId}`)).body;
    assert.equal(read.profile.firstName, 'Alice');
    assert.equal(read.profile.displayName, 'Alice Archer');
    assert.equal(read.email.email, 'alice@corp.example.test');
    const engineers = (await groupMembers('engineers'))!;
    assert.deepEqual(engineers.members, ['Alice Archer']);
    assert.match(engineers.externalId, /^[0-9a-f-]{36}$/, 'the group is linked by its objectGUID');
    assert.deepEqual((await groupMembers('all-staff'))!.members, ['Alice Archer', 'Bob Baker']);
  });

  it('an incremental sync (uSNChanged) follows a change, a rename and a move, disables and ends tokens, deletes, adds; re-enabling reactivates', async () => {
    const bob = (await userNamed('bob'))!;
    const frank = (await userNamed('frank'))!;
    const carol = (await userNamed('carol'))!;
    const signedIn = await tokensOf('carol', 'Carol-AD-pw-1');
    const token = signedIn.tokens?.access_token;
    assert.ok(token, `carol signs in with her AD password: ${signedIn.error}`);
    assert.equal(await userinfo(token), 200);

    dc.modify(`dn: CN=Alice Archer,${STAFF}\nchangetype: modify\nreplace: givenName\ngivenName: Alicia\n`);
    // A rename (the RDN and the account name) and a move to another OU: objectGUID stays.
    dc.modify(`dn: CN=Bob Baker,${STAFF}\nchangetype: modrdn\nnewrdn: CN=Robert Baker\ndeleteoldrdn: 1\n`);
    dc.modify(`dn: CN=Robert Baker,${STAFF}\nchangetype: modify\nreplace: sAMAccountName\nsAMAccountName: robert\n`);
    dc.modify(`dn: CN=Frank Fisher,${STAFF}\nchangetype: modrdn\nnewrdn: CN=Frank Fisher\ndeleteoldrdn: 1\nnewsuperior: OU=Elsewhere,${STAFF}\n`);
    // userAccountControl 514: NORMAL_ACCOUNT | ACCOUNTDISABLE ([MS-ADTS] 2.2.16).
    dc.modify(`dn: CN=Carol Cook,${STAFF}\nchangetype: modify\nreplace: userAccountControl\nuserAccountControl: 514\n`);
    dc.modify(`dn: CN=Dave Diver,${STAFF}\nchangetype: delete\n`);
    dc.modify(adUserLdif('erin', { givenName: 'Erin', sn: 'Early', password: 'Erin-AD-pw-1' }), true);

    const second = await syncOf(directoryId);
    assert.equal(second.kind, 'incremental', JSON.stringify(second));
    // Read: alice and robert (updated), frank (moved: only the remembered DN changes), carol and erin; dave is found
    // gone by the pass over the stable ids.
    assert.deepEqual(second.counts, counts(1, 2, 2, 0, 1), JSON.stringify(second));
    assert.equal((await userNamed('robert'))!.userId, bob.userId, 'the rename keeps the user');
    assert.equal((await userNamed('frank'))!.userId, frank.userId, 'the move keeps the user');
    assert.equal((await userNamed('carol'))!.state, 'inactive');
    assert.equal((await userNamed('dave'))!.state, 'inactive');
    assert.ok(await userNamed('erin'));
    assert.equal(await userinfo(token), 401, "the disabled person's token ends");
    const [deactivated] = await searchEvents(svc, { aggregate_id: carol.userId, event_types: ['user.deactivated'] });
    assert.ok(deactivated, 'user.deactivated');
    // The renamed person stays a member (displayName is an attribute of its own, which the rename kept).
    assert.deepEqual((await groupMembers('all-staff'))!.members, ['Alice Archer', 'Bob Baker']);

    dc.modify(`dn: CN=Carol Cook,${STAFF}\nchangetype: modify\nreplace: userAccountControl\nuserAccountControl: 512\n`);
    const third = await syncOf(directoryId);
    assert.equal(third.kind, 'incremental');
    assert.deepEqual(third.counts, counts(0, 0, 0, 1, 0), JSON.stringify(third));
    assert.equal((await userNamed('carol'))!.state, 'active');
    assert.equal(await userinfo(token), 401, 'nothing revoked comes back');
    assert.ok((await tokensOf('carol', 'Carol-AD-pw-1')).tokens?.access_token, 'carol signs in again');
  });

  it('sign-in in Chromium with the AD password; a wrong one is the ordinary wrong-password page and counts; an injected name matches nobody', async () => {
    const alice = (await userNamed('alice'))!;
    const authUrl = new URL('/oauth/v2/authorize', svc.config.publicUrl);
    authUrl.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: `${rp.url}/cb`,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
    }).toString();
    const ui = await newPage(browser);
    try {
      const cb = await authorize(rp, ui.page, authUrl, (page) => submitLogin(page, `alice@${project.primaryDomain}`, 'Alice-AD-pw-1'));
      assert.ok(callbackParams(cb).get('code'), 'a code at the redirect URI');
    } finally {
      await ui.context.close();
    }
    const [row] = await svc.dataSource.query('SELECT password_hash FROM users WHERE id = ?', [alice.userId]);
    assert.equal(row.password_hash, null, 'the AD password is never stored');

    const wrong = await newPage(browser);
    try {
      const attempt = async (loginName: string, password: string) => {
        await wrong.page.goto(String(authUrl));
        await wrong.page.fill('input[name="loginName"]', loginName);
        await wrong.page.fill('input[name="password"]', password);
        await Promise.all([wrong.page.waitForResponse((r) => r.request().method() === 'POST'), wrong.page.click('button[type="submit"]')]);
        return wrong.page.innerText('body');
      };
      const failedBefore = (await searchEvents(svc, { aggregate_id: alice.userId, event_types: ['user.human.password.check.failed'] })).length;
      assert.ok((await attempt(`alice@${project.primaryDomain}`, 'not-her-password')).includes(WRONG));
      const failed = await searchEvents(svc, { aggregate_id: alice.userId, event_types: ['user.human.password.check.failed'] });
      assert.equal(failed.length, failedBefore + 1, 'the wrong AD password counts toward lockout');
      for (const injected of ['*)(sAMAccountName=*', `*)(sAMAccountName=*@${project.primaryDomain}`, '*'])
        assert.ok((await attempt(injected, 'Alice-AD-pw-1')).includes(WRONG), injected);

      // Must change at next logon (pwdLastSet 0): AD answers `data 773` to the right password only. The right one is
      // told it expired and is not signed in; a wrong one still gets the ordinary page.
      dc.modify(`dn: CN=Alice Archer,${STAFF}\nchangetype: modify\nreplace: pwdLastSet\npwdLastSet: 0\n`);
      assert.match(dc.bind(`CN=Alice Archer,${STAFF}`, 'Alice-AD-pw-1'), /data 773/);
      assert.match(await attempt(`alice@${project.primaryDomain}`, 'Alice-AD-pw-1'), /has expired and must be changed/);
      assert.ok(!wrong.page.url().startsWith(rp.url), 'no code for an expired password');
      assert.ok((await attempt(`alice@${project.primaryDomain}`, 'not-her-password')).includes(WRONG));
    } finally {
      await wrong.context.close();
    }
  });

  it('a password set in Portcullis is written to AD over LDAPS when writeBack is on (checked by a bind), else a 409 naming the directory', async () => {
    const erin = (await userNamed('erin'))!;
    const path = `/management/v1/orgs/${project.orgId}/users/${erin.userId}/password`;
    const refused = await api('PUT', path, { password: 'Reset-AD-pw-9x' });
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.text, /Samba AD/);
    assert.equal(dc.bind(`CN=Erin Early,${STAFF}`, 'Erin-AD-pw-1'), 'ok', 'nothing changed in AD');

    assert.equal((await api('PATCH', `${directories()}/${directoryId}`, { writeBack: true })).status, 200);
    const before = await tokensOf('erin', 'Erin-AD-pw-1');
    assert.ok(before.tokens?.access_token, `erin signs in: ${before.error}`);
    const reset = await api('PUT', path, { password: 'Reset-AD-pw-9x' });
    assert.equal(reset.status, 200, reset.text);
    assert.equal(dc.bind(`CN=Erin Early,${STAFF}`, 'Reset-AD-pw-9x'), 'ok', 'AD took the new password');
    assert.match(dc.bind(`CN=Erin Early,${STAFF}`, 'Erin-AD-pw-1'), /data 52e/, 'the old one no longer binds');
    assert.equal(await userinfo(before.tokens!.access_token), 401, 'a reset ends the sessions and tokens');
    const [row] = await svc.dataSource.query('SELECT password_hash FROM users WHERE id = ?', [erin.userId]);
    assert.equal(row.password_hash, null, 'no hash is stored here');
    assert.ok((await tokensOf('erin', 'Reset-AD-pw-9x')).tokens?.access_token, 'the new password signs in');

    // AD's own rules refuse what they do not allow (complexity: three of upper, lower, digit, symbol), which this
    // instance's policy lets through: a 4xx with the directory's reason, nothing changed.
    const weak = await api('PUT', path, { password: 'onlylowercaseletters' });
    assert.ok(weak.status >= 400 && weak.status < 500, weak.text);
    assert.match(weak.text, /refused the password/);
    assert.equal(dc.bind(`CN=Erin Early,${STAFF}`, 'Reset-AD-pw-9x'), 'ok');
  });

  it('with writeBack, a must-change AD password (data 773) is changed on the way in, as the person, and the sign-in goes on (Chromium)', async () => {
    dc.modify(`dn: CN=Erin Early,${STAFF}\nchangetype: modify\nreplace: pwdLastSet\npwdLastSet: 0\n`);
    assert.match(dc.bind(`CN=Erin Early,${STAFF}`, 'Reset-AD-pw-9x'), /data 773/);
    const authUrl = new URL('/oauth/v2/authorize', svc.config.publicUrl);
    authUrl.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: `${rp.url}/cb`,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
    }).toString();
    const ui = await newPage(browser);
    try {
      const cb = await authorize(rp, ui.page, authUrl, async (page) => {
        await submitLogin(page, `erin@${project.primaryDomain}`, 'Reset-AD-pw-9x');
        await page.waitForSelector('form[data-directory-password-change]');
        // Twice different: the form again, nothing written.
        await page.fill('input[name="currentPassword"]', 'Reset-AD-pw-9x');
        await page.fill('input[name="password"]', 'Changed-AD-pw-3q');
        await page.fill('input[name="passwordConfirm"]', 'Changed-AD-pw-3r');
        await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('button[type="submit"]')]);
        assert.match(await page.innerText('body'), /differ/);
        await page.fill('input[name="currentPassword"]', 'Reset-AD-pw-9x');
        await page.fill('input[name="password"]', 'Changed-AD-pw-3q');
        await page.fill('input[name="passwordConfirm"]', 'Changed-AD-pw-3q');
        await page.click('button[type="submit"]');
      });
      assert.ok(callbackParams(cb).get('code'), 'a code at the redirect URI after the change');
    } finally {
      await ui.context.close();
    }
    assert.equal(dc.bind(`CN=Erin Early,${STAFF}`, 'Changed-AD-pw-3q'), 'ok', 'AD took the new password, and no longer asks for a change');
    assert.match(dc.bind(`CN=Erin Early,${STAFF}`, 'Reset-AD-pw-9x'), /data 52e/);
  });
});
