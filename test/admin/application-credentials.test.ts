import assert from 'node:assert/strict';
import { createPrivateKey, createSign, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { PASSWORD, createApiApp, createAppKey, createHuman, createOidcApp, createProject, postForm } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { useService } from '../support/fixtures.js';
import { INVALID_TOKENS, assertNoSecretsIn, assertNotStored, refused, row, setUpOrg, theEvent, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';

const RP = 'http://127.0.0.1:65532';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** docs/product-rules.md, "Changing and removing resources": an application's secret and keys. */
describe("management API: an application's client secret and keys", () => {
  const svc = useService();
  let a: OrgSetup;
  let b: OrgSetup;
  let projectA: { orgId: string; projectId: string };
  let projectB: { orgId: string; projectId: string };
  let loginName: string;
  let issuer: string;
  const appPath = (app: Pick<OidcApp, 'orgId' | 'projectId' | 'appId'>) => `/management/v1/orgs/${app.orgId}/projects/${app.projectId}/apps/${app.appId}`;

  before(async () => {
    a = await setUpOrg(svc);
    b = await setUpOrg(svc);
    projectA = await createProject(svc, a.org.id);
    projectB = await createProject(svc, b.org.id);
    const user = await createHuman(svc, a.org.id);
    loginName = `${user.userName}@${a.org.primaryDomain}`;
    issuer = ((await (await fetch(new URL('/.well-known/openid-configuration', svc.url))).json()) as { issuer: string }).issuer;
  });

  /** An RFC 7523 client assertion signed with the application's private key, as a private_key_jwt client sends it. */
  function clientAssertion(clientId: string, keyId: string, pem: string): string {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const input = `${part({ alg: 'RS256', kid: keyId, typ: 'JWT' })}.${part({ iss: clientId, sub: clientId, aud: issuer, jti: randomUUID(), iat: now, exp: now + 60 })}`;
    return `${input}.${createSign('RSA-SHA256').update(input).sign(createPrivateKey(pem)).toString('base64url')}`;
  }

  it('a new secret: 201 {clientSecret}, no-store, only its hash kept; the old one is refused at the token endpoint at once, the new one works', async () => {
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

    const res = await svc.api('POST', `${appPath(app)}/secret`, { token: a.owner.token, body: {} });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body), ['clientSecret']);
    const secret: string = res.body.clientSecret;
    assert.notEqual(secret, app.clientSecret);
    assert.match(res.headers.get('cache-control') ?? '', /no-store/);
    await assertNotStored(svc, secret);

    const refresh = (clientSecret: string) =>
      postForm(svc, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: tokens!.refresh_token! }, { id: app.clientId, secret: clientSecret });
    const old = await refresh(app.clientSecret!);
    assert.equal(old.status, 401, old.text);
    assert.equal(old.body.error, 'invalid_client');
    const renewed = await refresh(secret);
    assert.equal(renewed.status, 200, renewed.text);
    const fresh = await signIn(svc, { clientId: app.clientId, clientSecret: secret, redirectUri: `${RP}/cb`, loginName, password: PASSWORD });
    assert.ok(fresh.tokens?.access_token, `the code flow with the new secret: ${fresh.error}`);

    const event = await theEvent(svc, 'project.application.secret.changed', app.appId);
    assert.equal(event.aggregate.type.type, 'application');
    assert.equal(event.editor.userId, a.owner.userId);
    assert.deepEqual(event.payload, { projectId: app.projectId, clientId: app.clientId });
    assertNoSecretsIn(event.payload, [secret, app.clientSecret!]);
  });

  it('refuses a secret for an application without a secret method (400), and a non-empty body (400); nothing changed', async () => {
    const pkce = await createOidcApp(svc, projectA, { authMethod: 'none' }, RP);
    const res = await refused(svc, 400, () => svc.api('POST', `${appPath(pkce)}/secret`, { token: a.owner.token, body: {} }));
    assert.match(res.body.message, /none/);
    const app = await createOidcApp(svc, projectA, { authMethod: 'client_secret_post' }, RP);
    const before = await row(svc, 'SELECT client_secret_hash FROM applications WHERE id = ?', [app.appId]);
    await refused(svc, 400, () => svc.api('POST', `${appPath(app)}/secret`, { token: a.owner.token, body: { clientSecret: 'chosen' } }));
    assert.deepEqual(await row(svc, 'SELECT client_secret_hash FROM applications WHERE id = ?', [app.appId]), before);
  });

  it('lists keys without key material, and a removed key stops authenticating private_key_jwt at once', async () => {
    const api = await createApiApp(svc, projectA, 'private_key_jwt');
    const first = await createAppKey(svc, api);
    const second = await createAppKey(svc, api);

    const list = await svc.api('GET', `${appPath(api)}/keys`, { token: a.owner.token });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.total, 2);
    assert.deepEqual(list.body.keys.map((k: { keyId: string }) => k.keyId).sort(), [first.keyId, second.keyId].sort());
    for (const key of list.body.keys) {
      assert.deepEqual(Object.keys(key), ['keyId', 'createdAt']);
      assert.ok(!Number.isNaN(Date.parse(key.createdAt)));
    }
    assert.doesNotMatch(list.text, /BEGIN|PRIVATE|PUBLIC/);
    const page = await svc.api('GET', `${appPath(api)}/keys?limit=1`, { token: a.owner.token });
    assert.equal(page.body.keys.length, 1);
    assert.equal(page.body.total, 2);

    const introspect = (key: { keyId: string; key: string }) =>
      postForm(svc, '/oauth/v2/introspect', {
        token: 'x',
        client_id: api.clientId,
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: clientAssertion(api.clientId, key.keyId, key.key),
      });
    assert.equal((await introspect(first)).status, 200, 'the key authenticates');

    const res = await svc.api('DELETE', `${appPath(api)}/keys/${first.keyId}`, { token: a.owner.token });
    assert.equal(res.status, 204, res.text);
    const refusedNow = await introspect(first);
    assert.equal(refusedNow.status, 401, refusedNow.text);
    assert.equal(refusedNow.body.error, 'invalid_client');
    assert.equal((await introspect(second)).status, 200, 'the other key still works');

    const event = await theEvent(svc, 'project.application.key.removed', api.appId);
    assert.equal(event.aggregate.type.type, 'application');
    assert.deepEqual(event.payload, { projectId: api.projectId, keyId: first.keyId });
    await refused(svc, 404, () => svc.api('DELETE', `${appPath(api)}/keys/${first.keyId}`, { token: a.owner.token }), 'twice');
    await refused(svc, 404, () => svc.api('DELETE', `${appPath(api)}/keys/${randomUUID()}`, { token: a.owner.token }), 'unknown key');
  });

  it('answers 401 without a valid token and 403 below ORG_OWNER on every route; nothing changed', async () => {
    const app = await createOidcApp(svc, projectA, { authMethod: 'private_key_jwt' }, RP);
    const key = await createAppKey(svc, app);
    const routes = [
      ['POST', `${appPath(app)}/secret`, {}],
      ['GET', `${appPath(app)}/keys`],
      ['DELETE', `${appPath(app)}/keys/${key.keyId}`],
    ] as const;
    for (const [method, path, body] of routes) {
      for (const token of INVALID_TOKENS) await refused(svc, 401, () => svc.api(method, path, { ...tokenOption(token), body }), `${method} ${path}`);
      for (const caller of [a.manager, a.member]) await refused(svc, 403, () => svc.api(method, path, { token: caller.token, body }), `${method} ${path}`);
    }
  });

  it("keeps tenants apart: another organization's application, or another application's key, is 404; nothing changed", async () => {
    const ofB = await createOidcApp(svc, projectB, { authMethod: 'private_key_jwt' }, RP);
    const keyOfB = await createAppKey(svc, ofB);
    const ofA = await createOidcApp(svc, projectA, { authMethod: 'private_key_jwt' }, RP);
    const secretOfB = await createOidcApp(svc, projectB, { authMethod: 'client_secret_basic' }, RP);
    const underA = (app: OidcApp) => ({ ...app, orgId: a.org.id, projectId: projectA.projectId });
    await refused(svc, 404, () => svc.api('POST', `${appPath(underA(secretOfB))}/secret`, { token: a.owner.token, body: {} }), 'secret of B under A');
    await refused(svc, 404, () => svc.api('POST', `${appPath(secretOfB)}/secret`, { token: a.owner.token, body: {} }), 'secret on B');
    await refused(svc, 404, () => svc.api('GET', `${appPath(underA(ofB))}/keys`, { token: a.owner.token }), 'keys of B under A');
    await refused(svc, 404, () => svc.api('DELETE', `${appPath(underA(ofB))}/keys/${keyOfB.keyId}`, { token: a.owner.token }), 'key of B under A');
    // A's own application naming B's key: the key is not this application's.
    await refused(svc, 404, () => svc.api('DELETE', `${appPath(ofA)}/keys/${keyOfB.keyId}`, { token: a.owner.token }), "B's key on A's app");
    await refused(svc, 404, () => svc.api('DELETE', `${appPath(ofA)}/keys/${keyOfB.keyId}`, { token: svc.adminToken }), "admin: B's key on A's app");
  });
});
