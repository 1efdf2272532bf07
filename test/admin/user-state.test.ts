import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { CLIENT_CACHE_MS } from '../../src/oidc/adapter/client.store.js';
import { LoginClient } from '../attack/support/login-client.js';
import { createApiApp, createHuman, createMachine, createOidcApp, createProject, PASSWORD, postForm } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { createCaller, searchEvents, useService } from '../support/fixtures.js';
import { INVALID_TOKENS, assertNotStored, badRequest, refused, row, theEvent, tokenOption } from './helpers.js';
import type { Caller } from './helpers.js';

const RP = 'http://127.0.0.1:65530';

/**
 * Deactivate, reactivate, unlock and set a password through the management API (docs/product-rules.md,
 * "API"), with what SECURITY.md says follows: a user's access dies with deactivation and a new password,
 * reactivation and unlocking revive none of it, and the last active IAM_OWNER stays.
 */
describe('management API: user state and password', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  let api: OidcApp;
  let manager: Caller;
  let owner: Caller;
  let member: Caller;
  const path = (userId: string, tail: string, orgId = project.orgId) => `/management/v1/orgs/${orgId}/users/${userId}/${tail}`;

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    api = await createApiApp(svc, project);
    manager = await createCaller(svc, project.orgId, { org: ['ORG_USER_MANAGER'] });
    owner = await createCaller(svc, project.orgId, { org: ['ORG_OWNER'] });
    member = await createCaller(svc, project.orgId);
  });

  const loginName = (userName: string) => `${userName}@${project.primaryDomain}`;

  /** Whether the login UI accepts the password (303 onwards) or refuses it (401), as a browser sees it. */
  async function passwordAccepted(userName: string, password: string): Promise<boolean> {
    const browser = new LoginClient(svc.url);
    const verifier = randomBytes(32).toString('base64url');
    const { uid, csrf } = await browser.startLogin({
      client_id: app.clientId,
      redirect_uri: `${RP}/cb`,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const posted = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName: loginName(userName), password });
    assert.ok([303, 401].includes(posted.status), `login answered ${posted.status}`);
    return posted.status === 303;
  }

  async function signedIn(userName: string, password = PASSWORD) {
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: loginName(userName),
      password,
      scope: 'openid offline_access',
    });
    assert.ok(tokens?.refresh_token, `signed in: ${error}`);
    return tokens as { access_token: string; refresh_token: string };
  }

  const active = async (token: string) =>
    (await postForm(svc, '/oauth/v2/introspect', { token }, { id: api.clientId, secret: api.clientSecret! })).body.active as boolean;
  const refreshes = async (token: string) =>
    (await postForm(svc, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: token }, { id: app.clientId, secret: app.clientSecret! })).status ===
    200;

  describe('POST …/deactivate and …/reactivate', () => {
    it('deactivation ends sign-in and every token; reactivation restores sign-in but no old token', async () => {
      const user = await createHuman(svc, project.orgId);
      const tokens = await signedIn(user.userName);
      assert.equal(await active(tokens.access_token), true);

      const res = await svc.api('POST', path(user.userId, 'deactivate'), { token: manager.token, body: {} });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.state, 'inactive');
      assert.equal(res.body.userId, user.userId);
      const event = await theEvent(svc, 'user.deactivated', user.userId);
      assert.equal(event.editor.userId, manager.userId);
      assert.equal(event.aggregate.resourceOwner, project.orgId);
      assert.equal(await active(tokens.access_token), false, 'the access token is inactive at introspection');
      assert.equal(await refreshes(tokens.refresh_token), false);
      assert.equal(await passwordAccepted(user.userName, PASSWORD), false, 'sign-in fails');

      // Deactivating again changes nothing and writes no second event (SCIM clients repeat themselves, so may consoles).
      assert.equal((await svc.api('POST', path(user.userId, 'deactivate'), { token: manager.token })).status, 200);
      assert.equal((await searchEvents(svc, { event_types: ['user.deactivated'], aggregate_id: user.userId })).length, 1);

      const back = await svc.api('POST', path(user.userId, 'reactivate'), { token: manager.token, body: {} });
      assert.equal(back.status, 200, back.text);
      assert.equal(back.body.state, 'active');
      assert.equal((await theEvent(svc, 'user.reactivated', user.userId)).editor.userId, manager.userId);
      assert.equal(await passwordAccepted(user.userName, PASSWORD), true, 'sign-in works again');
      assert.equal(await active(tokens.access_token), false, 'old tokens stay dead');
      assert.equal(await refreshes(tokens.refresh_token), false);
    });

    it("a machine's client credentials token dies with deactivation and stays dead after reactivation", async () => {
      const machine = await createMachine(svc, project.orgId);
      const cc = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: machine.clientId, secret: machine.clientSecret });
      assert.equal(cc.status, 200, cc.text);
      assert.equal((await svc.api('POST', path(machine.userId, 'deactivate'), { token: manager.token })).status, 200);
      assert.equal(await active(cc.body.access_token), false);
      const grant = () => postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: machine.clientId, secret: machine.clientSecret });
      // A process may still know the client for CLIENT_CACHE_MS (client.store.ts), but what it issues is dead on use.
      const meanwhile = await grant();
      if (meanwhile.status === 200) assert.equal(await active(meanwhile.body.access_token), false, 'a token issued meanwhile is inactive');
      await new Promise((resolve) => setTimeout(resolve, CLIENT_CACHE_MS + 100));
      assert.equal((await grant()).body.error, 'invalid_client', 'an inactive machine gets no token');
      assert.equal((await svc.api('POST', path(machine.userId, 'reactivate'), { token: manager.token })).status, 200);
      assert.equal(await active(cc.body.access_token), false);
    });

    it('reactivating an active user is 200 without an event; a locked user cannot be "reactivated" (400)', async () => {
      const user = await createHuman(svc, project.orgId);
      assert.equal((await svc.api('POST', path(user.userId, 'reactivate'), { token: manager.token })).status, 200);
      assert.equal((await searchEvents(svc, { event_types: ['user.reactivated'], aggregate_id: user.userId })).length, 0);
      await svc.dataSource.query("UPDATE users SET state = 'locked' WHERE id = ?", [user.userId]);
      await refused(svc, 400, () => svc.api('POST', path(user.userId, 'reactivate'), { token: manager.token }));
    });
  });

  describe('POST …/unlock', () => {
    it('unlocks a user locked by failed passwords: sign-in works, no old token revives', async () => {
      const user = await createHuman(svc, project.orgId);
      const tokens = await signedIn(user.userName);
      // The instance's lockout (lockout_max_attempts) locks the user after that many wrong passwords.
      const { lockout_max_attempts: limit } = await row(svc, 'SELECT lockout_max_attempts FROM instance', []);
      assert.ok(Number(limit) > 0, 'lockout enabled by default');
      for (let i = 0; i < Number(limit); i++) assert.equal(await passwordAccepted(user.userName, 'Wrong-Password-1'), false);
      assert.equal((await row(svc, 'SELECT state FROM users WHERE id = ?', [user.userId])).state, 'locked');
      assert.equal(await passwordAccepted(user.userName, PASSWORD), false, 'locked: refused whatever the password');

      const res = await svc.api('POST', path(user.userId, 'unlock'), { token: manager.token, body: {} });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.state, 'active');
      assert.equal((await theEvent(svc, 'user.unlocked', user.userId)).editor.userId, manager.userId);
      assert.equal(await passwordAccepted(user.userName, PASSWORD), true);
      assert.equal(await active(tokens.access_token), false, 'the lock revoked it, the unlock revived nothing');
    });

    it('unlocking an active user is 200 without an event; an inactive one cannot be unlocked (400)', async () => {
      const user = await createHuman(svc, project.orgId);
      assert.equal((await svc.api('POST', path(user.userId, 'unlock'), { token: manager.token })).status, 200);
      assert.equal((await searchEvents(svc, { event_types: ['user.unlocked'], aggregate_id: user.userId })).length, 0);
      assert.equal((await svc.api('POST', path(user.userId, 'deactivate'), { token: manager.token })).status, 200);
      await refused(svc, 400, () => svc.api('POST', path(user.userId, 'unlock'), { token: manager.token }));
    });
  });

  describe('PUT …/password', () => {
    it('sets the password: the old one fails, the new one works, tokens are revoked, only a hash is stored', async () => {
      const user = await createHuman(svc, project.orgId);
      const tokens = await signedIn(user.userName);
      const password = 'A-Brand-New-Passw0rd';
      const res = await svc.api('PUT', path(user.userId, 'password'), { token: manager.token, body: { password } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.userId, user.userId);
      assert.ok(!JSON.stringify(res.body).includes(password));
      const event = await theEvent(svc, 'user.human.password.changed', user.userId);
      assert.equal(event.editor.userId, manager.userId);
      assert.ok(!JSON.stringify(event.payload).includes(password));
      await assertNotStored(svc, password);
      assert.equal(await active(tokens.access_token), false);
      assert.equal(await refreshes(tokens.refresh_token), false);
      assert.equal(await passwordAccepted(user.userName, PASSWORD), false, 'the old password fails');
      assert.equal(await passwordAccepted(user.userName, password), true, 'the new one works');
    });

    it('refuses a password against the policy, a missing one, unknown fields, and machines; nothing changes', async () => {
      const user = await createHuman(svc, project.orgId);
      const machine = await createMachine(svc, project.orgId);
      const send = (userId: string, body: unknown) => () => svc.api('PUT', path(userId, 'password'), { token: manager.token, body });
      const { password_min_length: min } = await row(svc, 'SELECT password_min_length FROM instance', []);
      await badRequest(svc, ['password'], send(user.userId, { password: 'x'.repeat(Number(min) - 1) }), 'below the minimum length');
      await badRequest(svc, ['password'], send(user.userId, { password: 'é'.repeat(37) }), 'over 72 bytes (bcrypt)');
      await badRequest(svc, ['password'], send(user.userId, {}));
      await badRequest(svc, ['password'], send(user.userId, { password: 12345678 }));
      await badRequest(svc, ['extra'], send(user.userId, { password: 'A-Fine-Passw0rd', extra: true }));
      await refused(svc, 400, send(machine.userId, { password: 'A-Fine-Passw0rd' }), 'machines have no password');
      assert.equal(await passwordAccepted(user.userName, PASSWORD), true, 'unchanged');
    });
  });

  describe('refusals', () => {
    const routes: [string, string, unknown][] = [
      ['POST', 'deactivate', {}],
      ['POST', 'reactivate', {}],
      ['POST', 'unlock', {}],
      ['PUT', 'password', { password: 'Attacker-Chosen-9' }],
    ];

    it('401 without a valid token, 403 without the role, 404 for unknown users and other organizations', async () => {
      const user = await createHuman(svc, project.orgId);
      const other = await createProject(svc);
      for (const [method, tail, body] of routes) {
        for (const token of INVALID_TOKENS)
          await refused(svc, 401, () => svc.api(method, path(user.userId, tail), { ...tokenOption(token), body }), `${tail} ${token}`);
        await refused(svc, 403, () => svc.api(method, path(user.userId, tail), { token: member.token, body }), tail);
        await refused(svc, 404, () => svc.api(method, path('no-such-user', tail), { token: manager.token, body }), tail);
        await refused(
          svc,
          404,
          () => svc.api(method, path(user.userId, tail, other.orgId), { token: svc.adminToken, body }),
          `${tail}: the user is in another organization`,
        );
        await refused(
          svc,
          404,
          () => svc.api(method, path(user.userId, tail, other.orgId), { token: manager.token, body }),
          `${tail}: an organization outside the caller`,
        );
        await badRequest(
          svc,
          ['unknown'],
          () => svc.api(method, path(user.userId, tail), { token: manager.token, body: { ...(body as object), unknown: 1 } }),
          tail,
        );
      }
    });

    it('403 when the target holds a role the caller lacks; nothing changes, and the target keeps signing in', async () => {
      const target = await createHuman(svc, project.orgId);
      const roles = await svc.api('PUT', `/management/v1/orgs/${project.orgId}/members/${target.userId}`, {
        token: svc.adminToken,
        body: { roles: ['ORG_OWNER'] },
      });
      assert.equal(roles.status, 200, roles.text);
      for (const [method, tail, body] of routes)
        await refused(svc, 403, () => svc.api(method, path(target.userId, tail), { token: manager.token, body }), tail);
      await refused(svc, 403, () => svc.api('DELETE', `/management/v1/orgs/${project.orgId}/users/${target.userId}`, { token: manager.token }));
      assert.equal(await passwordAccepted(target.userName, PASSWORD), true);
      // A peer may: an ORG_OWNER holds every role of an ORG_OWNER.
      assert.equal((await svc.api('POST', path(target.userId, 'deactivate'), { token: owner.token })).status, 200);
    });

    it('the last active IAM_OWNER is neither deactivated nor deleted (409); nothing changes', async () => {
      const iam = await createCaller(svc, project.orgId, { instance: ['IAM_OWNER'] });
      // Every other active IAM_OWNER (the bootstrap ones among them) is set aside for the moment.
      const others: { user_id: string }[] = await svc.dataSource.query(
        `SELECT m.user_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.scope_type = 'instance' AND m.roles LIKE '%IAM_OWNER%' AND u.state = 'active' AND u.id <> ?`,
        [iam.userId],
      );
      for (const { user_id } of others) await svc.dataSource.query("UPDATE users SET state = 'inactive' WHERE id = ?", [user_id]);
      try {
        await refused(svc, 409, () => svc.api('POST', path(iam.userId, 'deactivate'), { token: iam.token }));
        await refused(svc, 409, () => svc.api('DELETE', `/management/v1/orgs/${project.orgId}/users/${iam.userId}`, { token: iam.token }));
      } finally {
        for (const { user_id } of others) await svc.dataSource.query("UPDATE users SET state = 'active' WHERE id = ?", [user_id]);
      }
      // With another owner active again, it may go.
      assert.equal((await svc.api('POST', path(iam.userId, 'deactivate'), { token: svc.adminToken })).status, 200);
    });
  });
});
