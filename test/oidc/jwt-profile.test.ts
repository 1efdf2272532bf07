import assert from 'node:assert/strict';
import { createPrivateKey, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { SignJWT, createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { unique, useService } from '../support/fixtures.js';
import { createProject, discover, postForm } from './support/oidc-fixtures.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

describe('JWT profile grant (RFC 7523) with machine keys', () => {
  const svc = useService();
  let orgId: string;
  let machine: { userId: string; keyId: string; key: string };

  async function createKeyedMachine() {
    const created = await svc.api('POST', `/management/v1/orgs/${orgId}/users/machine`, {
      token: svc.adminToken,
      body: { userName: unique('svc'), name: 'svc', accessTokenType: 'opaque' },
    });
    assert.equal(created.status, 201, created.text);
    const key = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${created.body.userId}/keys`, { token: svc.adminToken, body: {} });
    assert.equal(key.status, 201, key.text);
    return { userId: created.body.userId as string, keyId: key.body.keyId as string, key: key.body.keyDetails.key as string };
  }

  before(async () => {
    orgId = (await createProject(svc)).orgId;
    machine = await createKeyedMachine();
  });

  function assertion(
    claims: { iss?: string; sub?: string; aud?: string; iat?: number; kid?: string; jti?: string | null; exp?: number; nbf?: number } = {},
    signer = machine,
  ) {
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({});
    if (claims.nbf !== undefined) jwt.setNotBefore(claims.nbf);
    // RFC 7523 §3: "jti" is optional; each one, and each assertion, is accepted once.
    if (claims.jti !== null) jwt.setJti(claims.jti ?? randomUUID());
    return jwt
      .setProtectedHeader({ alg: 'RS256', kid: claims.kid ?? signer.keyId })
      .setIssuer(claims.iss ?? signer.userId)
      .setSubject(claims.sub ?? signer.userId)
      .setAudience(claims.aud ?? svc.config.publicUrl)
      .setIssuedAt(claims.iat ?? now)
      .setExpirationTime(claims.exp ?? (claims.iat ?? now) + 3600)
      .sign(createPrivateKey(signer.key));
  }

  it('issues an access token and the service user id_token with openid (openid-client genericGrantRequest)', async () => {
    const config = await discover(svc, machine.userId, oidc.None());
    const tokens = await oidc.genericGrantRequest(config, JWT_BEARER, { assertion: await assertion(), scope: 'openid profile' });
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.ok(tokens.access_token);
    const jwks = createRemoteJWKSet(new URL('/oauth/v2/keys', svc.config.publicUrl));
    const { payload } = await jwtVerify(tokens.id_token!, jwks, { issuer: svc.config.publicUrl, audience: machine.userId });
    assert.equal(payload.sub, machine.userId);
    // The token works at the API with the user's roles (docs/product-rules.md, "API").
    await svc.api('PUT', `/admin/v1/members/${machine.userId}`, { token: svc.adminToken, body: { roles: ['IAM_OWNER'] } });
    assert.equal((await svc.api('GET', '/admin/v1/orgs', { token: tokens.access_token })).status, 200);
  });

  it('needs no client authentication: a plain POST with the assertion works', async () => {
    const res = await postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: await assertion(), scope: 'openid' });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.id_token);
  });

  it('refuses wrong audience, issuer mismatch, unknown kid, expired and old assertions, each naming the failed check', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, RegExp][] = [
      [await assertion({ aud: 'https://elsewhere.example' }), /"aud"/],
      [await assertion({ iss: 'someone-else' }), /"iss"/],
      [await assertion({ kid: 'unknown-key' }), /unknown key/],
      [await assertion({ iat: now - 2 * 3600, exp: now + 600 }), /"iat"/],
      [await assertion({ iat: now - 600, exp: now - 300 }), /"exp"/],
      [(await assertion()).replace(/\.[^.]+$/, '.c2lnbmF0dXJl'), /signature/],
    ];
    for (const [bad, reason] of cases) {
      const res = await postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: bad });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_grant');
      assert.match(res.body.error_description, reason);
    }
  });

  it('accepts the token endpoint URL as the audience (RFC 7523 §3), and names the granted scope only when one was granted', async () => {
    const res = await postForm(svc, '/oauth/v2/token', {
      grant_type: JWT_BEARER,
      assertion: await assertion({ aud: `${svc.config.publicUrl}/oauth/v2/token` }),
    });
    assert.equal(res.status, 200, res.text);
    assert.ok(!('scope' in res.body), `nothing beyond the default was granted, so no scope member: ${res.text}`);
    const scoped = await postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: await assertion(), scope: 'openid profile' });
    assert.equal(scoped.body.scope, 'openid profile');
  });

  it('says which check failed: not yet valid, wrong audience, and a key of another user is just an unknown key', async () => {
    const now = Math.floor(Date.now() / 1000);
    const refusal = async (token: string) => {
      const res = await postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: token });
      assert.equal(res.body.error, 'invalid_grant', res.text);
      return res.body.error_description as string;
    };
    assert.match(await refusal(await assertion({ nbf: now + 600 })), /not yet valid.*"nbf"/);
    assert.match(await refusal(await assertion({ aud: 'https://elsewhere.example' })), /wrong audience/);
    // Signed by another service user's key, naming this one: that key is not this user's (no oracle for other users' keys).
    const other = await createKeyedMachine();
    const foreignKey = await refusal(await assertion({ kid: other.keyId }, { ...other, userId: machine.userId }));
    assert.match(foreignKey, /unknown key/);
    assert.equal(foreignKey, await refusal(await assertion({ kid: 'no-such-key' })));
  });

  const grant = async (token: string) => postForm(svc, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion: token, scope: 'openid' });

  it('accepts an assertion without jti (optional in RFC 7523 §3) once: its replay is refused, in parallel too', async () => {
    const bare = await assertion({ jti: null });
    const first = await grant(bare);
    assert.equal(first.status, 200, first.text);
    const replay = await grant(bare);
    assert.equal(replay.status, 400, replay.text);
    assert.equal(replay.body.error, 'invalid_grant');
    assert.match(replay.body.error_description, /already used/);
    // Another assertion (RS256 signs the same claims to the same bytes, so its exp differs).
    const raced = await assertion({ jti: null, exp: Math.floor(Date.now() / 1000) + 1800 });
    assert.notEqual(raced, bare);
    const statuses = (await Promise.all(Array.from({ length: 4 }, () => grant(raced)))).map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 400, 400, 400]);
  });

  it('accepts an assertion once: a replay is invalid_grant naming the reason, also when sent in parallel', async () => {
    const once = await assertion();
    assert.equal((await grant(once)).status, 200);
    const replay = await grant(once);
    assert.equal(replay.status, 400, replay.text);
    assert.equal(replay.body.error, 'invalid_grant');
    assert.match(replay.body.error_description, /already used/);
    assert.equal(replay.body.access_token, undefined);

    const raced = await assertion();
    const statuses = (await Promise.all(Array.from({ length: 5 }, () => grant(raced)))).map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 400, 400, 400, 400]);
  });

  it('the same jti may be used once by each issuer, and a fresh jti works again', async () => {
    const jti = randomUUID();
    const other = await createKeyedMachine();
    assert.equal((await grant(await assertion({ jti }))).status, 200);
    assert.equal((await grant(await assertion({ jti }, other))).status, 200, 'another issuer');
    assert.equal((await grant(await assertion({ jti }))).status, 400, 'a new assertion of the same issuer with a used jti');
    assert.equal((await grant(await assertion())).status, 200);
  });

  it('a refused assertion (bad audience) does not use up its jti', async () => {
    const jti = randomUUID();
    assert.equal((await grant(await assertion({ jti, aud: 'https://elsewhere.example' }))).status, 400);
    assert.equal((await grant(await assertion({ jti }))).status, 200);
  });
});
