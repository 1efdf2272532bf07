import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { UserLifecycleService } from '../../src/users/user-lifecycle.service.js';
import { JWT_BEARER, createMachineKey, jwtProfileAssertion } from './support/jwt-profile.js';
import { PASSWORD, createApiApp, createHuman, createMachine, createOidcApp, createProject, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';
import { useService } from '../support/fixtures.js';

const REDIRECT = 'http://127.0.0.1:65530/cb';
const projectScope = (projectId: string) => `urn:portcullis:iam:org:project:id:${projectId}:aud`;

/**
 * docs/product-rules.md, "OpenID Connect and OAuth": revoking an access token revokes only that token; revoking a refresh token revokes
 * it and the access tokens issued from it (RFC 7009 §2.1 leaves the first to the server, SECURITY.md
 * "Logout and revocation" states it). Every case is driven over HTTP as the client would: revocation,
 * then introspection, userinfo and the refresh token grant show what is still alive.
 */
describe('token revocation: what one revocation takes with it', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let api: OidcApp;
  let loginName: string;

  before(async () => {
    project = await createProject(svc);
    api = await createApiApp(svc, project);
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
  });

  const basic = (app: { clientId: string; clientSecret?: string }) => ({ id: app.clientId, secret: app.clientSecret! });
  const active = async (token: string) => (await postForm(svc, '/oauth/v2/introspect', { token }, basic(api))).body.active as boolean;
  const userinfo = async (token: string) => (await fetch(new URL('/oidc/v1/userinfo', svc.url), { headers: { authorization: `Bearer ${token}` } })).status;
  const refresh = (app: OidcApp, token: string) => postForm(svc, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: token }, basic(app));
  async function revoke(client: { clientId: string; clientSecret?: string }, token: string, hint?: string) {
    const res = await postForm(svc, '/oauth/v2/revoke', { token, ...(hint ? { token_type_hint: hint } : {}) }, basic(client));
    assert.equal(res.status, 200, res.text);
  }

  async function userTokens(app: OidcApp) {
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: REDIRECT,
      loginName,
      password: PASSWORD,
      scope: `openid offline_access ${projectScope(project.projectId)}`,
    });
    assert.ok(tokens?.refresh_token, `tokens with a refresh token: ${error}`);
    return tokens as { access_token: string; refresh_token: string };
  }

  for (const accessTokenType of ['opaque', 'jwt'] as const) {
    it(`${accessTokenType}: an access token's revocation leaves its refresh token and the grant's other access tokens`, async () => {
      const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType });
      const first = await userTokens(app);
      const second = (await refresh(app, first.refresh_token)).body as { access_token: string; refresh_token: string };
      assert.ok(second.access_token && second.refresh_token, 'the refresh token grant');
      assert.equal(await active(first.access_token), true, 'an access token outlives the refresh that followed it');

      await revoke(app, first.access_token);
      assert.equal(await active(first.access_token), false, 'the revoked access token');
      assert.equal(await userinfo(first.access_token), 401);
      assert.equal(await active(second.access_token), true, "the grant's other access token");
      assert.equal(await userinfo(second.access_token), 200, 'its grant still exists');

      // A wrong hint only changes the search order (RFC 7009 §2.1): still only that token.
      const third = (await refresh(app, second.refresh_token)).body as { access_token: string; refresh_token: string };
      assert.ok(third.refresh_token, 'the refresh token survived the revocation');
      await revoke(app, second.access_token, 'refresh_token');
      assert.equal(await active(second.access_token), false);
      assert.equal(await active(third.access_token), true);

      // The refresh token's revocation takes the access tokens issued from it.
      const fourth = (await refresh(app, third.refresh_token)).body as { access_token: string; refresh_token: string };
      await revoke(app, fourth.refresh_token, 'refresh_token');
      assert.equal(await active(third.access_token), false);
      assert.equal(await active(fourth.access_token), false);
      assert.equal(await userinfo(fourth.access_token), 401);
      assert.equal((await refresh(app, fourth.refresh_token)).body.error, 'invalid_grant');
    });
  }

  it('a public client (none, PKCE) revokes its access token alone and its refresh token with its access tokens', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'none' });
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      redirectUri: REDIRECT,
      loginName,
      password: PASSWORD,
      scope: 'openid offline_access',
    });
    assert.ok(tokens?.refresh_token, `tokens with a refresh token: ${error}`);
    const publicForm = (form: Record<string, string>) => postForm(svc, '/oauth/v2/revoke', { ...form, client_id: app.clientId });
    assert.equal((await publicForm({ token: tokens.access_token })).status, 200);
    assert.equal(await active(tokens.access_token), false);
    const refreshed = await postForm(svc, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.clientId });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal((await publicForm({ token: refreshed.body.refresh_token })).status, 200);
    assert.equal(await active(refreshed.body.access_token), false);
  });

  it("a client cannot revoke another client's token (RFC 7009 §2.1)", async () => {
    const [owner, other] = [
      await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }),
      await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }),
    ];
    const tokens = await userTokens(owner);
    for (const token of [tokens.access_token, tokens.refresh_token]) {
      const res = await postForm(svc, '/oauth/v2/revoke', { token }, basic(other));
      // RFC 7009 §2.1: "the request is refused and the client is informed of the error" (§2.2.1).
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_request');
    }
    assert.equal(await active(tokens.access_token), true);
    assert.equal((await refresh(owner, tokens.refresh_token)).status, 200);
  });

  for (const accessTokenType of ['opaque', 'jwt'] as const) {
    it(`${accessTokenType} machine tokens: client credentials and JWT profile tokens are revoked one by one`, async () => {
      const machine = await createMachine(svc, project.orgId, accessTokenType);
      const credentials = async () =>
        (await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials', scope: `openid ${projectScope(project.projectId)}` }, basic(machine))).body
          .access_token as string;
      const [kept, revoked] = [await credentials(), await credentials()];
      await revoke(machine, revoked);
      assert.equal(await active(revoked), false);
      assert.equal(await active(kept), true);

      const key = await createMachineKey(svc, project.orgId, machine.userId);
      const profile = async () =>
        (
          await postForm(svc, '/oauth/v2/token', {
            grant_type: JWT_BEARER,
            assertion: await jwtProfileAssertion(svc, key),
            scope: `openid ${projectScope(project.projectId)}`,
          })
        ).body.access_token as string;
      const [keptProfile, revokedProfile] = [await profile(), await profile()];
      await revoke(machine, revokedProfile);
      assert.equal(await active(revokedProfile), false);
      assert.equal(await active(keptProfile), true);
      assert.equal(await userinfo(keptProfile), 200);
    });
  }

  it('deactivating the user still revokes everything: every access token and the refresh token', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType: 'jwt' });
    const user = await createHuman(svc, project.orgId);
    const { tokens } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: REDIRECT,
      loginName: `${user.userName}@${project.primaryDomain}`,
      password: PASSWORD,
      scope: 'openid offline_access',
    });
    const later = (await refresh(app, tokens!.refresh_token!)).body;
    const lifecycle = svc.app.get(UserLifecycleService);
    await lifecycle.deactivate(null, project.orgId, user.userId);
    await lifecycle.reactivate(null, project.orgId, user.userId);
    assert.equal(await active(tokens!.access_token), false);
    assert.equal(await active(later.access_token), false);
    assert.equal((await refresh(app, later.refresh_token)).body.error, 'invalid_grant', 'reactivation revives no token');
  });
});
