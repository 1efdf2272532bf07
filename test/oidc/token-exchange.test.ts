import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { searchEvents } from '../support/fixtures.js';
import { startService } from '../support/service.js';
import type { TestService } from '../support/service.js';
import { createHuman, createMachine, createOidcApp, createProject, discover, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const T = {
  access: 'urn:ietf:params:oauth:token-type:access_token',
  refresh: 'urn:ietf:params:oauth:token-type:refresh_token',
  id: 'urn:ietf:params:oauth:token-type:id_token',
  userId: 'urn:portcullis:params:oauth:token-type:user_id',
};

describe('token exchange (RFC 8693) and impersonation', () => {
  let svc: TestService;
  let project: { orgId: string; projectId: string };
  let app: OidcApp;
  /** Also registered for the refresh_token grant. */
  let refreshing: OidcApp;
  let config: oidc.Configuration;

  before(async () => {
    svc = await startService();
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', EXCHANGE] });
    config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    refreshing = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', 'refresh_token', EXCHANGE] });
  });
  after(() => svc?.close());

  async function machineAccessToken(roles: string[] = []) {
    const machine = await createMachine(svc, project.orgId);
    if (roles.length) await svc.api('PUT', `/admin/v1/members/${machine.userId}`, { token: svc.adminToken, body: { roles } });
    const mc = await discover(svc, machine.clientId, oidc.ClientSecretBasic(machine.clientSecret));
    return { machine, token: (await oidc.clientCredentialsGrant(mc)).access_token };
  }

  const exchange = (params: Record<string, string>) => postForm(svc, '/oauth/v2/token', { grant_type: EXCHANGE, ...params }, { id: app.clientId, secret: app.clientSecret! });
  const setFeatures = (body: object) => svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body });

  it('is refused with unsupported_grant_type until tokenExchange is enabled', async () => {
    const { token } = await machineAccessToken();
    const res = await exchange({ subject_token: token, subject_token_type: T.access });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error, 'unsupported_grant_type');
  });

  it('exchanges an access token for an opaque access token (openid-client) and for an id_token (N_A)', async () => {
    assert.equal((await setFeatures({ tokenExchange: true })).status, 200);
    const { machine, token } = await machineAccessToken();
    const tokens = await oidc.genericGrantRequest(config, EXCHANGE, { subject_token: token, subject_token_type: T.access, scope: 'openid' });
    assert.equal(tokens.issued_token_type, T.access);
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    const introspected = await postForm(svc, '/oauth/v2/introspect', { token: tokens.access_token }, { id: app.clientId, secret: app.clientSecret! });
    assert.equal(introspected.body.active, true, introspected.text);
    assert.equal(introspected.body.sub, machine.userId);

    const id = await exchange({ subject_token: token, subject_token_type: T.access, requested_token_type: T.id });
    assert.equal(id.status, 200, id.text);
    assert.equal(id.body.token_type, 'N_A');
    assert.equal(id.body.issued_token_type, T.id);
    const { payload } = await jwtVerify(id.body.access_token, createRemoteJWKSet(new URL('/oauth/v2/keys', svc.config.publicUrl)), { issuer: svc.config.publicUrl });
    assert.equal(payload.sub, machine.userId);
  });

  it('issues a refresh token with offline_access to a client registered for refresh_token, and it refreshes', async () => {
    const rc = await discover(svc, refreshing.clientId, oidc.ClientSecretBasic(refreshing.clientSecret!));
    const { machine, token } = await machineAccessToken();
    const tokens = await oidc.genericGrantRequest(rc, EXCHANGE, { subject_token: token, subject_token_type: T.access, scope: 'openid offline_access' });
    assert.ok(tokens.refresh_token, 'offline_access gives a refresh token');
    const refreshed = await oidc.refreshTokenGrant(rc, tokens.refresh_token!);
    assert.ok(refreshed.refresh_token && refreshed.refresh_token !== tokens.refresh_token, 'rotated');
    const introspected = await postForm(svc, '/oauth/v2/introspect', { token: refreshed.access_token }, { id: refreshing.clientId, secret: refreshing.clientSecret! });
    assert.equal(introspected.body.active, true, introspected.text);
    assert.equal(introspected.body.sub, machine.userId);

    const without = await oidc.genericGrantRequest(rc, EXCHANGE, { subject_token: token, subject_token_type: T.access, scope: 'openid' });
    assert.equal(without.refresh_token, undefined, 'none without offline_access');
    const notRegistered = await exchange({ subject_token: token, subject_token_type: T.access, scope: 'openid offline_access' });
    assert.equal(notRegistered.status, 200, notRegistered.text);
    assert.equal(notRegistered.body.refresh_token, undefined, 'none for a client without the refresh_token grant');
  });

  it('follows the type matrix: refresh tokens nowhere, user_id only with an actor, resource unsupported', async () => {
    const { token } = await machineAccessToken();
    const cases: Record<string, string>[] = [
      { subject_token: token, subject_token_type: T.refresh },
      { subject_token: token, subject_token_type: T.access, requested_token_type: T.refresh },
      { subject_token: 'some-user', subject_token_type: T.userId },
      { subject_token: token, subject_token_type: T.access, actor_token: token, actor_token_type: T.userId },
    ];
    for (const params of cases) {
      const res = await exchange(params);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_request', res.text);
    }
    const res = await exchange({ subject_token: token, subject_token_type: T.access, resource: 'https://api.example' });
    assert.equal(res.body.error, 'invalid_target');
  });

  it('impersonation needs the impersonation feature and the actor permission, and is recorded', async () => {
    const human = await createHuman(svc, project.orgId);
    const owner = await machineAccessToken(['IAM_OWNER']);
    const params = { subject_token: human.userId, subject_token_type: T.userId, actor_token: owner.token, actor_token_type: T.access };
    const off = await exchange(params);
    assert.equal(off.status, 400, off.text);
    assert.equal((await setFeatures({ impersonation: true })).status, 200);
    const ok = await exchange(params);
    assert.equal(ok.status, 200, ok.text);
    const introspected = await postForm(svc, '/oauth/v2/introspect', { token: ok.body.access_token }, { id: app.clientId, secret: app.clientSecret! });
    assert.equal(introspected.body.sub, human.userId);
    assert.deepEqual(introspected.body.act, { sub: owner.machine.userId });
    const events = await searchEvents(svc, { event_types: ['user.impersonated'], aggregate_id: human.userId });
    assert.equal(events.length, 1);
    assert.equal(events[0].editor.userId, owner.machine.userId);
    const offline = await postForm(svc, '/oauth/v2/token', { grant_type: EXCHANGE, ...params, scope: 'openid offline_access' }, { id: refreshing.clientId, secret: refreshing.clientSecret! });
    assert.equal(offline.status, 200, offline.text);
    assert.equal(offline.body.refresh_token, undefined, 'impersonation never outlives one access token');

    const nobody = await machineAccessToken();
    const refused = await exchange({ ...params, actor_token: nobody.token });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'invalid_grant');
  });
});
