import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { CLIENT_CACHE_MS } from '../../src/oidc/adapter/client.store.js';
import { UserLifecycleService } from '../../src/users/user-lifecycle.service.js';
import { searchEvents, useService } from '../support/fixtures.js';
import { createApiApp, createMachine, createProject, discover, postForm } from './support/oidc-fixtures.js';

const projectScope = (projectId: string) => `urn:portcullis:iam:org:project:id:${projectId}:aud`;

describe('machine users: client credentials, introspection, revocation, API access, key rotation', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string };
  let api: { clientId: string; clientSecret?: string };

  before(async () => {
    project = await createProject(svc);
    api = await createApiApp(svc, project);
  });

  async function machineToken(type: 'opaque' | 'jwt' = 'opaque', scope?: string) {
    const machine = await createMachine(svc, project.orgId, type);
    const config = await discover(svc, machine.clientId, oidc.ClientSecretBasic(machine.clientSecret));
    const tokens = await oidc.clientCredentialsGrant(config, scope ? { scope } : {});
    return { machine, config, tokens };
  }

  it('issues a client credentials token with client_secret_basic and with client_secret_post', async () => {
    const { tokens } = await machineToken();
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.ok(tokens.access_token.length >= 43, 'at least 256 bits of randomness');
    assert.ok(tokens.expires_in! > 0 && tokens.expires_in! <= 12 * 3600);
    assert.equal(tokens.refresh_token, undefined);

    const machine = await createMachine(svc, project.orgId);
    const post = await discover(svc, machine.clientId, oidc.ClientSecretPost(machine.clientSecret));
    assert.ok((await oidc.clientCredentialsGrant(post)).access_token);
  });

  it('names the granted scope in a client-credentials response, and leaves the member out when none was granted', async () => {
    const machine = await createMachine(svc, project.orgId);
    const grant = (scope?: string) =>
      postForm(
        svc,
        '/oauth/v2/token',
        { grant_type: 'client_credentials', ...(scope ? { scope } : {}) },
        { id: machine.clientId, secret: machine.clientSecret },
      );
    const unscoped = await grant();
    assert.equal(unscoped.status, 200, unscoped.text);
    assert.ok(!('scope' in unscoped.body), `no "scope": "": ${unscoped.text}`);
    assert.equal((await grant('openid profile')).body.scope, 'openid profile');
  });

  it('refuses a wrong client secret with invalid_client', async () => {
    const machine = await createMachine(svc, project.orgId);
    const res = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: machine.clientId, secret: 'wrong' });
    assert.equal(res.status, 401);
    assert.equal(res.body.error, 'invalid_client');
  });

  it('lets the token call the admin API with the machine user roles (docs/product-rules.md, "API")', async () => {
    const { machine, tokens } = await machineToken();
    assert.equal((await svc.api('GET', '/admin/v1/orgs', { token: tokens.access_token })).status, 403);
    const grant = await svc.api('PUT', `/admin/v1/members/${machine.userId}`, { token: svc.adminToken, body: { roles: ['IAM_OWNER'] } });
    assert.equal(grant.status, 200, grant.text);
    assert.equal((await svc.api('GET', '/admin/v1/orgs', { token: tokens.access_token })).status, 200);
    assert.equal((await svc.api('GET', '/admin/v1/orgs', { token: tokens.access_token + 'x' })).status, 401);
  });

  it('introspects for an API application whose project is in the audience, with the username', async () => {
    const { tokens, machine } = await machineToken('opaque', projectScope(project.projectId));
    const res = await postForm(svc, '/oauth/v2/introspect', { token: tokens.access_token }, { id: api.clientId, secret: api.clientSecret! });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.active, true);
    assert.equal(res.body.client_id, machine.clientId);
    assert.equal(res.body.token_type, 'Bearer');
    assert.ok([res.body.aud].flat().includes(project.projectId));
    assert.match(res.body.username, /^machine-[0-9a-f]+@.+\.localhost$/);
    assert.equal(res.body.iss, svc.config.publicUrl);
  });

  it('answers {"active":false} to an API application outside the audience, and for garbage', async () => {
    const other = await createApiApp(svc, await createProject(svc));
    const { tokens } = await machineToken('opaque', projectScope(project.projectId));
    const res = await postForm(svc, '/oauth/v2/introspect', { token: tokens.access_token }, { id: other.clientId, secret: other.clientSecret! });
    assert.deepEqual(res.body, { active: false });
    const junk = await postForm(svc, '/oauth/v2/introspect', { token: 'not-a-token' }, { id: api.clientId, secret: api.clientSecret! });
    assert.deepEqual(junk.body, { active: false });
  });

  it('answers 401 invalid_client when the introspecting client fails authentication', async () => {
    const res = await postForm(svc, '/oauth/v2/introspect', { token: 'x' }, { id: api.clientId, secret: 'wrong' });
    assert.equal(res.status, 401);
    assert.equal(res.body.error, 'invalid_client');
  });

  it('revokes an opaque token: introspection inactive, API 401, event recorded', async () => {
    const { tokens, machine } = await machineToken('opaque', projectScope(project.projectId));
    await svc.api('PUT', `/admin/v1/members/${machine.userId}`, { token: svc.adminToken, body: { roles: ['IAM_OWNER'] } });
    const revoked = await postForm(svc, '/oauth/v2/revoke', { token: tokens.access_token }, { id: machine.clientId, secret: machine.clientSecret });
    assert.equal(revoked.status, 200, revoked.text);
    const res = await postForm(svc, '/oauth/v2/introspect', { token: tokens.access_token }, { id: api.clientId, secret: api.clientSecret! });
    assert.deepEqual(res.body, { active: false });
    assert.equal((await svc.api('GET', '/admin/v1/orgs', { token: tokens.access_token })).status, 401);
    const events = await searchEvents(svc, { event_types: ['user.token.revoked'], aggregate_id: machine.userId });
    assert.equal(events.length, 1);
  });

  it('issues JWT access tokens (RFC 9068) that verify with the JWKS, introspect, and die when revoked', async () => {
    const { tokens, machine } = await machineToken('jwt', projectScope(project.projectId));
    const jwks = createRemoteJWKSet(new URL('/oauth/v2/keys', svc.config.publicUrl));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, { issuer: svc.config.publicUrl, typ: 'at+jwt' });
    assert.equal(payload.client_id, machine.clientId);
    assert.ok([payload.aud].flat().includes(project.projectId));
    assert.ok(protectedHeader.kid);
    const active = await postForm(svc, '/oauth/v2/introspect', { token: tokens.access_token }, { id: api.clientId, secret: api.clientSecret! });
    assert.equal(active.body.active, true, active.text);
    // Dots sent percent-encoded are dots too: the same JWT, just as introspectable.
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(api.clientId)}:${encodeURIComponent(api.clientSecret!)}`).toString('base64')}`;
    const encoded = await fetch(new URL('/oauth/v2/introspect', svc.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
      body: `token=${tokens.access_token.replaceAll('.', '%2E')}`,
    });
    assert.equal(((await encoded.json()) as { active?: boolean }).active, true);
    await postForm(svc, '/oauth/v2/revoke', { token: tokens.access_token }, { id: machine.clientId, secret: machine.clientSecret });
    const inactive = await postForm(svc, '/oauth/v2/introspect', { token: tokens.access_token }, { id: api.clientId, secret: api.clientSecret! });
    assert.deepEqual(inactive.body, { active: false });
  });

  it('rotates signing keys on demand; old tokens stay verifiable and JWKS is cacheable', async () => {
    const before = await machineToken('jwt');
    const oldKid = decodeProtectedHeader(before.tokens.access_token).kid;
    const rotated = await svc.api('POST', '/admin/v1/keys/rotate', { token: svc.adminToken, body: {} });
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.activeKeyId, oldKid);
    const after = await machineToken('jwt');
    assert.equal(decodeProtectedHeader(after.tokens.access_token).kid, rotated.body.activeKeyId);
    const jwksRes = await fetch(new URL('/oauth/v2/keys', svc.config.publicUrl));
    assert.match(jwksRes.headers.get('cache-control') ?? '', /max-age=300/);
    const kids = ((await jwksRes.json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    assert.ok(kids.includes(oldKid!) && kids.includes(rotated.body.activeKeyId));
    assert.equal(new Set(kids).size, kids.length);
    const jwks = createRemoteJWKSet(new URL('/oauth/v2/keys', svc.config.publicUrl));
    await jwtVerify(before.tokens.access_token, jwks);
    const events = await searchEvents(svc, { event_types: ['key.rotated'] });
    assert.ok(events.some((e) => e.aggregate.id === rotated.body.activeKeyId));
  });

  it('refuses key rotation to callers without IAM_OWNER', async () => {
    assert.equal((await svc.api('POST', '/admin/v1/keys/rotate', { body: {} })).status, 401);
  });

  it('kills the tokens of a deactivated machine user and, within the client cache time, issues it no more', async () => {
    const { tokens, machine } = await machineToken('opaque', projectScope(project.projectId));
    // The management API has no deactivation route; SCIM and the domain service are the ways in.
    const lifecycle = svc.app.get(UserLifecycleService);
    await lifecycle.deactivate(null, project.orgId, machine.userId);
    const introspected = await postForm(svc, '/oauth/v2/introspect', { token: tokens.access_token }, { id: api.clientId, secret: api.clientSecret! });
    assert.deepEqual(introspected.body, { active: false });

    const grant = () => postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, { id: machine.clientId, secret: machine.clientSecret });
    const refused = await poll(grant, (res) => res.status !== 200, CLIENT_CACHE_MS + 3_000);
    assert.equal(refused.status, 401);
    assert.equal((refused.body as { error: string }).error, 'invalid_client');

    await lifecycle.reactivate(null, project.orgId, machine.userId);
    assert.equal((await grant()).status, 200, 'a reactivated machine user is issued tokens again at once');
  });

  it('answers userinfo without a valid token with 401', async () => {
    const res = await fetch(new URL('/oidc/v1/userinfo', svc.config.publicUrl), { headers: { authorization: 'Bearer nope' } });
    assert.equal(res.status, 401);
  });
});

/** Repeats a request until its answer satisfies `done`, or fails after `ms`. */
async function poll<T>(request: () => Promise<T>, done: (answer: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const answer = await request();
    if (done(answer) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
