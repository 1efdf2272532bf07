import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import { INVALID_TOKENS, assertNoSecretsIn, assertNotStored, badRequest, bool, json, refused, row, setUpOrg, theEvent, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';

/** A confidential web application with every field of docs/product-rules.md, "API" set. */
function webApp(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: unique('web'),
    redirectUris: ['https://app.example.com/callback'],
    postLogoutRedirectUris: ['https://app.example.com/signed-out'],
    responseTypes: ['code'],
    grantTypes: ['authorization_code', 'refresh_token'],
    authMethod: 'client_secret_basic',
    accessTokenType: 'jwt',
    idTokenUserinfoAssertion: true,
    devMode: false,
    ...overrides,
  };
}

describe('management API: OIDC and API applications', () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  let projectA: string;
  let projectA2: string;
  let projectB: string;
  const apps = (orgId: string, projectId: string, kind: 'oidc' | 'api') => `/management/v1/orgs/${orgId}/projects/${projectId}/apps/${kind}`;

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
    const create = async (org: OrgSetup) => {
      const res = await svc.api('POST', `/management/v1/orgs/${org.org.id}/projects`, { token: org.owner.token, body: { name: unique('p') } });
      assert.equal(res.status, 201, res.text);
      return res.body.id as string;
    };
    projectA = await create(a);
    projectA2 = await create(a);
    projectB = await create(b);
  });

  it('creates a confidential OIDC application: 201 {appId, clientId, clientSecret}, stored as sent, secret shown once', async () => {
    const body = webApp();
    const res = await svc.api('POST', apps(a.org.id, projectA, 'oidc'), { token: a.owner.token, body });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['appId', 'clientId', 'clientSecret']);
    const { appId, clientId, clientSecret } = res.body;
    assert.ok(clientSecret.length >= 32, 'a generated secret is high-entropy');

    const app = await row(svc, 'SELECT * FROM applications WHERE id = ?', [appId]);
    assert.equal(app.org_id, a.org.id);
    assert.equal(app.project_id, projectA);
    assert.equal(app.kind, 'oidc');
    assert.equal(app.name, body.name);
    assert.equal(app.client_id, clientId);
    assert.equal(app.auth_method, 'client_secret_basic');
    assert.deepEqual(json(app.redirect_uris), body.redirectUris);
    assert.deepEqual(json(app.post_logout_redirect_uris), body.postLogoutRedirectUris);
    assert.deepEqual(json(app.response_types), body.responseTypes);
    assert.deepEqual(json(app.grant_types), body.grantTypes);
    assert.equal(app.access_token_type, 'jwt');
    assert.equal(bool(app.id_token_userinfo_assertion), true);
    assert.equal(bool(app.dev_mode), false);
    assert.ok(app.client_secret_hash, 'a hash of the secret is kept');
    assert.notEqual(app.client_secret_hash, clientSecret);
    await assertNotStored(svc, clientSecret);

    const event = await theEvent(svc, 'project.application.added', projectA, (e) => e.payload.appId === appId);
    assert.equal(event.aggregate.type.type, 'project');
    assert.equal(event.aggregate.resourceOwner, a.org.id);
    assert.equal(event.editor.userId, a.owner.userId);
    assert.deepEqual(event.payload, {
      appId,
      clientId,
      name: body.name,
      kind: 'oidc',
      authMethod: 'client_secret_basic',
      redirectUris: body.redirectUris,
      postLogoutRedirectUris: body.postLogoutRedirectUris,
      responseTypes: body.responseTypes,
      grantTypes: body.grantTypes,
      accessTokenType: 'jwt',
      devMode: false,
      apiAccess: false,
      access: 'everyone',
      homeUrl: null,
    });
    assertNoSecretsIn(event.payload, [clientSecret, app.client_secret_hash]);
  });

  it('creates every client every time anew: two applications get distinct ids, client ids and secrets', async () => {
    const first = await svc.api('POST', apps(a.org.id, projectA, 'oidc'), { token: a.owner.token, body: webApp() });
    const second = await svc.api('POST', apps(a.org.id, projectA, 'oidc'), { token: a.owner.token, body: webApp() });
    assert.equal(first.status, 201);
    assert.equal(second.status, 201);
    assert.notEqual(first.body.appId, second.body.appId);
    assert.notEqual(first.body.clientId, second.body.clientId);
    assert.notEqual(first.body.clientSecret, second.body.clientSecret);
  });

  it('gives no secret to public (none) and private_key_jwt clients', async () => {
    for (const authMethod of ['none', 'private_key_jwt']) {
      const res = await svc.api('POST', apps(a.org.id, projectA, 'oidc'), { token: a.owner.token, body: webApp({ authMethod }) });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['appId', 'clientId'], authMethod);
      const app = await row(svc, 'SELECT auth_method, client_secret_hash FROM applications WHERE id = ?', [res.body.appId]);
      assert.equal(app.auth_method, authMethod);
      assert.equal(app.client_secret_hash, null);
    }
  });

  it('applies the defaults: opaque access tokens, no userinfo assertion, no devMode, no post-logout URIs', async () => {
    const body = {
      name: unique('minimal'),
      redirectUris: ['https://app.example.com/cb'],
      responseTypes: ['code'],
      grantTypes: ['authorization_code'],
      authMethod: 'client_secret_post',
    };
    const res = await svc.api('POST', apps(a.org.id, projectA, 'oidc'), { token: a.owner.token, body });
    assert.equal(res.status, 201, res.text);
    const app = await row(svc, 'SELECT * FROM applications WHERE id = ?', [res.body.appId]);
    assert.equal(app.access_token_type, 'opaque');
    assert.equal(bool(app.id_token_userinfo_assertion), false);
    assert.equal(bool(app.dev_mode), false);
    assert.deepEqual(json(app.post_logout_redirect_uris), []);
  });

  it('accepts the implicit flow with its grant, and http and loopback redirect URIs in devMode', async () => {
    const implicit = await svc.api('POST', apps(a.org.id, projectA, 'oidc'), {
      token: a.owner.token,
      body: webApp({ responseTypes: ['id_token', 'id_token token'], grantTypes: ['implicit'], authMethod: 'none' }),
    });
    assert.equal(implicit.status, 201, implicit.text);

    const dev = await svc.api('POST', apps(a.org.id, projectA, 'oidc'), {
      token: a.owner.token,
      body: webApp({
        redirectUris: ['http://localhost:3000/cb', 'http://127.0.0.1:8080/cb', 'https://localhost/cb'],
        postLogoutRedirectUris: ['http://localhost:3000/'],
        devMode: true,
      }),
    });
    assert.equal(dev.status, 201, dev.text);
    const app = await row(svc, 'SELECT dev_mode, redirect_uris FROM applications WHERE id = ?', [dev.body.appId]);
    assert.equal(bool(app.dev_mode), true);
    assert.deepEqual(json(app.redirect_uris), ['http://localhost:3000/cb', 'http://127.0.0.1:8080/cb', 'https://localhost/cb']);

    const exchange = await svc.api('POST', apps(a.org.id, projectA, 'oidc'), {
      token: a.owner.token,
      body: webApp({ grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange'] }),
    });
    assert.equal(exchange.status, 201, exchange.text);
  });

  it('answers malformed OIDC bodies with 400 naming each field, and changes nothing', async () => {
    const omit = (field: string) => {
      const body = webApp();
      delete body[field];
      return body;
    };
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [omit('name'), ['name']],
      [webApp({ name: 7 }), ['name']],
      [webApp({ name: '' }), ['name']],
      [omit('redirectUris'), ['redirectUris']],
      [webApp({ redirectUris: 'https://app.example.com/cb' }), ['redirectUris']],
      [webApp({ redirectUris: [42] }), ['redirectUris']],
      [webApp({ postLogoutRedirectUris: 'https://app.example.com/' }), ['postLogoutRedirectUris']],
      [omit('responseTypes'), ['responseTypes']],
      [webApp({ responseTypes: ['token'] }), ['responseTypes']],
      [webApp({ responseTypes: ['code', 'code'] }), ['responseTypes']],
      [webApp({ responseTypes: 'code' }), ['responseTypes']],
      [omit('grantTypes'), ['grantTypes']],
      [webApp({ grantTypes: ['password'] }), ['grantTypes']],
      [webApp({ grantTypes: ['authorization_code', 'client_credentials'] }), ['grantTypes']],
      [omit('authMethod'), ['authMethod']],
      [webApp({ authMethod: 'client_secret_jwt' }), ['authMethod']],
      [webApp({ authMethod: 'NONE' }), ['authMethod']],
      [webApp({ accessTokenType: 'paseto' }), ['accessTokenType']],
      [webApp({ idTokenUserinfoAssertion: 'true' }), ['idTokenUserinfoAssertion']],
      [webApp({ devMode: 1 }), ['devMode']],
      [webApp({ clientSecret: 'chosen-by-me' }), ['clientSecret']],
      [webApp({ clientId: 'my-client' }), ['clientId']],
      [webApp({ name: '', authMethod: 'basic', extra: true }), ['name', 'authMethod', 'extra']],
    ];
    for (const [body, fields] of cases) {
      await badRequest(svc, fields, () => svc.api('POST', apps(a.org.id, projectA, 'oidc'), { token: a.owner.token, body }), JSON.stringify(body));
    }
  });

  it('refuses inconsistent OIDC configurations with 400 naming the field, and changes nothing', async () => {
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      ['id_token without implicit', webApp({ responseTypes: ['id_token'], grantTypes: ['authorization_code'] }), ['grantTypes']],
      ['id_token token without implicit', webApp({ responseTypes: ['code', 'id_token token'] }), ['grantTypes']],
      ['code without authorization_code', webApp({ responseTypes: ['code'], grantTypes: ['implicit'] }), ['grantTypes']],
      ['refresh_token alone', webApp({ responseTypes: ['id_token'], grantTypes: ['implicit', 'refresh_token'] }), ['grantTypes']],
      ['http redirect without devMode', webApp({ redirectUris: ['http://app.example.com/cb'] }), ['redirectUris.0']],
      ['loopback redirect without devMode', webApp({ redirectUris: ['https://app.example.com/cb', 'https://localhost/cb'] }), ['redirectUris.1']],
      ['http post-logout URI without devMode', webApp({ postLogoutRedirectUris: ['http://app.example.com/'] }), ['postLogoutRedirectUris.0']],
      ['fragment in a redirect URI', webApp({ redirectUris: ['https://app.example.com/cb#x'] }), ['redirectUris.0']],
      ['relative redirect URI', webApp({ redirectUris: ['/callback'] }), ['redirectUris.0']],
      ['javascript: redirect URI, even in devMode', webApp({ redirectUris: ['javascript:alert(1)'], devMode: true }), ['redirectUris.0']],
      ['an interactive flow without redirect URIs', webApp({ redirectUris: [] }), ['redirectUris']],
      [
        'several problems at once',
        webApp({ responseTypes: ['id_token'], grantTypes: ['authorization_code'], redirectUris: ['http://app.example.com/cb'] }),
        ['grantTypes', 'redirectUris.0'],
      ],
    ];
    for (const [label, body, fields] of cases) {
      await badRequest(svc, fields, () => svc.api('POST', apps(a.org.id, projectA, 'oidc'), { token: a.owner.token, body }), label);
    }
  });

  it('creates API applications: a secret for client_secret_basic, none for private_key_jwt', async () => {
    const name = unique('api');
    const res = await svc.api('POST', apps(a.org.id, projectA, 'api'), { token: a.owner.token, body: { name, authMethod: 'client_secret_basic' } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['appId', 'clientId', 'clientSecret']);
    const app = await row(svc, 'SELECT * FROM applications WHERE id = ?', [res.body.appId]);
    assert.equal(app.kind, 'api');
    assert.equal(app.name, name);
    assert.equal(app.project_id, projectA);
    assert.equal(app.org_id, a.org.id);
    assert.equal(app.client_id, res.body.clientId);
    assert.deepEqual([json(app.redirect_uris), json(app.response_types), json(app.grant_types)], [[], [], []], 'it may only introspect');
    assert.notEqual(app.client_secret_hash, null);
    await assertNotStored(svc, res.body.clientSecret);

    const event = await theEvent(svc, 'project.application.added', projectA, (e) => e.payload.appId === res.body.appId);
    assert.equal(event.aggregate.resourceOwner, a.org.id);
    assert.equal(event.editor.userId, a.owner.userId);
    assert.equal(event.payload.kind, 'api');
    assert.equal(event.payload.clientId, res.body.clientId);
    assert.equal(event.payload.authMethod, 'client_secret_basic');
    assertNoSecretsIn(event.payload, [res.body.clientSecret]);

    const jwt = await svc.api('POST', apps(a.org.id, projectA, 'api'), { token: a.owner.token, body: { name: unique('api'), authMethod: 'private_key_jwt' } });
    assert.equal(jwt.status, 201, jwt.text);
    assert.deepEqual(Object.keys(jwt.body).sort(), ['appId', 'clientId']);
  });

  it('answers malformed API application bodies with 400 naming each field, and changes nothing', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{ authMethod: 'client_secret_basic' }, ['name']],
      [{ name: 'api' }, ['authMethod']],
      [{ name: 'api', authMethod: 'none' }, ['authMethod']],
      [{ name: 'api', authMethod: 'client_secret_post' }, ['authMethod']],
      [{ name: 'api', authMethod: 'client_secret_basic', redirectUris: ['https://a.example/cb'] }, ['redirectUris']],
      [{ name: 42, authMethod: 42 }, ['name', 'authMethod']],
    ];
    for (const [body, fields] of cases) {
      await badRequest(svc, fields, () => svc.api('POST', apps(a.org.id, projectA, 'api'), { token: a.owner.token, body }), JSON.stringify(body));
    }
  });

  it('answers 401 without a valid token on both application routes, and changes nothing', async () => {
    for (const token of INVALID_TOKENS) {
      await refused(svc, 401, () => svc.api('POST', apps(a.org.id, projectA, 'oidc'), { ...tokenOption(token), body: webApp() }));
      await refused(svc, 401, () =>
        svc.api('POST', apps(a.org.id, projectA, 'api'), { ...tokenOption(token), body: { name: 'x', authMethod: 'client_secret_basic' } }),
      );
    }
  });

  it('answers 403 to an ORG_USER_MANAGER and to a member without roles, and changes nothing', async () => {
    for (const caller of [a.manager, a.member]) {
      await refused(svc, 403, () => svc.api('POST', apps(a.org.id, projectA, 'oidc'), { token: caller.token, body: webApp() }));
      await refused(svc, 403, () =>
        svc.api('POST', apps(a.org.id, projectA, 'api'), { token: caller.token, body: { name: 'x', authMethod: 'client_secret_basic' } }),
      );
    }
  });

  it('answers 404 across organizations and for unknown projects, and changes nothing', async () => {
    const api = { name: 'x', authMethod: 'client_secret_basic' };
    for (const kind of ['oidc', 'api'] as const) {
      const body = kind === 'oidc' ? webApp() : api;
      // B's path with A's owner token.
      await refused(svc, 404, () => svc.api('POST', apps(b.org.id, projectB, kind), { token: a.owner.token, body }), `${kind}: B's path`);
      // A's path, B's project: for A's owner and even for the instance admin.
      await refused(svc, 404, () => svc.api('POST', apps(a.org.id, projectB, kind), { token: a.owner.token, body }), `${kind}: B's project`);
      await refused(svc, 404, () => svc.api('POST', apps(a.org.id, projectB, kind), { token: svc.adminToken, body }), `${kind}: admin, B's project`);
      // Unknown project and unknown organization.
      await refused(svc, 404, () => svc.api('POST', apps(a.org.id, randomUUID(), kind), { token: a.owner.token, body }), `${kind}: unknown project`);
      await refused(svc, 404, () => svc.api('POST', apps(randomUUID(), projectA, kind), { token: svc.adminToken, body }), `${kind}: unknown org`);
    }
  });

  it("puts applications in the project of the path: one project never sees another one's applications", async () => {
    const res = await svc.api('POST', apps(a.org.id, projectA2, 'oidc'), { token: a.owner.token, body: webApp() });
    assert.equal(res.status, 201, res.text);
    const app = await row(svc, 'SELECT project_id FROM applications WHERE id = ?', [res.body.appId]);
    assert.equal(app.project_id, projectA2);
    await theEvent(svc, 'project.application.added', projectA2, (e) => e.payload.appId === res.body.appId);
  });
});
