import assert from 'node:assert/strict';
import { createPrivateKey, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { useService } from '../support/fixtures.js';
import { createAppKey, createHuman, createOidcApp, createProject, PASSWORD, postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';
import { EXCHANGE, RP, TOKEN_TYPE as T } from './support/token-exchange.js';

const HOUR = 3600;
const DAY = 86400;

/**
 * docs/product-rules.md, "OpenID Connect and OAuth": a JWT a client signs for itself is good for an hour at most —
 * `private_key_jwt` client assertions, and the `jwt` subject of token exchange, which like an RFC 7523
 * assertion must name this server in `aud` and carry a `jti` accepted once.
 */
describe('client-signed JWTs are bounded in time and used once', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  let key: { keyId: string; key: string };
  const now = () => Math.floor(Date.now() / 1000);

  before(async () => {
    assert.equal((await svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body: { tokenExchange: true, impersonation: true } })).status, 200);
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'private_key_jwt', grantTypes: ['authorization_code', EXCHANGE] }, RP);
    key = await createAppKey(svc, app);
  });

  function signed(claims: { iat?: number; exp?: number; aud?: string; jti?: string; sub?: string }): Promise<string> {
    const jwt = new SignJWT({ ...(claims.jti === undefined ? {} : { jti: claims.jti }) })
      .setProtectedHeader({ alg: 'RS256', kid: key.keyId })
      .setIssuer(app.clientId)
      .setSubject(claims.sub ?? app.clientId);
    if (claims.iat !== undefined) jwt.setIssuedAt(claims.iat);
    if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp);
    if (claims.aud !== undefined) jwt.setAudience(claims.aud);
    return jwt.sign(createPrivateKey(key.key));
  }
  const assertionForm = async (claims: Parameters<typeof signed>[0]) => ({
    client_id: app.clientId,
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: await signed({ aud: `${svc.config.publicUrl}/oauth/v2/token`, jti: randomUUID(), ...claims }),
  });

  it('refuses a private_key_jwt assertion that expires years away, was issued a day ago, or spans more than an hour', async () => {
    const introspect = async (claims: Parameters<typeof signed>[0]) =>
      postForm(svc, '/oauth/v2/introspect', { token: 'nothing', ...(await assertionForm(claims)) });
    const ok = await introspect({ iat: now(), exp: now() + 300 });
    assert.equal(ok.status, 200, ok.text);
    // oidc-provider answers every failed client authentication alike ("client authentication failed").
    for (const claims of [
      { iat: now(), exp: now() + 10 * 365 * DAY },
      { exp: now() + 10 * 365 * DAY },
      { iat: now() - DAY, exp: now() + 60 },
      { iat: now() - 1800, exp: now() + HOUR },
    ]) {
      const res = await introspect(claims);
      assert.equal(res.status, 401, `${JSON.stringify(claims)}: ${res.text}`);
      assert.equal(res.body.error, 'invalid_client');
    }
  });

  it('needs exp, aud naming this server, iat within the hour and a single-use jti in a token-exchange jwt subject', async () => {
    const owner = await createHuman(svc, project.orgId);
    assert.equal(
      (await svc.api('PUT', `/management/v1/orgs/${project.orgId}/members/${owner.userId}`, { token: svc.adminToken, body: { roles: ['ORG_OWNER'] } })).status,
      200,
    );
    const subject = await createHuman(svc, project.orgId);
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      redirectUri: `${RP}/cb`,
      loginName: `${owner.userName}@${project.primaryDomain}`,
      password: PASSWORD,
      scope: 'openid',
      clientAuth: await assertionForm({ iat: now(), exp: now() + 300 }),
    });
    assert.ok(tokens, error);
    const exchange = async (claims: Parameters<typeof signed>[0]) =>
      postForm(svc, '/oauth/v2/token', {
        grant_type: EXCHANGE,
        subject_token: await signed({ sub: subject.userId, ...claims }),
        subject_token_type: T.jwt,
        actor_token: tokens.access_token,
        actor_token_type: T.access,
        ...(await assertionForm({ iat: now(), exp: now() + 300 })),
      });
    const good = { iat: now(), exp: now() + 300, aud: svc.config.publicUrl, jti: randomUUID() };
    const accepted = await exchange(good);
    assert.equal(accepted.status, 200, accepted.text);
    const replayed = await exchange(good);
    assert.equal(replayed.body.error, 'invalid_grant', 'the same jti twice');
    assert.match(replayed.body.error_description, /already used/);
    for (const claims of [
      { ...good, jti: randomUUID(), exp: undefined },
      { ...good, jti: randomUUID(), aud: undefined },
      { ...good, jti: randomUUID(), aud: 'https://elsewhere.example' },
      { ...good, jti: undefined },
      { ...good, jti: randomUUID(), exp: now() + 10 * 365 * DAY },
      { ...good, jti: randomUUID(), iat: now() - DAY },
    ]) {
      const res = await exchange(claims);
      assert.equal(res.status, 400, `${JSON.stringify(claims)}: ${res.text}`);
      assert.equal(res.body.error, 'invalid_grant', res.text);
    }
  });
});
