import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { countRows, createCaller, createOrg, useService } from '../support/fixtures.js';
import { createHuman, createOidcApp, createProject, PASSWORD, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';

const RP = 'http://127.0.0.1:65530';
const ADMIN_PASSWORD = 'Console-Admin-Password-1';
const API_SCOPE = 'urn:portcullis:iam:api:aud';
const API = 'urn:portcullis:api';

/**
 * Applications get no more than their owners (SECURITY.md): only a first-party application (apiAccess,
 * registered by an IAM_OWNER; the bootstrap's `console`) obtains user tokens for the Portcullis API.
 */
describe('apiAccess: which applications reach the Portcullis API with a user token', () => {
  const svc = useService({ BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD });
  let ordinary: OidcApp;
  let otherOrg: { id: string; primaryDomain: string };

  before(async () => {
    otherOrg = await createOrg(svc);
    ordinary = await createOidcApp(svc, await createProject(svc, otherOrg.id), { authMethod: 'client_secret_basic' }, RP);
  });

  const viaConsole = (scope: string, extra?: Record<string, string>, loginName = 'admin', password = ADMIN_PASSWORD) =>
    signIn(svc, { clientId: 'console', redirectUri: `${svc.config.publicUrl}/console/callback`, loginName, password, scope, extra });
  const orgs = (token: string) => svc.api('GET', '/admin/v1/orgs', { token });

  it('the bootstrap console signs the admin in (code + PKCE) with the API audience, by scope and by resource', async () => {
    const byScope = await viaConsole(`openid ${API_SCOPE}`);
    assert.ok(byScope.tokens, byScope.error);
    assert.equal((await orgs(byScope.tokens.access_token)).status, 200);
    const byResource = await viaConsole('openid', { resource: API });
    assert.ok(byResource.tokens, byResource.error);
    assert.equal((await orgs(byResource.tokens.access_token)).status, 200);
    const without = await viaConsole('openid');
    assert.equal((await orgs(without.tokens!.access_token)).status, 401, 'no API audience unless asked for');
  });

  it("a console token acts with its user's roles only, and a refresh keeps the API audience", async () => {
    const manager = await createHuman(svc, otherOrg.id);
    await svc.api('PUT', `/management/v1/orgs/${otherOrg.id}/members/${manager.userId}`, { token: svc.adminToken, body: { roles: ['ORG_USER_MANAGER'] } });
    const { tokens, error } = await viaConsole(`openid offline_access ${API_SCOPE}`, undefined, `${manager.userName}@${otherOrg.primaryDomain}`, PASSWORD);
    assert.ok(tokens?.refresh_token, error);
    assert.equal((await svc.api('GET', `/scim/v2/${otherOrg.id}/Users?count=1`, { token: tokens.access_token })).status, 200, 'its organization, as a manager');
    assert.equal((await orgs(tokens.access_token)).status, 403, 'no instance role');
    const refreshed = await postForm(svc, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'console' });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal((await svc.api('GET', `/scim/v2/${otherOrg.id}/Users?count=1`, { token: refreshed.body.access_token })).status, 200);
  });

  it('an ordinary application asking for the API is refused in the authorization request, by scope and by resource', async () => {
    const user = { loginName: 'admin', password: ADMIN_PASSWORD };
    const defaultOrg = (await orgs(svc.adminToken)).body.orgs.find((o: { name: string }) => o.name === 'default');
    const app = await createOidcApp(svc, await createProject(svc, defaultOrg.id), { authMethod: 'client_secret_basic' }, RP);
    const byScope = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      ...user,
      scope: `openid ${API_SCOPE}`,
    });
    assert.equal(byScope.error, 'invalid_scope');
    const byResource = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      ...user,
      scope: 'openid',
      extra: { resource: API },
    });
    assert.equal(byResource.error, 'invalid_target');
    const plain = await signIn(svc, { clientId: app.clientId, clientSecret: app.clientSecret, redirectUri: `${RP}/cb`, ...user, scope: 'openid' });
    assert.equal((await orgs(plain.tokens!.access_token)).status, 401, "the admin's token of an ordinary application is no API token");
  });

  it('a project audience scope names only projects of the client’s organization', async () => {
    const user = await createHuman(svc, otherOrg.id);
    const foreignProject = await createProject(svc);
    const ownProject = await createProject(svc, otherOrg.id);
    const login = {
      clientId: ordinary.clientId,
      clientSecret: ordinary.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: `${user.userName}@${otherOrg.primaryDomain}`,
      password: PASSWORD,
    };
    const foreign = await signIn(svc, { ...login, scope: `openid urn:portcullis:iam:org:project:id:${foreignProject.projectId}:aud` });
    assert.equal(foreign.error, 'invalid_scope');
    const own = await signIn(svc, { ...login, scope: `openid urn:portcullis:iam:org:project:id:${ownProject.projectId}:aud` });
    assert.ok(own.tokens, own.error);
  });

  it('only an IAM_OWNER registers an application with apiAccess; anyone else gets 403 and nothing is created', async () => {
    const project = await createProject(svc, otherOrg.id);
    const owner = await createCaller(svc, otherOrg.id, { org: ['ORG_OWNER'] });
    const body = {
      name: 'first-party',
      redirectUris: [`${RP}/cb`],
      responseTypes: ['code'],
      grantTypes: ['authorization_code'],
      authMethod: 'none',
      devMode: true,
      apiAccess: true,
    };
    const path = `/management/v1/orgs/${otherOrg.id}/projects/${project.projectId}/apps/oidc`;
    const before = await countRows(svc, 'applications');
    const refused = await svc.api('POST', path, { token: owner.token, body });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(await countRows(svc, 'applications'), before);
    const created = await svc.api('POST', path, { token: svc.adminToken, body });
    assert.equal(created.status, 201, created.text);
  });

  it('DPoP is on (test/oidc/dpop.test.ts): a token request with a proof gets a bound token, refused by SCIM as a Bearer token', async () => {
    const discovery = (await (await fetch(new URL('/.well-known/openid-configuration', svc.url))).json()) as Record<string, unknown>;
    assert.ok(Array.isArray(discovery.dpop_signing_alg_values_supported));
    const machine = await createCaller(svc, otherOrg.id, { org: ['ORG_USER_MANAGER'] });
    const secret = await svc.api('POST', `/management/v1/orgs/${otherOrg.id}/users/${machine.userId}/secret`, { token: svc.adminToken, body: {} });
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const tokenUrl = String(discovery.token_endpoint);
    const proof = async (nonce?: string) =>
      new SignJWT({ htm: 'POST', htu: tokenUrl, jti: randomUUID(), ...(nonce ? { nonce } : {}) })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) })
        .setIssuedAt()
        .sign(privateKey);
    const basic = Buffer.from(`${secret.body.clientId}:${secret.body.clientSecret}`).toString('base64');
    const request = async (dpop: string) =>
      fetch(tokenUrl, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, dpop, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
    const challenged = await request(await proof());
    assert.equal(challenged.status, 400, 'a server nonce is required (RFC 9449 §8)');
    const res = await request(await proof(challenged.headers.get('dpop-nonce') ?? ''));
    const body = (await res.json()) as { token_type: string; access_token: string };
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.token_type, 'DPoP');
    assert.equal((await svc.api('GET', `/scim/v2/${otherOrg.id}/Users?count=1`, { token: body.access_token })).status, 401);
  });
});
