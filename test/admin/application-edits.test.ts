import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { LoginClient } from '../attack/support/login-client.js';
import { PASSWORD, createApiApp, createHuman, createOidcApp, createProject, postForm } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { unique, useService } from '../support/fixtures.js';
import { INVALID_TOKENS, assertNoSecretsIn, badRequest, json, refused, row, setUpOrg, theEvent, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';

const RP = 'http://127.0.0.1:65531';

/** docs/product-rules.md, "Changing and removing resources": applications. */
describe('management API: reading, changing and removing applications', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  let projectA: { orgId: string; projectId: string; primaryDomain: string };
  let projectB: { orgId: string; projectId: string; primaryDomain: string };
  let loginName: string;
  const apps = (p: { orgId: string; projectId: string }) => `/management/v1/orgs/${p.orgId}/projects/${p.projectId}/apps`;
  const appPath = (app: OidcApp) => `${apps(app)}/${app.appId}`;

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
    projectA = { ...(await createProject(svc, a.org.id)), primaryDomain: a.org.primaryDomain };
    projectB = { ...(await createProject(svc, b.org.id)), primaryDomain: b.org.primaryDomain };
    const user = await createHuman(svc, a.org.id);
    loginName = `${user.userName}@${a.org.primaryDomain}`;
  });

  it('lists a project’s applications with every create field but secrets, and their total', async () => {
    const project = await createProject(svc, a.org.id);
    const web = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', accessTokenType: 'jwt' }, RP);
    const api = await createApiApp(svc, project, 'private_key_jwt');
    const res = await svc.api('GET', apps(project), { token: a.owner.token });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.total, 2);
    const [first, second] = res.body.apps;
    assert.deepEqual(first, {
      appId: web.appId,
      clientId: web.clientId,
      projectId: project.projectId,
      name: first.name,
      type: 'oidc',
      authMethod: 'client_secret_basic',
      access: 'everyone',
      homeUrl: null,
      redirectUris: [`${RP}/cb`],
      postLogoutRedirectUris: [`${RP}/logged-out`],
      responseTypes: ['code'],
      grantTypes: ['authorization_code', 'refresh_token'],
      accessTokenType: 'jwt',
      idTokenUserinfoAssertion: false,
      devMode: true,
      apiAccess: false,
      requirePushedAuthorizationRequests: false,
      requireSignedRequestObject: false,
      requestObjectRequiresExp: false,
      authorizationSignedResponseAlg: null,
      dpopBoundAccessTokens: false,
      backchannelLogoutUri: null,
      backchannelLogoutSessionRequired: false,
      jwks: null,
      jwksUri: null,
      subjectType: 'public',
      ssfReceiver: false,
      tokens: {},
    });
    assert.deepEqual(second, {
      appId: api.appId,
      clientId: api.clientId,
      projectId: project.projectId,
      name: second.name,
      type: 'api',
      authMethod: 'private_key_jwt',
      access: 'everyone',
      accessTokenType: 'opaque',
      resourceUri: null,
      scopes: [],
      tokens: {},
    });
    assert.ok(!res.text.includes(web.clientSecret!), 'no secret in a listing');
    for (const listed of res.body.apps) assert.ok(!Object.keys(listed).some((k) => /secret|hash/i.test(k)), 'no secret or hash member');

    const page = await svc.api('GET', `${apps(project)}?limit=1&offset=1`, { token: a.owner.token });
    assert.deepEqual(page.body, { apps: [second], total: 2 });
    const one = await svc.api('GET', appPath(web), { token: a.owner.token });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body, first);
  });

  it('PATCH of redirect URIs: 200 with the application, project.application.changed, and the next authorization request honours the new URI', async () => {
    const app = await createOidcApp(svc, projectA, { authMethod: 'client_secret_basic' }, RP);
    const newUri = `${RP}/new-callback`;
    const res = await svc.api('PATCH', appPath(app), { token: a.owner.token, body: { redirectUris: [newUri] } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.redirectUris, [newUri]);
    assert.equal(res.body.clientSecret, undefined, 'no secret for a change that keeps the method');
    assert.deepEqual(json((await row(svc, 'SELECT redirect_uris FROM applications WHERE id = ?', [app.appId])).redirect_uris), [newUri]);

    const event = await theEvent(svc, 'project.application.changed', app.appId);
    assert.equal(event.aggregate.type.type, 'application');
    assert.equal(event.aggregate.resourceOwner, a.org.id);
    assert.equal(event.editor.userId, a.owner.userId);
    assert.deepEqual(event.payload, { projectId: app.projectId, clientId: app.clientId, redirectUris: [newUri] });
    assertNoSecretsIn(event.payload, [app.clientSecret!]);

    // At once in this process (its cached registration was forgotten): the new URI signs in, the old one is refused.
    const signedIn = await signIn(svc, { clientId: app.clientId, clientSecret: app.clientSecret, redirectUri: newUri, loginName, password: PASSWORD });
    assert.ok(signedIn.tokens?.access_token, `signed in through the new URI: ${signedIn.error}`);
    const old = await authorize(app.clientId, `${RP}/cb`);
    assert.equal(old.status, 400, 'the old URI is no longer registered');
    assert.equal(old.location, undefined, 'and nothing is sent to it');
  });

  function authorize(clientId: string, redirectUri: string) {
    const params = {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
    };
    return new LoginClient(svc.url).get(`/oauth/v2/authorize?${new URLSearchParams(params)}`);
  }

  it('validates a change exactly like a create, on the application as it would be; 400 and nothing changed', async () => {
    const app = await createOidcApp(svc, projectA, { authMethod: 'client_secret_basic' }, RP);
    const api = await createApiApp(svc, projectA);
    const before = await row(svc, 'SELECT * FROM applications WHERE id = ?', [app.appId]);
    const cases: Array<[OidcApp, unknown, string[]]> = [
      [app, { redirectUris: ['https://app.example.com/cb#frag'] }, ['redirectUris.0']],
      [app, { redirectUris: ['https://user:pw@app.example.com/cb'] }, ['redirectUris.0']],
      [app, { redirectUris: ['https://app.example.com\\@evil.example/cb'] }, ['redirectUris.0']],
      [app, { devMode: false }, ['redirectUris.0', 'postLogoutRedirectUris.0']],
      [app, { redirectUris: [] }, ['redirectUris']],
      [app, { grantTypes: ['implicit'] }, ['grantTypes']],
      [app, { responseTypes: ['token'] }, ['responseTypes']],
      [app, { authMethod: 'client_secret_jwt' }, ['authMethod']],
      [app, { name: '' }, ['name']],
      [app, { apiAccess: 'yes' }, ['apiAccess']],
      [app, { clientId: 'mine' }, ['clientId']],
      [app, { clientSecret: 'mine' }, ['clientSecret']],
      [api, { redirectUris: ['https://app.example.com/cb'] }, ['redirectUris']],
      [api, { authMethod: 'none' }, ['authMethod']],
      [api, { devMode: true, name: 'x' }, ['devMode']],
    ];
    for (const [target, body, fields] of cases) {
      await badRequest(svc, fields, () => svc.api('PATCH', appPath(target), { token: a.owner.token, body }), JSON.stringify(body));
    }
    assert.deepEqual(await row(svc, 'SELECT * FROM applications WHERE id = ?', [app.appId]), before, 'the application is unchanged');
  });

  it('apiAccess: set only by an IAM_OWNER (else 403), and an application that has it is changed only by one', async () => {
    const app = await createOidcApp(svc, projectA, { authMethod: 'none' }, RP);
    await refused(svc, 403, () => svc.api('PATCH', appPath(app), { token: a.owner.token, body: { apiAccess: true } }), 'owner sets apiAccess');
    const set = await svc.api('PATCH', appPath(app), { token: svc.adminToken, body: { apiAccess: true } });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.apiAccess, true);
    // Pointing a first-party application's redirect at oneself would collect API tokens of whoever signs in.
    await refused(
      svc,
      403,
      () => svc.api('PATCH', appPath(app), { token: a.owner.token, body: { redirectUris: ['https://evil.example/cb'] } }),
      'owner redirects',
    );
    await refused(svc, 403, () => svc.api('PATCH', appPath(app), { token: a.owner.token, body: { apiAccess: false } }), 'owner clears it');
    await refused(svc, 403, () => svc.api('DELETE', appPath(app), { token: a.owner.token }), 'owner removes it');
    const cleared = await svc.api('PATCH', appPath(app), { token: svc.adminToken, body: { apiAccess: false } });
    assert.equal(cleared.body.apiAccess, false);
  });

  it('switching to a secret method makes a secret (shown once, no-store); switching away drops it', async () => {
    const app = await createOidcApp(svc, projectA, { authMethod: 'none' }, RP);
    const res = await svc.api('PATCH', appPath(app), { token: a.owner.token, body: { authMethod: 'client_secret_basic' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(typeof res.body.clientSecret, 'string');
    assert.match(res.headers.get('cache-control') ?? '', /no-store/);
    const ok = await postForm(svc, '/oauth/v2/introspect', { token: 'x' }, { id: app.clientId, secret: res.body.clientSecret });
    assert.equal(ok.status, 200, ok.text);
    const event = await theEvent(svc, 'project.application.changed', app.appId);
    assertNoSecretsIn(event.payload, [res.body.clientSecret]);

    const back = await svc.api('PATCH', appPath(app), { token: a.owner.token, body: { authMethod: 'none' } });
    assert.equal(back.status, 200, back.text);
    assert.equal(back.body.clientSecret, undefined);
    assert.equal((await row(svc, 'SELECT client_secret_hash FROM applications WHERE id = ?', [app.appId])).client_secret_hash, null);
  });

  it('removes an application: 204, its keys, grants and tokens gone, its client refused, project.application.removed', async () => {
    const app = await createOidcApp(svc, projectA, { authMethod: 'client_secret_basic' }, RP);
    const { tokens } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName,
      password: PASSWORD,
      scope: 'openid offline_access',
    });
    assert.ok(tokens?.refresh_token);
    const userinfo = () => fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${tokens!.access_token}` } });
    assert.equal((await userinfo()).status, 200);
    // More than one deletion statement's worth (oidc-client-registrations.ts deletes 1,000 rows at a time).
    const other = await createOidcApp(svc, projectA, { authMethod: 'client_secret_basic' }, RP);
    for (const clientId of [app.clientId, other.clientId]) {
      for (let start = 0; start < 2500; start += 500) {
        const rows = Array.from({ length: 500 }, (_, i) => `${clientId}-${start + i}`);
        await svc.dataSource.query(
          `INSERT INTO oidc_payloads (model, id_hash, payload, client_id) VALUES ${rows.map(() => "('AccessToken', ?, ?, ?)").join(', ')}`,
          rows.flatMap((id) => [id, JSON.stringify({ clientId }), clientId]),
        );
      }
    }

    const res = await svc.api('DELETE', appPath(app), { token: a.owner.token });
    assert.equal(res.status, 204, res.text);
    const [left] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM oidc_payloads WHERE client_id = ?', [other.clientId]);
    assert.equal(Number(left.n), 2500, "another application's rows stay");
    assert.deepEqual(await svc.dataSource.query('SELECT id FROM applications WHERE id = ?', [app.appId]), []);
    const field = svc.dataSource.options.type === 'mysql' ? "JSON_VALUE(payload, '$.clientId')" : "json_extract(payload, '$.clientId')";
    assert.deepEqual(await svc.dataSource.query(`SELECT model FROM oidc_payloads WHERE ${field} = ?`, [app.clientId]), [], 'nothing issued to it is left');
    assert.equal((await userinfo()).status, 401, 'its access token is dead');
    const refresh = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'refresh_token', refresh_token: tokens!.refresh_token! },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(refresh.status, 401, refresh.text);
    assert.equal(refresh.body.error, 'invalid_client');

    const event = await theEvent(svc, 'project.application.removed', app.appId);
    assert.equal(event.aggregate.type.type, 'application');
    assert.deepEqual(event.payload, { projectId: app.projectId, clientId: app.clientId, name: event.payload.name });
    await refused(svc, 404, () => svc.api('GET', appPath(app), { token: a.owner.token }), 'gone');
    await refused(svc, 404, () => svc.api('DELETE', appPath(app), { token: a.owner.token }), 'twice');
  });

  it("a removed API application's client credentials stop at once", async () => {
    const api = await createApiApp(svc, projectA);
    const introspect = () => postForm(svc, '/oauth/v2/introspect', { token: 'x' }, { id: api.clientId, secret: api.clientSecret! });
    assert.equal((await introspect()).status, 200);
    assert.equal((await svc.api('DELETE', appPath(api), { token: a.owner.token })).status, 204);
    const after = await introspect();
    assert.equal(after.status, 401, after.text);
    assert.equal(after.body.error, 'invalid_client');
  });

  it('answers 401 without a valid token, 403 below ORG_OWNER, on every route; nothing changed', async () => {
    const app = await createOidcApp(svc, projectA, { authMethod: 'client_secret_basic' }, RP);
    const routes = [
      ['GET', apps(projectA)],
      ['GET', appPath(app)],
      ['PATCH', appPath(app), { name: 'x' }],
      ['DELETE', appPath(app)],
    ] as const;
    for (const [method, path, body] of routes) {
      for (const token of INVALID_TOKENS) await refused(svc, 401, () => svc.api(method, path, { ...tokenOption(token), body }), `${method} ${path}`);
      for (const caller of [a.manager, a.member]) await refused(svc, 403, () => svc.api(method, path, { token: caller.token, body }), `${method} ${path}`);
    }
  });

  it("keeps tenants apart: another organization's or project's application is 404, and changes nothing", async () => {
    const ofB = await createOidcApp(svc, projectB, { authMethod: 'client_secret_basic' }, RP);
    const otherProjectOfA = await createProject(svc, a.org.id);
    const ofA = await createOidcApp(svc, projectA, { authMethod: 'client_secret_basic' }, RP);
    const underA = { ...ofB, orgId: a.org.id, projectId: projectA.projectId };
    const wrongProject = { ...ofA, projectId: otherProjectOfA.projectId };
    for (const target of [underA, wrongProject, { ...ofA, appId: randomUUID() }]) {
      await refused(svc, 404, () => svc.api('GET', appPath(target), { token: a.owner.token }));
      await refused(svc, 404, () => svc.api('PATCH', appPath(target), { token: a.owner.token, body: { name: unique('x') } }));
      await refused(svc, 404, () => svc.api('DELETE', appPath(target), { token: a.owner.token }));
    }
    await refused(svc, 404, () => svc.api('GET', apps(projectB), { token: a.owner.token }), "B's list");
    await refused(svc, 404, () => svc.api('GET', apps({ orgId: a.org.id, projectId: projectB.projectId }), { token: a.owner.token }), "B's project under A");
    await refused(svc, 404, () => svc.api('PATCH', appPath(ofB), { token: a.owner.token, body: { name: 'x' } }), "B's path");
  });
});
