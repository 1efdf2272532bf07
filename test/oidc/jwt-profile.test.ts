import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SignJWT, createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { unique } from '../support/fixtures.js';
import { startService } from '../support/service.js';
import type { TestService } from '../support/service.js';
import { createProject, discover, postForm } from './support/oidc-fixtures.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

describe('JWT profile grant (RFC 7523) with machine keys', () => {
  let svc: TestService;
  let orgId: string;
  let machine: { userId: string; keyId: string; key: string };

  before(async () => {
    svc = await startService();
    orgId = (await createProject(svc)).orgId;
    const created = await svc.api('POST', `/management/v1/orgs/${orgId}/users/machine`, { token: svc.adminToken, body: { userName: unique('svc'), name: 'svc', accessTokenType: 'opaque' } });
    assert.equal(created.status, 201, created.text);
    const key = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${created.body.userId}/keys`, { token: svc.adminToken, body: {} });
    assert.equal(key.status, 201, key.text);
    machine = { userId: created.body.userId, keyId: key.body.keyId, key: key.body.keyDetails.key };
  });
  after(() => svc?.close());

  function assertion(claims: { iss?: string; sub?: string; aud?: string; iat?: number; kid?: string } = {}) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: claims.kid ?? machine.keyId })
      .setIssuer(claims.iss ?? machine.userId)
      .setSubject(claims.sub ?? machine.userId)
      .setAudience(claims.aud ?? svc.config.publicUrl)
      .setIssuedAt(claims.iat ?? now)
      .setExpirationTime((claims.iat ?? now) + 3600)
      .sign(createPrivateKey(machine.key));
  }

  it('issues an access token and the service user id_token with openid (openid-client genericGrantRequest)', async () => {
    const config = await discover(svc, machine.userId, oidc.None());
    const tokens = await oidc.genericGrantRequest(config, JWT_BEARER, { assertion: await assertion(), scope: 'openid profile' });
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.ok(tokens.access_token);
    const jwks = createRemoteJWKSet(new URL('/oauth/v2/keys', svc.config.publicUrl));
    const { payload } = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.config.publicUrl, audience: machine.userId });
    assert.equal(payload.sub, machine.userId);
    // The token works at the API with the user's roles (DESIGN §4).
    await svc.api('PUT', `/admin/v1/members/${machine.userId}`, { token: svc.adminToken, body: { roles: ['IAM_OWNER'] } });
    assert.equal((await svc.api('GET', '/admin/v1/orgs', { token: tokens.access_token })).status, 200);
  });

  it('needs no client authentication: a plain POST with the assertion works', async () => {
    const res = await postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: await assertion(), scope: 'openid' });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.id_token);
  });

  it('refuses wrong audience, issuer mismatch, unknown kid, and assertions older than an hour', async () => {
    const cases = [
      await assertion({ aud: 'https://elsewhere.example' }),
      await assertion({ iss: 'someone-else' }),
      await assertion({ kid: 'unknown-key' }),
      await assertion({ iat: Math.floor(Date.now() / 1000) - 2 * 3600 }),
    ];
    for (const bad of cases) {
      const res = await postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: bad });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_grant');
    }
  });
});
