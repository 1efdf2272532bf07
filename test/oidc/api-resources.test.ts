import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { JwtTokenIds } from '../../src/oidc/tokens/jwt-access-tokens.js';
import { PASSWORD, createApiApp, createHuman, createMachine, createOidcApp, createProject, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';
import { unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';

const REDIRECT = 'http://127.0.0.1:65530/cb';
const SCOPES = [
  { name: 'files:read', description: 'Read your files' },
  { name: 'files:write', description: 'Change your files' },
];

type Project = { orgId: string; projectId: string; primaryDomain: string };
type ResourceApp = OidcApp & { resourceUri: string };

async function createResourceApp(svc: TestService, project: Project, accessTokenType: 'opaque' | 'jwt', scopes = SCOPES): Promise<ResourceApp> {
  const resourceUri = `https://${unique('mcp')}.example/mcp`;
  const res = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/api`, {
    token: svc.adminToken,
    body: { name: unique('mcp'), authMethod: 'client_secret_basic', resourceUri, scopes, accessTokenType },
  });
  assert.equal(res.status, 201, res.text);
  return { ...res.body, projectId: project.projectId, orgId: project.orgId, resourceUri };
}

/** docs/agents.md, "Resources": API applications as resource servers that tokens are issued for (RFC 8707). */
describe('API applications as resources (RFC 8707)', () => {
  const svc = useService();
  let project: Project;
  let jwtResource: ResourceApp;
  let opaqueResource: ResourceApp;
  let client: OidcApp;
  let loginName: string;

  before(async () => {
    project = await createProject(svc);
    jwtResource = await createResourceApp(svc, project, 'jwt');
    opaqueResource = await createResourceApp(svc, project, 'opaque');
    client = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
  });

  const introspect = async (token: string, by: OidcApp) => {
    const res = await postForm(svc, '/oauth/v2/introspect', { token }, { id: by.clientId, secret: by.clientSecret! });
    assert.equal(res.status, 200, res.text);
    return res.body as Record<string, any>;
  };
  const codeFlow = (resource: string, scope: string) =>
    signIn(svc, {
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      redirectUri: REDIRECT,
      loginName,
      password: PASSWORD,
      scope,
      extra: { resource },
    });

  it('the API application reads back its resource settings', async () => {
    const res = await svc.api('GET', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/${jwtResource.appId}`, { token: svc.adminToken });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.type, 'api');
    assert.equal(res.body.resourceUri, jwtResource.resourceUri);
    assert.deepEqual(res.body.scopes, SCOPES);
    assert.equal(res.body.accessTokenType, 'jwt');
  });

  it('code flow: a JWT for the resource alone, with only its scopes and the OIDC ones, introspectable by that API application only', async () => {
    const { tokens, error } = await codeFlow(jwtResource.resourceUri, 'openid profile email groups files:read offline_access other:scope');
    assert.ok(tokens, error);
    assert.ok(JwtTokenIds.looksLikeJwt(tokens.access_token), 'the API application says jwt');
    const claims = decodeJwt(tokens.access_token);
    assert.deepEqual([claims.aud].flat(), [jwtResource.resourceUri], 'RFC 8707 §2: the resource is the audience');
    const scopes = String(claims.scope).split(' ').sort();
    assert.deepEqual(scopes, ['email', 'files:read', 'offline_access', 'openid', 'profile']);
    assert.deepEqual(String(tokens.scope).split(' ').sort(), scopes, 'the token response names the granted scope');
    assert.ok(tokens.refresh_token, 'offline_access yields a refresh token');
    assert.ok(tokens.id_token);

    const byResource = await introspect(tokens.access_token, jwtResource);
    assert.equal(byResource.active, true);
    assert.deepEqual(byResource.aud, [jwtResource.resourceUri]);
    assert.deepEqual(String(byResource.scope).split(' ').sort(), scopes);
    assert.equal((await introspect(tokens.access_token, opaqueResource)).active, false, "another resource's application");
    assert.equal((await introspect(tokens.access_token, client)).active, false, 'not even its client: the token is for the resource');

    // The refresh token keeps the resource (RFC 8707 §2.2) and its scopes.
    const refreshed = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      { id: client.clientId, secret: client.clientSecret! },
    );
    assert.equal(refreshed.status, 200, refreshed.text);
    const again = decodeJwt(refreshed.body.access_token);
    assert.deepEqual([again.aud].flat(), [jwtResource.resourceUri]);
    assert.deepEqual(String(again.scope).split(' ').sort(), scopes);
    assert.equal((await introspect(refreshed.body.access_token, jwtResource)).active, true);
  });

  it('an OAuth request for the resource without openid, as MCP clients send it: a token for the resource, no ID token', async () => {
    const { tokens, error } = await codeFlow(jwtResource.resourceUri, 'files:read offline_access');
    assert.ok(tokens, error);
    assert.equal(tokens.id_token, undefined, 'no openid, no ID token');
    assert.deepEqual([decodeJwt(tokens.access_token).aud].flat(), [jwtResource.resourceUri]);
    assert.deepEqual(String(tokens.scope).split(' ').sort(), ['files:read', 'offline_access']);
    assert.ok(tokens.refresh_token, 'offline_access yields a refresh token');
    assert.equal((await introspect(tokens.access_token, jwtResource)).active, true);
    // Without a resource the request is an OpenID Connect one, and openid is required.
    const { error: noResource } = await signIn(svc, {
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      redirectUri: REDIRECT,
      loginName,
      password: PASSWORD,
      scope: 'files:read',
    });
    assert.equal(noResource, 'invalid_scope');
  });

  it('without offline_access no refresh token; an opaque resource gets opaque tokens', async () => {
    const { tokens, error } = await codeFlow(opaqueResource.resourceUri, 'openid files:write');
    assert.ok(tokens, error);
    assert.equal(tokens.refresh_token, undefined);
    assert.equal(JwtTokenIds.looksLikeJwt(tokens.access_token), false, 'the API application says opaque');
    const body = await introspect(tokens.access_token, opaqueResource);
    assert.equal(body.active, true);
    assert.deepEqual(body.aud, [opaqueResource.resourceUri]);
    assert.deepEqual(String(body.scope).split(' ').sort(), ['files:write', 'openid']);
    assert.equal((await introspect(tokens.access_token, jwtResource)).active, false);
  });

  it('client credentials of a machine user: the resource as audience, its scopes only, in its format', async () => {
    const machine = await createMachine(svc, project.orgId, 'opaque');
    const res = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'client_credentials', resource: jwtResource.resourceUri, scope: 'files:read files:write groups unknown:scope' },
      { id: machine.clientId, secret: machine.clientSecret },
    );
    assert.equal(res.status, 200, res.text);
    assert.ok(JwtTokenIds.looksLikeJwt(res.body.access_token));
    const claims = decodeJwt(res.body.access_token);
    assert.deepEqual([claims.aud].flat(), [jwtResource.resourceUri]);
    assert.deepEqual(String(claims.scope).split(' ').sort(), ['files:read', 'files:write']);
    const body = await introspect(res.body.access_token, jwtResource);
    assert.equal(body.active, true);
    assert.deepEqual(body.aud, [jwtResource.resourceUri]);
    assert.equal((await introspect(res.body.access_token, opaqueResource)).active, false);
    // It no longer reaches the Portcullis API: its audience is the resource alone.
    const api = await svc.api('GET', '/auth/v1/users/me', { token: res.body.access_token });
    assert.equal(api.status, 401, api.text);
  });

  it('an unknown resource, or one of another organization, is invalid_target', async () => {
    const other = await createResourceApp(svc, await createProject(svc), 'opaque');
    const machine = await createMachine(svc, project.orgId);
    for (const resource of ['https://unknown.example/mcp', other.resourceUri, `${jwtResource.resourceUri}/`]) {
      const res = await postForm(
        svc,
        '/oauth/v2/token',
        { grant_type: 'client_credentials', resource },
        { id: machine.clientId, secret: machine.clientSecret },
      );
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_target', resource);
      const { error } = await codeFlow(resource, 'openid');
      assert.equal(error, 'invalid_target', resource);
    }
  });

  it('today’s resources still work: the Portcullis API for a machine user, a JWT application’s own project', async () => {
    const machine = await createMachine(svc, project.orgId);
    const res = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'client_credentials', resource: 'urn:portcullis:api' },
      { id: machine.clientId, secret: machine.clientSecret },
    );
    assert.equal(res.status, 200, res.text);
    const jwtClient = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType: 'jwt' });
    const { tokens, error } = await signIn(svc, {
      clientId: jwtClient.clientId,
      clientSecret: jwtClient.clientSecret,
      redirectUri: REDIRECT,
      loginName,
      password: PASSWORD,
      scope: 'openid',
    });
    assert.ok(tokens, error);
    const aud = [decodeJwt(tokens.access_token).aud].flat();
    assert.ok(aud.includes(project.projectId) && aud.includes(jwtClient.clientId), JSON.stringify(aud));
    assert.equal((await introspect(tokens.access_token, await createApiApp(svc, project))).active, true, 'an API application of the project');
  });
});

