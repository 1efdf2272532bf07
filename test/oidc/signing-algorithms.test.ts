import assert from 'node:assert/strict';
import { createPrivateKey, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { SignJWT, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { unique, useService } from '../support/fixtures.js';
import { createApiApp, createHuman, createMachine, createOidcApp, createProject, PASSWORD, postForm } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';

const RP = 'http://127.0.0.1:65530';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

/** README, SIGNING_ALG: a service started with each algorithm signs every JWT it issues with it. */
for (const alg of ['RS256', 'ES256', 'EdDSA'] as const) {
  describe(`SIGNING_ALG=${alg}: every JWT verifies against the published JWKS as a relying party checks it`, () => {
    const svc = useService({ SIGNING_ALG: alg });
    let project: { orgId: string; projectId: string; primaryDomain: string };

    before(async () => {
      project = await createProject(svc);
    });

    /** jose against the remote JWKS, accepting only the configured algorithm. */
    async function verify(jwt: string, options: { audience?: string; typ?: string } = {}) {
      const jwks = createRemoteJWKSet(new URL('/oauth/v2/keys', svc.config.publicUrl));
      const verified = await jwtVerify(jwt, jwks, { issuer: svc.config.publicUrl, algorithms: [alg], ...options });
      assert.equal(verified.protectedHeader.alg, alg);
      return verified;
    }

    it('discovery and JWKS name only that algorithm', async () => {
      const discovery = (await (await fetch(new URL('/.well-known/openid-configuration', svc.config.publicUrl))).json()) as Record<string, unknown>;
      assert.deepEqual(discovery.id_token_signing_alg_values_supported, [alg]);
      const jwks = (await (await fetch(new URL('/oauth/v2/keys', svc.config.publicUrl))).json()) as { keys: Record<string, unknown>[] };
      assert.ok(jwks.keys.length >= 1);
      for (const key of jwks.keys) {
        assert.equal(key.alg, alg);
        assert.equal(key.use, 'sig');
        assert.equal(key.d, undefined, 'no private part');
        assert.equal(key.key_ops, undefined);
      }
    });

    it('signs the ID token and the JWT access token of a sign-in; introspection and userinfo accept the access token', async () => {
      assert.equal((await svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body: { tokenExchange: true } })).status, 200);
      const app = await createOidcApp(
        svc,
        project,
        { authMethod: 'client_secret_basic', accessTokenType: 'jwt', grantTypes: ['authorization_code', EXCHANGE] },
        RP,
      );
      const user = await createHuman(svc, project.orgId);
      const { tokens, error } = await signIn(svc, {
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        redirectUri: `${RP}/cb`,
        loginName: `${user.userName}@${project.primaryDomain}`,
        password: PASSWORD,
        scope: 'openid profile',
      });
      assert.ok(tokens, `signed in: ${error}`);
      const idToken = await verify(tokens.id_token!, { audience: app.clientId });
      assert.equal(idToken.payload.sub, user.userId);
      const accessToken = await verify(tokens.access_token, { typ: 'at+jwt' });
      assert.equal(accessToken.payload.sub, user.userId);
      const introspected = await postForm(svc, '/oauth/v2/introspect', { token: tokens.access_token }, { id: app.clientId, secret: app.clientSecret! });
      assert.equal(introspected.body.active, true, introspected.text);
      const userinfo = await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal(userinfo.status, 200);
      assert.equal(((await userinfo.json()) as { sub: string }).sub, user.userId);

      const exchange = (params: Record<string, string>) =>
        postForm(
          svc,
          '/oauth/v2/token',
          { grant_type: EXCHANGE, subject_token: tokens.access_token, subject_token_type: ACCESS_TOKEN, ...params },
          { id: app.clientId, secret: app.clientSecret! },
        );
      const exchanged = await exchange({});
      assert.equal(exchanged.status, 200, exchanged.text);
      // Its access token is opaque unless an audience of JWT access tokens is asked; the ID token output is a JWT.
      assert.equal(
        (await postForm(svc, '/oauth/v2/introspect', { token: exchanged.body.access_token }, { id: app.clientId, secret: app.clientSecret! })).body.active,
        true,
      );
      const asIdToken = await exchange({ requested_token_type: ID_TOKEN });
      assert.equal(asIdToken.status, 200, asIdToken.text);
      assert.equal((await verify(asIdToken.body.access_token)).payload.sub, user.userId);
    });

    it('signs client credentials and JWT profile tokens of machine users; introspection accepts them', async () => {
      const machine = await createMachine(svc, project.orgId, 'jwt');
      const basic = { id: machine.clientId, secret: machine.clientSecret };
      const scope = `openid urn:portcullis:iam:org:project:id:${project.projectId}:aud`;
      const cc = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials', scope }, basic);
      assert.equal(cc.status, 200, cc.text);
      assert.equal((await verify(cc.body.access_token, { typ: 'at+jwt' })).payload.sub, machine.userId);
      const api = await createApiApp(svc, project);
      const introspected = await postForm(svc, '/oauth/v2/introspect', { token: cc.body.access_token }, { id: api.clientId, secret: api.clientSecret! });
      assert.equal(introspected.body.active, true, introspected.text);

      const created = await svc.api('POST', `/management/v1/orgs/${project.orgId}/users/machine`, {
        token: svc.adminToken,
        body: { userName: unique('svc'), name: 'svc', accessTokenType: 'jwt' },
      });
      assert.equal(created.status, 201, created.text);
      const key = await svc.api('POST', `/management/v1/orgs/${project.orgId}/users/${created.body.userId}/keys`, { token: svc.adminToken, body: {} });
      assert.equal(key.status, 201, key.text);
      const assertion = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: key.body.keyId })
        .setIssuer(created.body.userId)
        .setSubject(created.body.userId)
        .setAudience(svc.config.publicUrl)
        .setIssuedAt()
        .setJti(randomUUID())
        .setExpirationTime('1h')
        .sign(createPrivateKey(key.body.keyDetails.key));
      const profile = await postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion, scope: 'openid' });
      assert.equal(profile.status, 200, profile.text);
      assert.equal((await verify(profile.body.id_token, { audience: created.body.userId })).payload.sub, created.body.userId);
      assert.equal(decodeProtectedHeader(profile.body.access_token).alg, alg);
      assert.equal((await verify(profile.body.access_token, { typ: 'at+jwt' })).payload.sub, created.body.userId);
    });
  });
}
