import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { PASSWORD, createHuman, createOidcApp, createProject, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';
import { EXCHANGE, RP, TOKEN_TYPE } from './support/token-exchange.js';
import { useService } from '../support/fixtures.js';

const T = TOKEN_TYPE;
const API = 'urn:portcullis:api';
const API_SCOPE = 'urn:portcullis:iam:api:aud';
const ADMIN_PASSWORD = 'Admin-Password-1';

/** RFC 8693 §2.1: what an exchanged token may carry — scope and audience within the presented tokens. */
describe('token exchange: scope and audience bounds', () => {
  const svc = useService({ BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD });
  let project: { orgId: string; projectId: string; primaryDomain: string };
  /** An ordinary application (no apiAccess), also registered for refresh_token. */
  let app: OidcApp;
  /** A first-party application (apiAccess) of the same project. */
  let firstParty: OidcApp;
  /** Another application of the same project: in the audience of `app`'s tokens. */
  let backend: OidcApp;

  before(async () => {
    const orgs = await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken });
    const defaultOrg = orgs.body.orgs.find((o: { name: string }) => o.name === 'default');
    project = { ...(await createProject(svc, defaultOrg.id)), primaryDomain: defaultOrg.primaryDomain };
    const grantTypes = ['authorization_code', EXCHANGE];
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', grantTypes: [...grantTypes, 'refresh_token'] }, RP);
    backend = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', grantTypes }, RP);
    const created = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/oidc`, {
      token: svc.adminToken,
      body: {
        name: 'first-party',
        redirectUris: [`${RP}/cb`],
        responseTypes: ['code'],
        grantTypes,
        authMethod: 'client_secret_basic',
        devMode: true,
        apiAccess: true,
      },
    });
    assert.equal(created.status, 201, created.text);
    firstParty = created.body;
    assert.equal((await svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body: { tokenExchange: true, impersonation: true } })).status, 200);
  });

  async function tokensOf(client: OidcApp, loginName: string, password: string, scope: string) {
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
  const adminTokens = (client: OidcApp, scope: string) => tokensOf(client, 'admin', ADMIN_PASSWORD, scope);
  async function humanTokens(scope: string) {
    const user = await createHuman(svc, project.orgId);
    return { user, tokens: await tokensOf(app, `${user.userName}@${project.primaryDomain}`, PASSWORD, scope) };
  }
  /** A token request as a client sends it; `audience` may repeat (RFC 8693 §2.1). */
  async function exchangeAt(client: OidcApp, params: Record<string, string>, audiences: string[] = []) {
    const form = new URLSearchParams({ grant_type: EXCHANGE, subject_token_type: T.access, ...params });
    for (const audience of audiences) form.append('audience', audience);
    const basic = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret!)}`).toString('base64');
    const res = await fetch(new URL('/oauth/v2/token', svc.config.publicUrl), {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text), text };
  }
  const introspectAs = (client: OidcApp, token: string) =>
    postForm(svc, '/oauth/v2/introspect', { token }, { id: client.clientId, secret: client.clientSecret! });

  it('gives the Portcullis API audience only to a client that may hold it, even when the subject token has it', async () => {
    const subject = await adminTokens(firstParty, `openid ${API_SCOPE}`);
    const forApi = await exchangeAt(firstParty, { subject_token: subject.access_token }, [API]);
    assert.equal(forApi.status, 200, forApi.text);
    assert.equal((await svc.api('GET', '/admin/v1/orgs', { token: forApi.body.access_token })).status, 200, 'an API token');
    assert.deepEqual((await introspectAs(firstParty, forApi.body.access_token)).body, { active: false }, 'for the API only');

    const refused = await exchangeAt(app, { subject_token: subject.access_token, scope: 'openid' }, [API]);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error, 'invalid_target');
    const byDefault = await exchangeAt(app, { subject_token: subject.access_token, scope: 'openid', requested_token_type: T.jwt });
    assert.equal(byDefault.status, 200, byDefault.text);
    const aud = [decodeJwt(byDefault.body.access_token).aud].flat();
    assert.ok(aud.includes(app.clientId), String(aud));
    assert.ok(!aud.includes(API), `no API in ${aud}`);
  });

  it('applies repeated audience parameters, and issues no refresh token for a narrowed audience', async () => {
    const subject = await adminTokens(app, 'openid offline_access');
    const both = await exchangeAt(app, { subject_token: subject.access_token, scope: 'openid offline_access' }, [backend.clientId, firstParty.clientId]);
    assert.equal(both.status, 200, both.text);
    const introspected = await introspectAs(backend, both.body.access_token);
    assert.deepEqual([...introspected.body.aud].sort(), [backend.clientId, firstParty.clientId].sort(), introspected.text);
    assert.equal(both.body.refresh_token, undefined, 'a refreshed token would lose the narrowed audience');
    const plain = await exchangeAt(app, { subject_token: subject.access_token, scope: 'openid offline_access' });
    assert.ok(plain.body.refresh_token, plain.text);
  });

  it('issues an id_token for the requesting client only', async () => {
    const subject = await adminTokens(app, 'openid');
    const elsewhere = await exchangeAt(app, { subject_token: subject.access_token, requested_token_type: T.id }, [backend.clientId]);
    assert.equal(elsewhere.body.error, 'invalid_target', elsewhere.text);
    const own = await exchangeAt(app, { subject_token: subject.access_token, requested_token_type: T.id }, [app.clientId]);
    assert.equal(own.status, 200, own.text);
    assert.deepEqual([decodeJwt(own.body.access_token).aud].flat(), [app.clientId]);
  });

  it('with an actor, the scope stays within both tokens and the audience within their combined audiences', async () => {
    // The actor's token (first-party, with the API) has an audience the subject's (an ordinary application's) lacks.
    const actor = await adminTokens(firstParty, `openid ${API_SCOPE}`);
    const { user, tokens } = await humanTokens('openid profile email');
    const impersonation = { subject_token: tokens.access_token, actor_token: actor.access_token, actor_token_type: T.access };

    const byDefault = await exchangeAt(firstParty, impersonation);
    assert.equal(byDefault.status, 200, byDefault.text);
    assert.equal(byDefault.body.scope, 'openid', 'within the subject’s and the actor’s scope');
    const beyond = await exchangeAt(firstParty, { ...impersonation, scope: 'openid profile' });
    assert.equal(beyond.body.error, 'invalid_scope', beyond.text);

    const forApi = await exchangeAt(firstParty, { ...impersonation, requested_token_type: T.jwt }, [API]);
    assert.equal(forApi.status, 200, forApi.text);
    const claims = decodeJwt(forApi.body.access_token);
    assert.equal(claims.sub, user.userId);
    assert.deepEqual([claims.aud].flat(), [API]);
  });

  it('answers alike for an unknown user and a user of another organization', async () => {
    const actor = await adminTokens(app, 'openid');
    const elsewhere = await createHuman(svc, (await createProject(svc)).orgId);
    const descriptions = [];
    for (const subject of ['no-such-user', elsewhere.userId]) {
      const res = await exchangeAt(app, { subject_token: subject, subject_token_type: T.userId, actor_token: actor.access_token, actor_token_type: T.access });
      assert.equal(res.body.error, 'invalid_grant', res.text);
      descriptions.push(res.body.error_description);
    }
    assert.match(descriptions[0], /not an active user this client may serve/);
    assert.equal(descriptions[1], descriptions[0]);
  });
});