/** docs/agents.md, "Resources": what an API application may say of its resource, and what is refused (400/409, nothing stored). */
describe('API application resource settings', () => {
  const svc = useService();
  let project: Project;
  const appsPath = () => `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps`;
  const appCount = async () => (await svc.api('GET', appsPath(), { token: svc.adminToken })).body.total as number;
  const create = (body: Record<string, unknown>) =>
    svc.api('POST', `${appsPath()}/api`, { token: svc.adminToken, body: { name: unique('api'), authMethod: 'client_secret_basic', ...body } });

  before(async () => {
    project = await createProject(svc);
  });

  it('refuses bad resource URIs and scopes with a 400 naming the field, storing nothing', async () => {
    const ok = 'https://files.example/mcp';
    const cases: [Record<string, unknown>, string][] = [
      [{ resourceUri: 'https://files.example/mcp#part' }, 'resourceUri'],
      [{ resourceUri: 'http://files.example/mcp' }, 'resourceUri'],
      [{ resourceUri: 'ftp://files.example/mcp' }, 'resourceUri'],
      [{ resourceUri: 'files.example/mcp' }, 'resourceUri'],
      [{ resourceUri: 'https://user:pw@files.example/mcp' }, 'resourceUri'],
      [{ resourceUri: ok, scopes: [{ name: 'openid', description: 'x' }] }, 'scopes[0].name'],
      [{ resourceUri: ok, scopes: [{ name: 'offline_access', description: 'x' }] }, 'scopes[0].name'],
      [{ resourceUri: ok, scopes: [{ name: 'roles', description: 'x' }] }, 'scopes[0].name'],
      [{ resourceUri: ok, scopes: [{ name: 'urn:portcullis:iam:api:aud', description: 'x' }] }, 'scopes[0].name'],
      [{ resourceUri: ok, scopes: [{ name: 'two words', description: 'x' }] }, 'scopes[0].name'],
      [{ resourceUri: ok, scopes: [{ name: 'quote"d', description: 'x' }] }, 'scopes[0].name'],
      [{ resourceUri: ok, scopes: [SCOPES[0], SCOPES[0]] }, 'scopes[1].name'],
      [{ scopes: SCOPES }, 'scopes'],
      [{ resourceUri: ok, accessTokenType: 'paseto' }, 'accessTokenType'],
      [{ resourceUri: ok, scopes: [{ name: 'a' }] }, 'scopes'],
    ];
    const before = await appCount();
    for (const [body, field] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      const fields = (res.body.details ?? []).map((d: { field?: string }) => d.field ?? '');
      assert.ok(
        fields.some((f: string) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`)) || res.text.includes(field),
        `${JSON.stringify(body)} names ${field}: ${res.text}`,
      );
    }
    assert.equal(await appCount(), before, 'nothing stored');
  });

  it('accepts http on loopback; a resource URI is unique in the instance (409), on create and on change', async () => {
    const loopback = `http://127.0.0.1:7777/${unique('mcp')}`;
    const first = await create({ resourceUri: loopback });
    assert.equal(first.status, 201, first.text);
    const otherProject = await createProject(svc);
    const before = await appCount();
    const taken = await svc.api('POST', `/management/v1/orgs/${otherProject.orgId}/projects/${otherProject.projectId}/apps/api`, {
      token: svc.adminToken,
      body: { name: unique('api'), authMethod: 'client_secret_basic', resourceUri: loopback },
    });
    assert.equal(taken.status, 409, taken.text);
    assert.equal(await appCount(), before);

    const second = await create({ resourceUri: `https://${unique('mcp')}.example/mcp`, scopes: SCOPES });
    assert.equal(second.status, 201, second.text);
    const patch = (body: Record<string, unknown>, appId = second.body.appId) => svc.api('PATCH', `${appsPath()}/${appId}`, { token: svc.adminToken, body });
    const conflict = await patch({ resourceUri: loopback });
    assert.equal(conflict.status, 409, conflict.text);
    const badScope = await patch({ scopes: [{ name: 'email', description: 'x' }] });
    assert.equal(badScope.status, 400, badScope.text);
    assert.match(badScope.text, /scopes\[0\]\.name/);
    const unchanged = await svc.api('GET', `${appsPath()}/${second.body.appId}`, { token: svc.adminToken });
    assert.deepEqual(unchanged.body.scopes, SCOPES, 'nothing stored by the refused changes');

    const changed = await patch({ scopes: [SCOPES[1]], accessTokenType: 'jwt' });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.body.scopes, [SCOPES[1]]);
    assert.equal(changed.body.accessTokenType, 'jwt');
    const cleared = await patch({ resourceUri: null });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.resourceUri, null);
    assert.deepEqual(cleared.body.scopes, [], 'its scopes go with it');

    const oidcApp = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    const onOidc = await patch({ resourceUri: `https://${unique('mcp')}.example/mcp` }, oidcApp.appId);
    assert.equal(onOidc.status, 400, onOidc.text);
    assert.match(onOidc.text, /resourceUri/);
  });

  it('records the settings in the application events', async () => {
    const resourceUri = `https://${unique('mcp')}.example/mcp`;
    const res = await create({ resourceUri, scopes: SCOPES, accessTokenType: 'jwt' });
    assert.equal(res.status, 201, res.text);
    const events = await svc.api('POST', '/admin/v1/events/_search', {
      token: svc.adminToken,
      body: { event_types: ['project.application.added'], aggregate_id: project.projectId, limit: 1000 },
    });
    assert.equal(events.status, 200, events.text);
    const added = (events.body.events ?? []).find((e: any) => e.payload?.appId === res.body.appId);
    assert.ok(added, events.text.slice(0, 500));
    assert.equal(added.payload.resourceUri, resourceUri);
    assert.deepEqual(added.payload.scopes, SCOPES);
    assert.equal(added.payload.accessTokenType, 'jwt');
  });
});
