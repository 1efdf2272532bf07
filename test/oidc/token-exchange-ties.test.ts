import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { useService } from '../support/fixtures.js';
import { createHuman, createOidcApp, createProject, PASSWORD, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { logOut } from './support/log-out.js';
import { setLoginPolicy } from './support/second-factor.js';
import { signIn } from './support/sign-in.js';
import { EXCHANGE, RP, TOKEN_TYPE as T } from './support/token-exchange.js';

/**
 * docs/product-rules.md, "OpenID Connect and OAuth" (token exchange): an exchanged token stays bound to what it was exchanged
 * from — the impersonation it carries (`act`), the sign-in behind an ID token, the grant and session of
 * the subject token, its lifetime, and `mfa: "required"`. Driven as a relying party would, over HTTP.
 */
describe('token exchange: exchanged tokens stay bound to their origin', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  /** Registered for authorization_code, token exchange and refresh_token. */
  let app: OidcApp;

  before(async () => {
    assert.equal((await svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body: { tokenExchange: true, impersonation: true } })).status, 200);
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', EXCHANGE, 'refresh_token'] }, RP);
  });

  const basic = (client: OidcApp) => ({ id: client.clientId, secret: client.clientSecret! });
  const exchange = (params: Record<string, string>, client = app) => postForm(svc, '/oauth/v2/token', { grant_type: EXCHANGE, ...params }, basic(client));
  const active = async (token: string, client = app) => (await postForm(svc, '/oauth/v2/introspect', { token }, basic(client))).body.active as boolean;
  const userinfo = async (token: string) =>
    (await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${token}` } })).status;
  const loginOf = (user: { userName: string }) => `${user.userName}@${project.primaryDomain}`;

  async function signedIn(user: { userName: string }, scope = 'openid profile offline_access', client = app, password = PASSWORD) {
    const { tokens, error, browser } = await signIn(svc, {
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: loginOf(user),
      password,
      scope,
    });
    assert.ok(tokens, `signed in: ${error}`);
    return { tokens, browser };
  }

  async function orgOwner() {
    const owner = await createHuman(svc, project.orgId);
    const res = await svc.api('PUT', `/management/v1/orgs/${project.orgId}/members/${owner.userId}`, { token: svc.adminToken, body: { roles: ['ORG_OWNER'] } });
    assert.equal(res.status, 200, res.text);
    return owner;
  }

  /** An ORG_OWNER impersonating a plain user of its organization. */
  async function impersonation(scope = 'openid offline_access') {
    const owner = await orgOwner();
    const actor = (await signedIn(owner, scope)).tokens;
    const subject = await createHuman(svc, project.orgId);
    const res = await exchange({
      subject_token: subject.userId,
      subject_token_type: T.userId,
      actor_token: actor.access_token,
      actor_token_type: T.access,
      scope,
    });
    assert.equal(res.status, 200, res.text);
    return { owner, subject, token: res.body.access_token as string };
  }

  it('keeps `act` through every further exchange and in ID tokens, and issues no refresh token for anything derived from an impersonation', async () => {
    const { owner, subject, token } = await impersonation();
    const again = await exchange({ subject_token: token, subject_token_type: T.access, scope: 'openid offline_access' });
    assert.equal(again.status, 200, again.text);
    const introspected = await postForm(svc, '/oauth/v2/introspect', { token: again.body.access_token }, basic(app));
    assert.equal(introspected.body.sub, subject.userId);
    assert.deepEqual(introspected.body.act, { sub: owner.userId }, 'the actor survives an exchange without an actor_token');
    assert.equal(again.body.refresh_token, undefined, 'no refresh token for a token derived from an impersonation');
    assert.deepEqual(decodeJwt(again.body.id_token).act, { sub: owner.userId }, 'the ID token issued with it names the actor');

    const asIdToken = await exchange({ subject_token: token, subject_token_type: T.access, requested_token_type: T.id, scope: 'openid' });
    assert.equal(asIdToken.status, 200, asIdToken.text);
    assert.deepEqual(decodeJwt(asIdToken.body.access_token).act, { sub: owner.userId }, 'an ID token asked for an impersonation names the actor');

    const twice = await exchange({ subject_token: again.body.access_token, subject_token_type: T.access });
    assert.deepEqual((await postForm(svc, '/oauth/v2/introspect', { token: twice.body.access_token }, basic(app))).body.act, { sub: owner.userId });
  });

  it('ends every token derived from an impersonation when the actor loses its role', async () => {
    const { owner, token } = await impersonation('openid profile');
    const derived = (await exchange({ subject_token: token, subject_token_type: T.access })).body.access_token as string;
    assert.equal(await active(derived), true);
    assert.equal(await userinfo(derived), 200);

    const removed = await svc.api('DELETE', `/management/v1/orgs/${project.orgId}/members/${owner.userId}`, { token: svc.adminToken });
    assert.equal(removed.status, 204, removed.text);
    for (const value of [token, derived]) {
      assert.equal(await active(value), false, 'introspection: inactive');
      assert.equal(await userinfo(value), 401, 'userinfo refuses it');
      const res = await exchange({ subject_token: value, subject_token_type: T.access });
      assert.equal(res.body.error, 'invalid_grant', res.text);
    }
  });

  it('refuses an ID token whose sign-in ended: after logout, an admin password reset, deactivation and reactivation', async () => {
    const byId = (idToken: string) => exchange({ subject_token: idToken, subject_token_type: T.id, scope: 'openid' });

    const leaving = await createHuman(svc, project.orgId);
    const { tokens, browser } = await signedIn(leaving, 'openid');
    assert.equal((await byId(tokens.id_token!)).status, 200, 'while the sign-in lasts');
    await logOut(browser, app.clientId);
    const afterLogout = await byId(tokens.id_token!);
    assert.equal(afterLogout.status, 400, afterLogout.text);
    assert.equal(afterLogout.body.error, 'invalid_grant');

    const reset = await createHuman(svc, project.orgId);
    const resetTokens = (await signedIn(reset, 'openid')).tokens;
    const newPassword = { password: 'Another-Horse-7' };
    assert.equal(
      (await svc.api('PUT', `/management/v1/orgs/${project.orgId}/users/${reset.userId}/password`, { token: svc.adminToken, body: newPassword })).status,
      200,
    );
    await signedIn(reset, 'openid', app, newPassword.password);
    assert.equal((await byId(resetTokens.id_token!)).body.error, 'invalid_grant', 'a new sign-in does not revive an ID token of before the reset');

    const paused = await createHuman(svc, project.orgId);
    const pausedTokens = (await signedIn(paused, 'openid')).tokens;
    for (const step of ['deactivate', 'reactivate']) {
      assert.equal(
        (await svc.api('POST', `/management/v1/orgs/${project.orgId}/users/${paused.userId}/${step}`, { token: svc.adminToken, body: {} })).status,
        200,
      );
    }
    assert.equal((await byId(pausedTokens.id_token!)).body.error, 'invalid_grant');
  });

  it('ends exchanged tokens with the grant they came from, and never lets them outlive the subject token', async () => {
    const user = await createHuman(svc, project.orgId);
    const { tokens } = await signedIn(user);
    const exchanged = await exchange({ subject_token: tokens.access_token, subject_token_type: T.access, scope: 'openid offline_access' });
    assert.equal(exchanged.status, 200, exchanged.text);
    assert.ok(exchanged.body.refresh_token, 'offline_access within the subject: a refresh token');
    assert.ok(exchanged.body.expires_in <= Number(tokens.expires_in), `${exchanged.body.expires_in} ≤ ${tokens.expires_in}`);
    const reExchanged = await exchange({ subject_token: exchanged.body.access_token, subject_token_type: T.access });
    assert.ok(reExchanged.body.expires_in <= exchanged.body.expires_in, 're-exchanging renews no lifetime');
    assert.equal(await active(reExchanged.body.access_token), true);

    assert.equal((await postForm(svc, '/oauth/v2/revoke', { token: tokens.refresh_token! }, basic(app))).status, 200);
    for (const value of [exchanged.body.access_token, reExchanged.body.access_token]) {
      assert.equal(await active(value), false, 'revoking the original refresh token ends the exchanged tokens');
      assert.equal((await exchange({ subject_token: value, subject_token_type: T.access })).body.error, 'invalid_grant');
    }
    const refreshed = await postForm(svc, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token }, basic(app));
    assert.equal(refreshed.body.error, 'invalid_grant', refreshed.text);
  });

  it('ends exchanged tokens with the session at logout', async () => {
    const user = await createHuman(svc, project.orgId);
    const { tokens, browser } = await signedIn(user, 'openid profile');
    const exchanged = (await exchange({ subject_token: tokens.access_token, subject_token_type: T.access })).body.access_token as string;
    assert.equal(await active(exchanged), true);
    await logOut(browser, app.clientId);
    assert.equal(await active(exchanged), false);
    assert.equal(await userinfo(exchanged), 401);
  });

  it('refuses to exchange a password-only sign-in once the organization requires a second factor', async () => {
    const strict = await createProject(svc);
    const strictApp = await createOidcApp(svc, strict, { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', EXCHANGE] }, RP);
    const user = await createHuman(svc, strict.orgId);
    const { tokens } = await signIn(svc, {
      clientId: strictApp.clientId,
      clientSecret: strictApp.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: `${user.userName}@${strict.primaryDomain}`,
      password: PASSWORD,
      scope: 'openid profile',
    });
    assert.ok(tokens);
    const first = await exchange({ subject_token: tokens.access_token, subject_token_type: T.access }, strictApp);
    assert.equal(first.status, 200, first.text);

    await setLoginPolicy(svc, strict.orgId, { mfa: 'required' });
    for (const value of [tokens.access_token, first.body.access_token]) {
      const res = await exchange({ subject_token: value, subject_token_type: T.access }, strictApp);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_grant');
      assert.match(res.body.error_description, /second factor/);
    }
  });
});
