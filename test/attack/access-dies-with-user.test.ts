import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { UserLifecycleService } from '../../src/users/user-lifecycle.service.js';
import { createHuman, createMachine, createOidcApp, createProject, PASSWORD, postForm } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import type { UserTokens } from '../oidc/support/sign-in.js';
import { useService } from '../support/fixtures.js';

const RP = 'http://127.0.0.1:65530';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * Deleting, deactivating or locking a user, and changing its password, revoke its sessions, grants and
 * tokens; reactivating or unlocking revives none of them (SECURITY.md, "A user's access dies with it").
 * Each case replays the old tokens as their holder would.
 */
describe("a user's access dies with it", () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let opaque: OidcApp;
  let jwt: OidcApp;

  before(async () => {
    project = await createProject(svc);
    opaque = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    jwt = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType: 'jwt' }, RP);
  });

  async function signedIn(app: OidcApp) {
    const user = await createHuman(svc, project.orgId);
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: `${user.userName}@${project.primaryDomain}`,
      password: PASSWORD,
      scope: 'openid email offline_access',
    });
    assert.ok(tokens?.refresh_token, `signed in with a refresh token: ${error}`);
    return { user, tokens, app };
  }

  /** What each old token still gets: userinfo, introspection, refresh. */
  async function replay({ tokens, app }: { tokens: UserTokens; app: OidcApp }) {
    const basic = { id: app.clientId, secret: app.clientSecret! };
    const userinfo = await fetch(new URL('/oidc/v1/userinfo', svc.url), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const introspected = await postForm(svc, '/oauth/v2/introspect', { token: tokens.access_token }, basic);
    const refreshed = await postForm(svc, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }, basic);
    return { userinfo: userinfo.status, active: introspected.body.active, refresh: refreshed.status === 200 ? 'ok' : refreshed.body.error };
  }
  const dead = { userinfo: 401, active: false, refresh: 'invalid_grant' };

  const scimPatch = (userId: string, operations: object[]) =>
    svc.api('PATCH', `/scim/v2/${project.orgId}/Users/${userId}`, { token: svc.adminToken, body: { schemas: [PATCH_OP], Operations: operations } });

  for (const app of ['opaque', 'jwt'] as const) {
    it(`deactivation revokes ${app} access and refresh tokens, and reactivation revives none`, async () => {
      const session = await signedIn(app === 'opaque' ? opaque : jwt);
      assert.deepEqual(await replay(session), { userinfo: 200, active: true, refresh: 'ok' }, 'alive before');
      const fresh = await signedIn(app === 'opaque' ? opaque : jwt);
      assert.equal((await scimPatch(fresh.user.userId, [{ op: 'replace', value: { active: false } }])).status, 204);
      assert.equal((await scimPatch(fresh.user.userId, [{ op: 'replace', value: { active: true } }])).status, 204);
      assert.deepEqual(await replay(fresh), dead);
    });
  }

  it('a password change revokes the tokens; the new password signs in afresh', async () => {
    const session = await signedIn(opaque);
    assert.equal((await scimPatch(session.user.userId, [{ op: 'replace', path: 'password', value: 'A-New-Password-7' }])).status, 204);
    assert.deepEqual(await replay(session), dead);
    const again = await signIn(svc, {
      clientId: opaque.clientId,
      clientSecret: opaque.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: `${session.user.userName}@${project.primaryDomain}`,
      password: 'A-New-Password-7',
    });
    assert.ok(again.tokens, again.error);
  });

  it('a lock revokes the tokens and an unlock revives none', async () => {
    const session = await signedIn(opaque);
    const lifecycle = svc.app.get(UserLifecycleService);
    await lifecycle.lock(null, project.orgId, session.user.userId);
    await lifecycle.unlock(null, project.orgId, session.user.userId);
    assert.deepEqual(await replay(session), dead);
  });

  it('deletion revokes the tokens', async () => {
    const session = await signedIn(opaque);
    assert.equal((await svc.api('DELETE', `/scim/v2/${project.orgId}/Users/${session.user.userId}`, { token: svc.adminToken })).status, 204);
    assert.deepEqual(await replay(session), dead);
  });

  it("a machine user's client-credentials tokens die with its deactivation and stay dead after reactivation", async () => {
    const machine = await createMachine(svc, project.orgId);
    const cc = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: machine.clientId, secret: machine.clientSecret });
    assert.equal(cc.status, 200, cc.text);
    const api = () => svc.api('GET', `/scim/v2/${project.orgId}/Users?count=1`, { token: cc.body.access_token });
    assert.equal((await api()).status, 403, 'a valid token without a role');
    const lifecycle = svc.app.get(UserLifecycleService);
    await lifecycle.deactivate(null, project.orgId, machine.userId);
    await lifecycle.reactivate(null, project.orgId, machine.userId);
    assert.equal((await api()).status, 401, 'the token is gone');
  });

  it('the sign-in of another user of the same application is untouched', async () => {
    const bystander = await signedIn(opaque);
    const victim = await signedIn(opaque);
    assert.equal((await scimPatch(victim.user.userId, [{ op: 'replace', value: { active: false } }])).status, 204);
    assert.deepEqual(await replay(bystander), { userinfo: 200, active: true, refresh: 'ok' });
  });
});
