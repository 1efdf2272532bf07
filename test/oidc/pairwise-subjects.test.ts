import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import { LoginClient } from '../attack/support/login-client.js';
import { unique, useService } from '../support/fixtures.js';
import { createApiApp, createHuman, createOidcApp, createProject, discover, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { openidClientSignIn } from './support/sign-in.js';
import { EXCHANGE, TOKEN_TYPE } from './support/token-exchange.js';

const PORT = 65530;
const PAIRWISE_SUB = /^[A-Za-z0-9_-]{43}$/;

/**
 * Pairwise subjects (OIDC Core §8; docs/oauth-profiles.md, "Pairwise subjects"): openid-client signs one user in to
 * applications of two redirect URI hosts. Each sector sees a `sub` of its own, stable across sign-ins, never the user
 * id; userinfo, introspection, token exchange with the ID token and end-session's id_token_hint go on working with it.
 */
describe('OIDC pairwise subjects', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let user: { userId: string; userName: string };
  let loginName: string;

  before(async () => {
    project = await createProject(svc);
    user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
    assert.equal((await svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body: { tokenExchange: true } })).status, 200);
  });

  const appOn = (host: string, subjectType: 'public' | 'pairwise') =>
    createOidcApp(
      svc,
      project,
      {
        authMethod: 'client_secret_basic',
        grantTypes: ['authorization_code', 'refresh_token', EXCHANGE],
        settings: { subjectType },
      },
      `http://${host}:${PORT}`,
    );

  async function signIn(app: OidcApp, host: string, browser?: LoginClient) {
    const config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
    const { tokens, browser: used } = await openidClientSignIn(svc, config, {
      redirectUri: `http://${host}:${PORT}/cb`,
      loginName,
      scope: 'openid profile',
      browser,
    });
    return { config, tokens, sub: tokens.claims()!.sub, browser: used };
  }

  it('two pairwise applications of different hosts see different subs; one sees the same at every sign-in; a public one the user id', async () => {
    const first = await appOn('127.0.0.1', 'pairwise');
    const second = await appOn('localhost', 'pairwise');
    const publicApp = await appOn('127.0.0.1', 'public');
    const a = await signIn(first, '127.0.0.1');
    const again = await signIn(first, '127.0.0.1');
    const b = await signIn(second, 'localhost', a.browser);
    assert.match(a.sub, PAIRWISE_SUB);
    assert.equal(again.sub, a.sub, 'stable for one application');
    assert.notEqual(b.sub, a.sub, 'two sectors cannot correlate the user');
    assert.ok(![a.sub, b.sub].includes(user.userId));
    assert.equal((await signIn(publicApp, '127.0.0.1', a.browser)).sub, user.userId);

    // openid-client checks that userinfo's sub is the ID token's (OIDC Core §5.3.2).
    const info = await oidc.fetchUserInfo(a.config, a.tokens.access_token, a.sub);
    assert.equal(info.preferred_username, loginName);
    const api = await createApiApp(svc, project);
    const introspected = await postForm(svc, '/oauth/v2/introspect', { token: a.tokens.access_token }, { id: api.clientId, secret: api.clientSecret! });
    assert.equal(introspected.body.active, true, introspected.text);
    assert.equal(introspected.body.sub, a.sub, 'introspection names the sub its client was given');
  });

  it('token exchange takes a pairwise ID token as subject; end-session takes it as id_token_hint', async () => {
    const app = await appOn('127.0.0.1', 'pairwise');
    const signedIn = await signIn(app, '127.0.0.1');
    const exchanged = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: EXCHANGE, subject_token: signedIn.tokens.id_token!, subject_token_type: TOKEN_TYPE.id, requested_token_type: TOKEN_TYPE.id },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(exchanged.status, 200, exchanged.text);
    const exchangedIdToken = JSON.parse(Buffer.from(String(exchanged.body.access_token).split('.')[1]!, 'base64url').toString()) as { sub: string };
    assert.equal(exchangedIdToken.sub, signedIn.sub, 'the exchanged ID token names the same pairwise sub');

    const logout = await signedIn.browser.get(
      `/oidc/v1/end_session?${new URLSearchParams({ id_token_hint: signedIn.tokens.id_token!, post_logout_redirect_uri: `http://127.0.0.1:${PORT}/logged-out` })}`,
    );
    assert.equal(logout.status, 200, logout.text.slice(0, 300));
    assert.match(logout.text, /name="xsrf"/);
  });

  it('discovery offers both subject types; the redirect URIs of a pairwise application must share one host (400, nothing stored); reads and PATCH carry subjectType', async () => {
    const discovery = (await (await fetch(new URL('/.well-known/openid-configuration', svc.url))).json()) as { subject_types_supported: string[] };
    assert.deepEqual([...discovery.subject_types_supported].sort(), ['pairwise', 'public']);

    const appsPath = `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps`;
    const count = async () => (await svc.api('GET', appsPath, { token: svc.adminToken })).body.total as number;
    const before = await count();
    const body = { name: unique('app'), responseTypes: ['code'], grantTypes: ['authorization_code'], authMethod: 'client_secret_basic', devMode: true };
    const mixed = await svc.api('POST', `${appsPath}/oidc`, {
      token: svc.adminToken,
      body: { ...body, subjectType: 'pairwise', redirectUris: [`http://127.0.0.1:${PORT}/cb`, `http://localhost:${PORT}/cb`] },
    });
    assert.equal(mixed.status, 400, mixed.text);
    assert.match(mixed.text, /redirectUris/);
    assert.match(mixed.text, /share one host/);
    const unknown = await svc.api('POST', `${appsPath}/oidc`, {
      token: svc.adminToken,
      body: { ...body, subjectType: 'secret', redirectUris: [`http://127.0.0.1:${PORT}/cb`] },
    });
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(await count(), before, 'nothing stored');

    const created = await appOn('127.0.0.1', 'public');
    const appPath = `${appsPath}/${created.appId}`;
    assert.equal((await svc.api('GET', appPath, { token: svc.adminToken })).body.subjectType, 'public');
    const refused = await svc.api('PATCH', appPath, {
      token: svc.adminToken,
      body: { subjectType: 'pairwise', redirectUris: [`http://127.0.0.1:${PORT}/cb`, `http://localhost:${PORT}/cb`] },
    });
    assert.equal(refused.status, 400, refused.text);
    assert.equal((await svc.api('GET', appPath, { token: svc.adminToken })).body.subjectType, 'public', 'the refused change changed nothing');
    const changed = await svc.api('PATCH', appPath, { token: svc.adminToken, body: { subjectType: 'pairwise' } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await svc.api('GET', appPath, { token: svc.adminToken })).body.subjectType, 'pairwise');
    const listed = (await svc.api('GET', appsPath, { token: svc.adminToken })).body.apps.find((app: { appId: string }) => app.appId === created.appId);
    assert.equal(listed.subjectType, 'pairwise');
  });
});
