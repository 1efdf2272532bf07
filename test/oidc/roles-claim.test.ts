import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { csrfOf, LoginClient } from '../attack/support/login-client.js';
import { unique, useService } from '../support/fixtures.js';
import { PASSWORD, createApiApp, createHuman, createOidcApp, createProject, discover, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { openidClientSignIn, signIn } from './support/sign-in.js';
import { REDIRECT as DCR_REDIRECT, issueToken, publicClient, registered, setMode } from './support/dynamic-registration.js';

const REDIRECT = 'http://127.0.0.1:65530/cb';

/**
 * The `roles` scope: the user's roles in the token's project (its own grant's and its groups' grants', distinct,
 * sorted by code point) in userinfo, introspection, JWT access tokens and, as for groups, the ID token; verified
 * with openid-client.
 */
describe('the roles scope and claim, signed in through the login UI', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let api: OidcApp;
  let user: { userId: string; userName: string };
  let loginName: string;
  let groupId: string;
  let userGrantId: string;
  // A user grant ["viewer", "Zeta"] and a group grant ["approver", "viewer"]: their union, by code point.
  const ROLES = ['Zeta', 'approver', 'viewer'];

  const management = async (method: string, path: string, body?: unknown, status?: number) => {
    const res = await svc.api(method, `/management/v1/orgs/${project.orgId}${path}`, { token: svc.adminToken, body });
    if (status !== undefined) assert.equal(res.status, status, res.text);
    return res;
  };
  const introspect = async (token: string, by: OidcApp = api) => {
    const res = await postForm(svc, '/oauth/v2/introspect', { token }, { id: by.clientId, secret: by.clientSecret! });
    assert.equal(res.body.active, true, res.text);
    return res.body as Record<string, unknown>;
  };
  const configOf = (app: OidcApp) => discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
  const signInWith = async (app: OidcApp, scope: string) => {
    const config = await configOf(app);
    const { tokens } = await openidClientSignIn(svc, config, { redirectUri: REDIRECT, loginName, scope });
    return { config, tokens };
  };
  const userinfoRoles = async (config: oidc.Configuration, accessToken: string) => (await oidc.fetchUserInfo(config, accessToken, user.userId)).roles;

  before(async () => {
    project = await createProject(svc);
    api = await createApiApp(svc, project);
    user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
    for (const key of ['viewer', 'approver', 'Zeta', 'unused']) await management('POST', `/projects/${project.projectId}/roles`, { key }, 201);
    groupId = (await management('POST', '/groups', { displayName: unique('Approvers') }, 201)).body.id;
    await management('PUT', `/groups/${groupId}/members/${user.userId}`, undefined, 200);
    userGrantId = (await management('POST', `/projects/${project.projectId}/grants`, { userId: user.userId, roles: ['viewer', 'Zeta'] }, 201)).body.grantId;
    await management('POST', `/projects/${project.projectId}/grants`, { groupId, roles: ['approver', 'viewer'] }, 201);
  });

  it('discovery lists the roles scope and claim', async () => {
    const discovery = (await svc.api('GET', '/.well-known/openid-configuration')).body;
    assert.ok(discovery.scopes_supported.includes('roles'));
    assert.ok(discovery.claims_supported.includes('roles'));
  });

  for (const accessTokenType of ['opaque', 'jwt'] as const) {
    it(`${accessTokenType} access tokens: the union of user and group grants in userinfo, introspection${accessTokenType === 'jwt' ? ' and the JWT' : ''}, not in the ID token`, async () => {
      const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType });
      const { config, tokens } = await signInWith(app, 'openid roles');
      assert.deepEqual(await userinfoRoles(config, tokens.access_token), ROLES);
      assert.deepEqual((await introspect(tokens.access_token)).roles, ROLES);
      assert.equal(tokens.claims()?.roles, undefined);
      if (accessTokenType === 'jwt') assert.deepEqual(decodeJwt(tokens.access_token).roles, ROLES);
    });
  }

  it('with idTokenUserinfoAssertion the ID token carries the roles too', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', idTokenUserinfoAssertion: true });
    const { tokens } = await signInWith(app, 'openid roles');
    assert.deepEqual(tokens.claims()?.roles, ROLES);
  });

  it('an ID token issued alone (response_type id_token) carries the roles', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'none', responseTypes: ['id_token'], grantTypes: ['implicit'] }, 'http://127.0.0.1:65530');
    const config = await discover(svc, app.clientId, oidc.None());
    oidc.useIdTokenResponseType(config);
    const nonce = oidc.randomNonce();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid roles', nonce, state });
    const browser = new LoginClient(svc.url);
    let res = await browser.get(`${url.pathname}${url.search}`);
    const uid = /\/ui\/login\/([^/?]+)$/.exec(res.location ?? '')?.[1];
    assert.ok(uid, `to the login UI: ${res.status} ${res.location}`);
    const page = await browser.get(res.location!);
    res = await browser.post(`/ui/login/${uid}/login`, { csrf: csrfOf(page.text), loginName, password: PASSWORD });
    res = await browser.follow(res);
    assert.ok(res.location?.startsWith(REDIRECT), `back at the client: ${res.status} ${res.location}`);
    const claims = await oidc.implicitAuthentication(config, new URL(res.location!), nonce, { expectedState: state });
    assert.deepEqual(claims.roles, ROLES);
  });

  /** A project "tools" with an MCP server (JWT tokens) and its own roles; the user holds `tools-admin` there. */
  const toolsProject = async () => {
    const tools = (await management('POST', '/projects', { name: unique('tools') }, 201)).body.id as string;
    await management('POST', `/projects/${tools}/roles`, { key: 'tools-admin' }, 201);
    await management('POST', `/projects/${tools}/grants`, { userId: user.userId, roles: ['tools-admin'] }, 201);
    const resourceUri = `https://${unique('mcp')}.example/mcp`;
    const created = await management(
      'POST',
      `/projects/${tools}/apps/api`,
      { name: unique('mcp'), authMethod: 'client_secret_basic', resourceUri, accessTokenType: 'jwt', scopes: [{ name: 'files:read', description: 'Read' }] },
      201,
    );
    return { resourceUri, resourceApp: { ...created.body, projectId: tools, orgId: project.orgId } as OidcApp };
  };

  it("a token for an API application's resource carries the roles of the resource's project, not the client's", async () => {
    const { resourceUri, resourceApp } = await toolsProject();
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: REDIRECT,
      loginName,
      password: PASSWORD,
      scope: 'openid roles',
      extra: { resource: resourceUri },
    });
    assert.ok(tokens, error);
    const claims = decodeJwt(tokens.access_token);
    assert.deepEqual([claims.aud].flat(), [resourceUri]);
    assert.deepEqual(claims.roles, ['tools-admin'], 'the JWT');
    assert.deepEqual((await introspect(tokens.access_token, resourceApp)).roles, ['tools-admin'], 'introspection');
    const userinfo = await svc.api('GET', '/oidc/v1/userinfo', { token: tokens.access_token });
    assert.equal(userinfo.status, 200, userinfo.text);
    assert.deepEqual(userinfo.body.roles, ['tools-admin'], 'userinfo');
  });

  it("an agent's token for a resource carries the roles of the resource's project", async () => {
    const { resourceUri, resourceApp } = await toolsProject();
    await setMode(svc, project.orgId, 'initialAccessToken');
    const agent = await registered(svc, publicClient(), await issueToken(svc, project.orgId));
    const { tokens, error } = await signIn(svc, {
      clientId: agent.client_id,
      redirectUri: DCR_REDIRECT,
      loginName,
      password: PASSWORD,
      scope: 'openid roles files:read',
      extra: { resource: resourceUri },
      consent: 'allow',
    });
    assert.ok(tokens, error);
    assert.deepEqual(decodeJwt(tokens.access_token).roles, ['tools-admin'], 'the JWT');
    assert.deepEqual((await introspect(tokens.access_token, resourceApp)).roles, ['tools-admin'], 'introspection');
  });

  it('a grant without roles gives roles: []; without the roles scope there is no roles claim', async () => {
    const other = await createProject(svc);
    const { userId, userName } = await createHuman(svc, other.orgId);
    const res = await svc.api('POST', `/management/v1/orgs/${other.orgId}/projects/${other.projectId}/grants`, {
      token: svc.adminToken,
      body: { userId, roles: [] },
    });
    assert.equal(res.status, 201, res.text);
    const app = await createOidcApp(svc, other, { authMethod: 'client_secret_basic', accessTokenType: 'jwt' });
    const otherApi = await createApiApp(svc, other);
    const config = await configOf(app);
    const login = `${userName}@${other.primaryDomain}`;
    const { tokens } = await openidClientSignIn(svc, config, { redirectUri: REDIRECT, loginName: login, scope: 'openid roles' });
    assert.deepEqual((await oidc.fetchUserInfo(config, tokens.access_token, userId)).roles, []);
    assert.deepEqual((await introspect(tokens.access_token, otherApi)).roles, []);
    assert.deepEqual(decodeJwt(tokens.access_token).roles, []);

    const plain = await openidClientSignIn(svc, config, { redirectUri: REDIRECT, loginName: login, scope: 'openid profile' });
    assert.equal((await oidc.fetchUserInfo(config, plain.tokens.access_token, userId)).roles, undefined);
    assert.equal((await introspect(plain.tokens.access_token, otherApi)).roles, undefined);
    assert.equal(decodeJwt(plain.tokens.access_token).roles, undefined);
  });

  it('a requested project audience adds only a project the user may enter', async () => {
    const locked = (await management('POST', '/projects', { name: unique('locked') }, 201)).body.id as string;
    await management('POST', `/projects/${locked}/roles`, { key: 'keeper' }, 201);
    await createOidcApp(svc, { orgId: project.orgId, projectId: locked }, { authMethod: 'client_secret_basic', settings: { access: 'granted' } });
    const lockedApi = await createApiApp(svc, { orgId: project.orgId, projectId: locked });
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType: 'jwt' });
    const scope = `openid roles urn:portcullis:iam:org:project:id:${locked}:aud`;

    const refused = await signInWith(app, scope);
    const aud = [decodeJwt(refused.tokens.access_token).aud].flat();
    assert.ok(!aud.includes(locked) && !aud.includes(lockedApi.clientId), `no project the user may not enter: ${aud}`);
    assert.deepEqual(decodeJwt(refused.tokens.access_token).roles, ROLES, "the client's project's roles instead");
    const asked = await postForm(
      svc,
      '/oauth/v2/introspect',
      { token: refused.tokens.access_token },
      { id: lockedApi.clientId, secret: lockedApi.clientSecret! },
    );
    assert.equal(asked.body.active, false, 'the project is not in its audience');

    await management('POST', `/projects/${locked}/grants`, { userId: user.userId, roles: ['keeper'] }, 201);
    const admitted = await signInWith(app, scope);
    assert.ok([decodeJwt(admitted.tokens.access_token).aud].flat().includes(locked));
    assert.deepEqual(decodeJwt(admitted.tokens.access_token).roles, ['keeper']);
    assert.deepEqual((await introspect(admitted.tokens.access_token, lockedApi)).roles, ['keeper']);
  });

  it('a requested project gives that project its roles; a change of grants shows at the next userinfo call', async () => {
    const second = (await management('POST', '/projects', { name: unique('p') }, 201)).body.id as string;
    await management('POST', `/projects/${second}/roles`, { key: 'auditor' }, 201);
    await management('POST', `/projects/${second}/grants`, { groupId, roles: ['auditor'] }, 201);
    // A project audience counts once the project has an application (its audience is its applications).
    const secondApi = await createApiApp(svc, { orgId: project.orgId, projectId: second });
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType: 'jwt' });
    const { config, tokens } = await signInWith(app, `openid roles urn:portcullis:iam:org:project:id:${second}:aud`);
    assert.deepEqual(decodeJwt(tokens.access_token).roles, ['auditor']);
    assert.deepEqual(await userinfoRoles(config, tokens.access_token), ['auditor']);
    assert.deepEqual((await introspect(tokens.access_token, secondApi)).roles, ['auditor']);

    const own = await signInWith(app, 'openid roles');
    await management('PATCH', `/projects/${project.projectId}/grants/${userGrantId}`, { roles: [] }, 200);
    assert.deepEqual(await userinfoRoles(config, own.tokens.access_token), ['approver', 'viewer']);
    await management('DELETE', `/groups/${groupId}/members/${user.userId}`, undefined, 204);
    assert.deepEqual(await userinfoRoles(config, own.tokens.access_token), []);
  });
});
