import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { searchEvents, useService } from '../support/fixtures.js';
import { createHuman, createMachine, createOidcApp, createProject, PASSWORD, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';
import { EXCHANGE, RP, TOKEN_TYPE } from './support/token-exchange.js';

const T = TOKEN_TYPE;
const ADMIN_PASSWORD = 'Admin-Password-1';

describe('token exchange (RFC 8693) and impersonation', () => {
  const svc = useService({ BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD });
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  /** Also registered for the refresh_token grant. */
  let refreshing: OidcApp;
  /** An application of another project: its tokens do not name `app` in their audience. */
  let foreign: OidcApp;
  let defaultOrg: { id: string; primaryDomain: string };

  before(async () => {
    const orgs = await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken });
    defaultOrg = orgs.body.orgs.find((o: { name: string }) => o.name === 'default');
    project = await createProject(svc, defaultOrg.id);
    project.primaryDomain = defaultOrg.primaryDomain;
    const grantTypes = ['authorization_code', EXCHANGE];
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', grantTypes }, RP);
    refreshing = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', grantTypes: [...grantTypes, 'refresh_token'] }, RP);
    foreign = await createOidcApp(svc, await createProject(svc, defaultOrg.id), { authMethod: 'client_secret_basic', grantTypes }, RP);
  });

  /** A user's tokens, issued to `client` through the login UI. */
  async function tokensOf(client: OidcApp, loginName: string, password = PASSWORD, scope = 'openid profile email') {
    const { tokens, error } = await signIn(svc, {
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName,
      password,
      scope,
    });
    assert.ok(tokens, `signed in: ${error}`);
    return tokens;
  }
  async function humanTokens(client: OidcApp = app, scope?: string) {
    const user = await createHuman(svc, project.orgId);
    return { user, tokens: await tokensOf(client, `${user.userName}@${project.primaryDomain}`, PASSWORD, scope) };
  }

  const exchangeAt = (client: OidcApp, params: Record<string, string>) =>
    postForm(svc, '/oauth/v2/token', { grant_type: EXCHANGE, ...params }, { id: client.clientId, secret: client.clientSecret! });
  const exchange = (params: Record<string, string>) => exchangeAt(app, params);
  const setFeatures = (body: object) => svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body });
  const introspect = (token: string) => postForm(svc, '/oauth/v2/introspect', { token }, { id: app.clientId, secret: app.clientSecret! });

  it('is refused with unsupported_grant_type until tokenExchange is enabled', async () => {
    const { tokens } = await humanTokens();
    const res = await exchange({ subject_token: tokens.access_token, subject_token_type: T.access });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error, 'unsupported_grant_type');
  });

  it("exchanges its own user's access token for an access token and an id_token, within the subject's scope", async () => {
    assert.equal((await setFeatures({ tokenExchange: true })).status, 200);
    const { user, tokens } = await humanTokens();
    const res = await exchange({ subject_token: tokens.access_token, subject_token_type: T.access });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.issued_token_type, T.access);
    assert.equal(res.body.token_type, 'Bearer');
    assert.deepEqual(res.body.scope.split(' ').sort(), ['email', 'openid', 'profile'], 'no scope asked: the subject token’s');
    const introspected = await introspect(res.body.access_token);
    assert.equal(introspected.body.active, true, introspected.text);
    assert.equal(introspected.body.sub, user.userId);

    const narrowed = await exchange({ subject_token: tokens.access_token, subject_token_type: T.access, scope: 'openid' });
    assert.equal(narrowed.body.scope, 'openid', narrowed.text);

    const id = await exchange({ subject_token: tokens.access_token, subject_token_type: T.access, requested_token_type: T.id });
    assert.equal(id.status, 200, id.text);
    assert.equal(id.body.token_type, 'N_A');
    assert.equal(id.body.issued_token_type, T.id);
    const { payload } = await jwtVerify(id.body.access_token, createRemoteJWKSet(new URL('/oauth/v2/keys', svc.config.publicUrl)), {
      issuer: svc.config.publicUrl,
    });
    assert.equal(payload.sub, user.userId);

    const fromIdToken = await exchange({ subject_token: tokens.id_token!, subject_token_type: T.id, scope: 'openid' });
    assert.equal(fromIdToken.status, 200, fromIdToken.text);
  });

  it('refuses a scope beyond the subject token’s and the API scope for an application without apiAccess', async () => {
    const { tokens } = await humanTokens(app, 'openid');
    for (const scope of ['openid email', 'openid urn:portcullis:iam:api:aud']) {
      const res = await exchange({ subject_token: tokens.access_token, subject_token_type: T.access, scope });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_scope', res.text);
    }
    const audience = await exchange({ subject_token: tokens.access_token, subject_token_type: T.access, audience: 'urn:portcullis:api' });
    assert.equal(audience.body.error, 'invalid_target', audience.text);
  });

  it("refuses another client's tokens: access token, id_token, and a JWT access token labelled as an id_token", async () => {
    const { tokens } = await humanTokens(foreign);
    for (const params of [
      { subject_token: tokens.access_token, subject_token_type: T.access },
      { subject_token: tokens.id_token!, subject_token_type: T.id },
    ]) {
      const res = await exchange(params);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_grant', res.text);
    }
    const machine = await createMachine(svc, project.orgId, 'jwt');
    const cc = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: machine.clientId, secret: machine.clientSecret });
    const asId = await exchange({ subject_token: cc.body.access_token, subject_token_type: T.id });
    assert.equal(asId.body.error, 'invalid_grant', asId.text);
    const asAccess = await exchange({ subject_token: cc.body.access_token, subject_token_type: T.access });
    assert.equal(asAccess.body.error, 'invalid_grant', 'a machine token names no application in its audience');
  });

  it('issues a refresh token only within an offline_access subject, to a client registered for refresh_token', async () => {
    const { user, tokens } = await humanTokens(refreshing, 'openid offline_access');
    const res = await exchangeAt(refreshing, { subject_token: tokens.access_token, subject_token_type: T.access, scope: 'openid offline_access' });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.refresh_token, 'offline_access gives a refresh token');
    const refreshed = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'refresh_token', refresh_token: res.body.refresh_token },
      { id: refreshing.clientId, secret: refreshing.clientSecret! },
    );
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.notEqual(refreshed.body.refresh_token, res.body.refresh_token, 'rotated');
    assert.equal((await introspect(refreshed.body.access_token)).body.sub, user.userId);

    const without = await exchangeAt(refreshing, { subject_token: tokens.access_token, subject_token_type: T.access, scope: 'openid' });
    assert.equal(without.body.refresh_token, undefined, 'none without offline_access');
  });

  it('follows the type matrix: refresh tokens nowhere, user_id only with an actor, an actor is never an id_token, resource unsupported', async () => {
    const { tokens } = await humanTokens();
    const cases: Record<string, string>[] = [
      { subject_token: tokens.access_token, subject_token_type: T.refresh },
      { subject_token: tokens.access_token, subject_token_type: T.access, requested_token_type: T.refresh },
      { subject_token: 'some-user', subject_token_type: T.userId },
      { subject_token: tokens.access_token, subject_token_type: T.access, actor_token: tokens.access_token, actor_token_type: T.userId },
      { subject_token: tokens.access_token, subject_token_type: T.access, actor_token: tokens.id_token!, actor_token_type: T.id },
    ];
    for (const params of cases) {
      const res = await exchange(params);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_request', res.text);
    }
    const res = await exchange({ subject_token: tokens.access_token, subject_token_type: T.access, resource: 'https://api.example' });
    assert.equal(res.body.error, 'invalid_target');
  });

  describe('impersonation', () => {
    let ownerLogin: string;
    before(async () => {
      const owner = await createHuman(svc, project.orgId);
      const res = await svc.api('PUT', `/management/v1/orgs/${project.orgId}/members/${owner.userId}`, {
        token: svc.adminToken,
        body: { roles: ['ORG_OWNER'] },
      });
      assert.equal(res.status, 200, res.text);
      ownerLogin = `${owner.userName}@${project.primaryDomain}`;
    });

    it('needs the feature and an actor token of this client whose user may act on the subject, and is recorded', async () => {
      const human = await createHuman(svc, project.orgId);
      const admin = await tokensOf(app, 'admin', ADMIN_PASSWORD, 'openid');
      const params = { subject_token: human.userId, subject_token_type: T.userId, actor_token: admin.access_token, actor_token_type: T.access };
      const off = await exchange(params);
      assert.equal(off.status, 400, off.text);
      assert.equal((await setFeatures({ impersonation: true })).status, 200);
      const ok = await exchange(params);
      assert.equal(ok.status, 200, ok.text);
      const introspected = await introspect(ok.body.access_token);
      assert.equal(introspected.body.sub, human.userId);
      const adminId = (await introspect(admin.access_token)).body.sub;
      assert.deepEqual(introspected.body.act, { sub: adminId });
      const events = await searchEvents(svc, { event_types: ['user.impersonated'], aggregate_id: human.userId });
      assert.equal(events.length, 1);
      assert.equal(events[0].editor.userId, adminId);

      const adminAtRefreshing = await tokensOf(refreshing, 'admin', ADMIN_PASSWORD, 'openid offline_access');
      const offline = await exchangeAt(refreshing, { ...params, actor_token: adminAtRefreshing.access_token, scope: 'openid offline_access' });
      assert.equal(offline.status, 200, offline.text);
      assert.equal(offline.body.refresh_token, undefined, 'impersonation never outlives one access token');

      const elsewhere = await exchange({ ...params, actor_token: adminAtRefreshing.access_token });
      assert.equal(elsewhere.body.error, 'invalid_grant', 'an actor token issued to another client');
    });

    it('lets an ORG_OWNER impersonate a plain user of its organization, never an IAM_OWNER or a user without the role', async () => {
      const owner = await tokensOf(app, ownerLogin, PASSWORD, 'openid');
      const plain = await createHuman(svc, project.orgId);
      const ok = await exchange({ subject_token: plain.userId, subject_token_type: T.userId, actor_token: owner.access_token, actor_token_type: T.access });
      assert.equal(ok.status, 200, ok.text);

      const adminId = (await introspect((await tokensOf(app, 'admin', ADMIN_PASSWORD, 'openid')).access_token)).body.sub;
      const before = await searchEvents(svc, { event_types: ['user.impersonated'], aggregate_id: adminId });
      const refused = await exchange({ subject_token: adminId, subject_token_type: T.userId, actor_token: owner.access_token, actor_token_type: T.access });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.error, 'invalid_grant');
      assert.deepEqual(await searchEvents(svc, { event_types: ['user.impersonated'], aggregate_id: adminId }), before, 'nothing recorded');

      const nobody = await humanTokens();
      const plainActor = await exchange({
        subject_token: plain.userId,
        subject_token_type: T.userId,
        actor_token: nobody.tokens.access_token,
        actor_token_type: T.access,
      });
      assert.equal(plainActor.body.error, 'invalid_grant', plainActor.text);
    });
  });
});
