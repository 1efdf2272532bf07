import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { PASSWORD, createHuman, createOidcApp, createProject, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';
import { EXCHANGE, RP, TOKEN_TYPE } from './support/token-exchange.js';
import { useService } from '../support/fixtures.js';

const { access: ACCESS, jwt: JWT } = TOKEN_TYPE;

/** RFC 8693 §2.1: the issued token is for the requested `audience`, which must lie within the subject token's. */
describe('token exchange applies the requested audience', () => {
  const svc = useService();
  let app: OidcApp;
  /** Another application of the same project: in the subject token's audience. */
  let backend: OidcApp;
  let subjectToken: string;

  before(async () => {
    const project = await createProject(svc);
    const grantTypes = ['authorization_code', EXCHANGE];
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', grantTypes }, RP);
    backend = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', grantTypes }, RP);
    assert.equal((await svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body: { tokenExchange: true } })).status, 200);
    const user = await createHuman(svc, project.orgId);
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName: `${user.userName}@${project.primaryDomain}`,
      password: PASSWORD,
      scope: 'openid profile',
    });
    assert.ok(tokens, error);
    subjectToken = tokens.access_token;
  });

  const exchange = (params: Record<string, string>) =>
    postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: EXCHANGE, subject_token: subjectToken, subject_token_type: ACCESS, ...params },
      { id: app.clientId, secret: app.clientSecret! },
    );
  const introspectAs = (client: OidcApp, token: string) =>
    postForm(svc, '/oauth/v2/introspect', { token }, { id: client.clientId, secret: client.clientSecret! });

  for (const requested of [ACCESS, JWT]) {
    it(`${requested === JWT ? 'a JWT' : 'an opaque token'} for the backend is active for the backend only, with that audience`, async () => {
      const res = await exchange({ audience: backend.clientId, requested_token_type: requested });
      assert.equal(res.status, 200, res.text);
      const forBackend = await introspectAs(backend, res.body.access_token);
      assert.equal(forBackend.body.active, true, forBackend.text);
      assert.deepEqual(forBackend.body.aud, [backend.clientId]);
      assert.deepEqual((await introspectAs(app, res.body.access_token)).body, { active: false }, 'the requesting client is not its audience');
      if (requested === JWT) {
        const { payload } = await jwtVerify(res.body.access_token, createRemoteJWKSet(new URL('/oauth/v2/keys', svc.url)), { issuer: svc.config.publicUrl });
        assert.deepEqual([payload.aud].flat(), [backend.clientId]);
      }
    });
  }

  it('without an audience the subject token’s applies; one outside it is invalid_target', async () => {
    const plain = await exchange({});
    assert.equal(plain.status, 200, plain.text);
    assert.equal((await introspectAs(app, plain.body.access_token)).body.active, true);
    assert.equal((await introspectAs(backend, plain.body.access_token)).body.active, true);
    const outside = await exchange({ audience: 'https://elsewhere.example' });
    assert.equal(outside.status, 400);
    assert.equal(outside.body.error, 'invalid_target');
  });
});
