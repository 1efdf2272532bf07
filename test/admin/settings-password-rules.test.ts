import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { csrfOf, LoginClient } from '../attack/support/login-client.js';
import { createHuman, createOidcApp, createProject, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { PATCH_OP, USER_SCHEMA, assertScimError, createUser, scimTenant, userBody } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { searchEvents, unique, useService } from '../support/fixtures.js';
import { badRequest, row } from './helpers.js';

const RP = 'http://127.0.0.1:65530';
const PATH = '/admin/v1/settings';
const DAY_MS = 86_400_000;
const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';

/**
 * The password policy's history and maximum age and the lockout's lock time (docs/operations.md, "Settings"), as
 * Keycloak's "Not Recently Used", "Expire Password" and temporary lockout: bounds named in the 400, a reused password
 * refused wherever a password is set, an expired one owed at the next password sign-in, a lock by failed checks
 * ended once its time is over. Times are moved in the database, never waited for.
 */
describe('admin API: password history, password age and lock time', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  let tenant: ScimTenant;

  const patch = async (body: unknown) => {
    const res = await svc.api('PATCH', PATH, { token: svc.adminToken, body });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const get = async () => (await svc.api('GET', PATH, { token: svc.adminToken })).body;
  const loginName = (userName: string) => `${userName}@${project.primaryDomain}`;
  const setPassword = (userId: string, password: string, orgId = project.orgId) =>
    svc.api('PUT', `/management/v1/orgs/${orgId}/users/${userId}/password`, { token: svc.adminToken, body: { password } });
  const historyOf = async (userId: string) =>
    (await svc.dataSource.query('SELECT password_hash FROM password_history WHERE user_id = ?', [userId])) as { password_hash: string }[];

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    tenant = await scimTenant(svc);
  });

  /** Starts a sign-in and posts the password; the browser, its interaction and where the answer led. */
  async function signInUntil(userName: string, password: string) {
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin({
      client_id: app.clientId,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const posted = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName: loginName(userName), password });
    return { browser, uid, posted, landed: await browser.follow(posted) };
  }
  const codeOf = (page: { location?: string }) => (page.location?.startsWith(`${RP}/cb`) ? new URL(page.location).searchParams.get('code') : null);

  it('refuses each new field out of bounds with a 400 naming it; nothing changes', async () => {
    const before = await get();
    const send = (body: unknown) => () => svc.api('PATCH', PATH, { token: svc.adminToken, body });
    await badRequest(svc, ['passwordPolicy.historyCount'], send({ passwordPolicy: { historyCount: 25 } }), 'history 25');
    await badRequest(svc, ['passwordPolicy.historyCount'], send({ passwordPolicy: { historyCount: -1 } }), 'history -1');
    await badRequest(svc, ['passwordPolicy.historyCount'], send({ passwordPolicy: { historyCount: 2.5 } }), 'history 2.5');
    await badRequest(svc, ['passwordPolicy.maxAgeDays'], send({ passwordPolicy: { maxAgeDays: 3651 } }), 'age 3651');
    await badRequest(svc, ['passwordPolicy.maxAgeDays'], send({ passwordPolicy: { maxAgeDays: '30' } }), 'age a string');
    await badRequest(svc, ['lockout.lockSeconds'], send({ lockout: { lockSeconds: 86_401 } }), 'lock 86401');
    await badRequest(svc, ['lockout.lockSeconds'], send({ lockout: { lockSeconds: -5 } }), 'lock -5');
    await badRequest(svc, ['lockout.lockSeconds'], send({ lockout: { lockSeconds: null } }), 'lock null');
    assert.deepEqual(await get(), before);
    assert.equal((await searchEvents(svc, { event_types: ['instance.settings.changed'], limit: 1000 })).length, 0);
    // The bounds themselves are accepted.
    const edges = await patch({ passwordPolicy: { historyCount: 24, maxAgeDays: 3650 }, lockout: { lockSeconds: 86_400 } });
    assert.deepEqual([edges.passwordPolicy.historyCount, edges.passwordPolicy.maxAgeDays, edges.lockout.lockSeconds], [24, 3650, 86_400]);
    await patch({ passwordPolicy: { historyCount: 0, maxAgeDays: 0 }, lockout: { lockSeconds: 0 } });
  });

  it('history: the management API refuses any of the last N passwords, keeps N - 1 previous hashes, and forgets them at 0', async () => {
    const user = await createHuman(svc, project.orgId);
    assert.equal((await setPassword(user.userId, PASSWORD)).status, 200, 'without a history the same password may be set again');
    assert.equal((await historyOf(user.userId)).length, 0, 'no history is kept while the policy asks for none');
    await patch({ passwordPolicy: { historyCount: 3 } });
    const refusal = await badRequest(svc, ['password'], () => setPassword(user.userId, PASSWORD), 'the current one');
    assert.match(refusal.text, /differ from the last 3 passwords/);
    assert.equal((await setPassword(user.userId, 'Second-Pass-2')).status, 200);
    assert.equal((await setPassword(user.userId, 'Third-Pass-3')).status, 200);
    await badRequest(svc, ['password'], () => setPassword(user.userId, PASSWORD), 'the third last');
    await badRequest(svc, ['password'], () => setPassword(user.userId, 'Second-Pass-2'), 'the previous one');
    assert.equal((await setPassword(user.userId, 'Fourth-Pass-4')).status, 200);
    assert.equal((await setPassword(user.userId, PASSWORD)).status, 200, 'the fourth last is allowed again');
    const kept = await historyOf(user.userId);
    assert.equal(kept.length, 2, 'the current hash and two previous ones make the last three');
    for (const { password_hash } of kept) assert.match(password_hash, /^\$2[aby]\$/, 'a bcrypt hash, never the password');
    await patch({ passwordPolicy: { historyCount: 0 } });
    assert.equal((await historyOf(user.userId)).length, 0, 'a shorter history keeps no more hashes than it needs');
    assert.equal((await setPassword(user.userId, PASSWORD)).status, 200);
  });

  it('history: SCIM PUT, PATCH and Bulk refuse a recent password with invalidValue and change nothing', async () => {
    const created = await createUser(tenant, userBody(unique('scim'), { password: 'Scim-First-1' }));
    const hashOf = async () => (await row(svc, 'SELECT password_hash FROM users WHERE id = ?', [created.id])).password_hash;
    await patch({ passwordPolicy: { historyCount: 2 } });
    const replace = (password: string) =>
      tenant.scim('PUT', `/Users/${created.id}`, { body: { ...userBody(created.userName), schemas: [USER_SCHEMA], password } });
    const patchPassword = (password: string) =>
      tenant.scim('PATCH', `/Users/${created.id}`, { body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'password', value: password }] } });
    assertScimError(await replace('Scim-First-1'), 400, 'invalidValue');
    const second = await patchPassword('Scim-Second-2');
    assert.equal(second.status, 204, second.text);
    const stored = await hashOf();
    const refused = await patchPassword('Scim-First-1');
    assertScimError(refused, 400, 'invalidValue');
    assert.match(refused.body.detail, /differ from the last 2 passwords/);
    const bulk = await tenant.scim('POST', '/Bulk', {
      body: {
        schemas: [BULK],
        Operations: [
          {
            method: 'PATCH',
            path: `/Users/${created.id}`,
            data: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'password', value: 'Scim-Second-2' }] },
          },
        ],
      },
    });
    assert.equal(bulk.status, 200, bulk.text);
    assert.equal(bulk.body.Operations[0].status, '400', JSON.stringify(bulk.body.Operations[0]));
    assert.equal(await hashOf(), stored, 'no refused request changed the password');
    assert.equal((await replace('Scim-Third-3')).status, 200);
    await patch({ passwordPolicy: { historyCount: 0 } });
  });

  it("history: the account page refuses a recent password in the page's own words", async () => {
    const user = await createHuman(svc, project.orgId);
    await patch({ passwordPolicy: { historyCount: 2 } });
    const { tokens, browser, error } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: loginName(user.userName),
      password: PASSWORD,
    });
    assert.ok(tokens, error);
    const page = await browser.get('/ui/account');
    assert.equal(page.status, 200, page.text.slice(0, 300));
    const change = (password: string, currentPassword: string) =>
      browser.post('/ui/account/password', { csrf: csrfOf(page.text), currentPassword, password, passwordConfirm: password });
    const refused = await change(PASSWORD, PASSWORD);
    assert.equal(refused.status, 400, refused.text.slice(0, 300));
    assert.match(refused.text, /password must differ from the last 2 passwords/);
    const changed = await change('Account-Next-5', PASSWORD);
    assert.equal(changed.status, 303, changed.text.slice(0, 300));
    assert.equal((await change(PASSWORD, 'Account-Next-5')).status, 400, 'the previous one is still among the last 2');
    await patch({ passwordPolicy: { historyCount: 0 } });
  });

  it('maximum age: a password older than the policy allows is owed a new one at the next password sign-in', async () => {
    const user = await createHuman(svc, project.orgId);
    await patch({ passwordPolicy: { maxAgeDays: 30, historyCount: 1 } });
    assert.ok(codeOf((await signInUntil(user.userName, PASSWORD)).landed), 'a new password is not owed');
    await svc.dataSource.query('UPDATE users SET password_changed_at = ? WHERE id = ?', [Date.now() - 31 * DAY_MS, user.userId]);
    const { browser, uid, landed } = await signInUntil(user.userName, PASSWORD);
    assert.equal(landed.status, 200);
    assert.match(landed.text, /data-password-change/);
    assert.equal(codeOf(landed), null, 'no code before a new password');
    const csrf = csrfOf(landed.text);
    const same = await browser.post(`/ui/login/${uid}/password-change`, { csrf, password: PASSWORD, passwordConfirm: PASSWORD });
    assert.equal(same.status, 400, 'the history holds at the owed step too');
    assert.match(same.text, /password must differ from the current one/);
    const changed = await browser.follow(
      await browser.post(`/ui/login/${uid}/password-change`, { csrf, password: 'Renewed-Pass-7', passwordConfirm: 'Renewed-Pass-7' }),
    );
    assert.ok(codeOf(changed), `the sign-in completes: ${changed.status} ${changed.location}`);
    assert.ok(codeOf((await signInUntil(user.userName, 'Renewed-Pass-7')).landed), 'the new password is not owed');
    // Read on use: without a maximum age, an old password is not owed.
    await svc.dataSource.query('UPDATE users SET password_changed_at = ? WHERE id = ?', [Date.now() - 400 * DAY_MS, user.userId]);
    await patch({ passwordPolicy: { maxAgeDays: 0, historyCount: 0 } });
    assert.ok(codeOf((await signInUntil(user.userName, 'Renewed-Pass-7')).landed), 'maxAgeDays 0: never owed');
  });

  it('lock time: a lock by failed checks ends once its time is over; 0 keeps it', async () => {
    await patch({ lockout: { maxPasswordFailures: 2, lockSeconds: 600 } });
    const user = await createHuman(svc, project.orgId);
    const stateOf = async () => (await row(svc, 'SELECT state, failures_locked_at FROM users WHERE id = ?', [user.userId])) as Record<string, unknown>;
    const lock = async () => {
      for (const guess of ['Wrong-Guess-1', 'Wrong-Guess-2']) assert.equal((await signInUntil(user.userName, guess)).posted.status, 401);
      assert.equal((await stateOf()).state, 'locked');
    };
    const moveLockBack = (seconds: number) =>
      svc.dataSource.query('UPDATE users SET failures_locked_at = failures_locked_at - ? WHERE id = ?', [seconds * 1000, user.userId]);

    await lock();
    assert.equal((await signInUntil(user.userName, PASSWORD)).posted.status, 401, 'locked: refused whatever the password');
    await moveLockBack(590);
    assert.equal((await signInUntil(user.userName, PASSWORD)).posted.status, 401, 'ten seconds before the end: still locked');
    await moveLockBack(11);
    assert.ok(codeOf((await signInUntil(user.userName, PASSWORD)).landed), 'the lock time is over: the sign-in completes');
    assert.deepEqual(await stateOf(), { state: 'active', failures_locked_at: null });
    const [unlocked] = await searchEvents(svc, { event_types: ['user.unlocked'], aggregate_id: user.userId });
    assert.ok(unlocked, 'user.unlocked is written');
    assert.equal(unlocked.editor?.userId ?? null, null, 'no editor: the lock ended by itself');

    await patch({ lockout: { lockSeconds: 0 } });
    await lock();
    await moveLockBack(10 * 86_400);
    assert.equal((await signInUntil(user.userName, PASSWORD)).posted.status, 401, 'lockSeconds 0: locked until unlocked');
    assert.equal((await stateOf()).state, 'locked');

    await patch({ lockout: { lockSeconds: 60 } });
    assert.ok(codeOf((await signInUntil(user.userName, PASSWORD)).landed), 'read on use: the new lock time ends the old lock');
    await patch({ lockout: { maxPasswordFailures: 10, lockSeconds: 0 } });
  });
});
