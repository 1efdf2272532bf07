import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { REDIRECT, issueToken, organization, publicClient, register, setMode } from './support/dynamic-registration.js';
import type { Organization } from './support/dynamic-registration.js';
import { PASSWORD, createOidcApp, createProject, postForm } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';
import { countRows, searchEvents, useService } from '../support/fixtures.js';
import { eventually } from '../faults/faults.helpers.js';

const DAY_MS = 86_400_000;

/** docs/agents.md, "Dynamic registration": RFC 7591 registration and RFC 7592 management for agents. */
describe('dynamic client registration (RFC 7591, RFC 7592)', () => {
  const svc = useService({ OIDC_PURGE_INTERVAL_MS: '1000', DYNAMIC_REGISTRATION_RATE_LIMIT_PER_MINUTE: '100000' });
  let a: Organization;
  let b: Organization;

  before(async () => {
    a = await organization(svc);
    b = await organization(svc);
  });

  const metadataDocument = async () => (await svc.api('GET', '/.well-known/oauth-authorization-server')).body;
  const discovery = async () => (await svc.api('GET', '/.well-known/openid-configuration')).body;

  it('no registration endpoint is published, and none registers, while every organization is off', async () => {
    assert.equal((await metadataDocument()).registration_endpoint, undefined);
    assert.equal((await discovery()).registration_endpoint, undefined);
    const res = await register(svc, publicClient());
    assert.equal(res.status, 401, res.text);
    assert.equal(res.body.error, 'invalid_token');
    assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
    assert.equal(await countRows(svc, 'dynamic_clients'), 0);
  });

  it('the login policy takes dynamicRegistration, validated; the metadata then names the endpoint', async () => {
    const bad = await svc.api('PUT', `/management/v1/orgs/${a.project.orgId}/login-policy`, {
      token: svc.adminToken,
      body: { mfa: 'optional', passkeys: true, allowRegistration: true, dynamicRegistration: 'sometimes' },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /dynamicRegistration/);
    assert.equal((await svc.api('GET', `/management/v1/orgs/${a.project.orgId}/login-policy`, { token: svc.adminToken })).body.dynamicRegistration, 'off');
    await setMode(svc, a.project.orgId, 'initialAccessToken');
    assert.equal(
      (await svc.api('GET', `/management/v1/orgs/${a.project.orgId}/login-policy`, { token: svc.adminToken })).body.dynamicRegistration,
      'initialAccessToken',
    );
    assert.equal((await metadataDocument()).registration_endpoint, `${svc.config.publicUrl}/oauth/v2/register`);
    assert.equal((await discovery()).registration_endpoint, `${svc.config.publicUrl}/oauth/v2/register`);
  });

  it('an initial access token: expiresIn bounded, stored as a hash only', async () => {
    for (const expiresIn of [10, 40 * 86_400, 'soon']) {
      const res = await svc.api('POST', `/management/v1/orgs/${a.project.orgId}/agent-registration-tokens`, { token: svc.adminToken, body: { expiresIn } });
      assert.equal(res.status, 400, res.text);
      assert.match(res.text, /expiresIn/);
    }
    const before = await countRows(svc, 'agent_registration_tokens');
    const token = await issueToken(svc, a.project.orgId, { expiresIn: 3600 });
    assert.equal(await countRows(svc, 'agent_registration_tokens'), before + 1);
    const rows: { token_hash: string }[] = await svc.dataSource.query('SELECT token_hash FROM agent_registration_tokens');
    assert.ok(rows.every((r) => r.token_hash !== token && !r.token_hash.includes(token)));
    const none = await svc.api('POST', '/management/v1/orgs/no-such-org/agent-registration-tokens', { token: svc.adminToken, body: {} });
    assert.equal(none.status, 404);
  });

  it('registers with an initial access token and runs a PKCE code flow to a token for its organization’s resource', async () => {
    const token = await issueToken(svc, a.project.orgId);
    const res = await register(svc, publicClient({ portcullis_org_id: b.project.orgId, portcullis_api_access: true }), token);
    assert.equal(res.status, 201, res.text);
    const clientId: string = res.body.client_id;
    assert.match(clientId, /^agent-/);
    assert.equal(res.body.client_secret, undefined);
    assert.ok(res.body.registration_access_token);
    assert.equal(res.body.registration_client_uri, `${svc.config.publicUrl}/oauth/v2/register/${clientId}`);
    assert.equal(res.body.portcullis_org_id, undefined, 'our own metadata is never the client’s to set');
    const [row] = await svc.dataSource.query('SELECT org_id FROM dynamic_clients WHERE client_id = ?', [clientId]);
    assert.equal(row.org_id, a.project.orgId, 'bound to the token’s organization, whatever the body said');
    const [event] = await searchEvents(svc, { event_types: ['agent.client.registered'], aggregate_id: clientId });
    assert.equal(event.aggregate.resourceOwner, a.project.orgId);
    const stored: { payload: string }[] = await svc.dataSource.query('SELECT payload FROM oidc_payloads WHERE client_id = ?', [clientId]);
    assert.ok(
      stored.every((r) => !r.payload.includes(res.body.registration_access_token)),
      'the registration access token is stored hashed',
    );

    const { tokens, error } = await signIn(svc, {
      clientId,
      redirectUri: REDIRECT,
      loginName: a.loginName,
      password: PASSWORD,
      scope: 'openid files:read',
      extra: { resource: a.resourceUri },
      consent: 'allow',
    });
    assert.ok(tokens, error);
    const introspected = await postForm(
      svc,
      '/oauth/v2/introspect',
      { token: tokens.access_token },
      { id: a.resource.clientId, secret: a.resource.clientSecret! },
    );
    assert.equal(introspected.body.active, true);
    assert.deepEqual(introspected.body.aud, [a.resourceUri]);
    assert.equal(introspected.body.client_id, clientId);

    const foreign = await signIn(svc, { clientId, redirectUri: REDIRECT, loginName: a.loginName, password: PASSWORD, extra: { resource: b.resourceUri } });
    assert.equal(foreign.error, 'invalid_target', 'a resource of another organization');
  });

  it('a private_key_jwt client registers with inline keys and gets no secret', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'ES256' };
    const res = await register(
      svc,
      publicClient({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } }),
      await issueToken(svc, a.project.orgId),
    );
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.token_endpoint_auth_method, 'private_key_jwt');
    assert.equal(res.body.client_secret, undefined);
    assert.equal(res.body.jwks.keys[0].kid, 'k1');
  });

  it('refuses symmetric authentication, an http redirect off loopback, fetched keys, and bad tokens, storing nothing', async () => {
    const token = await issueToken(svc, a.project.orgId);
    const before = await countRows(svc, 'dynamic_clients');
    const refusals: [object, string | undefined, number, string][] = [
      [publicClient({ token_endpoint_auth_method: 'client_secret_post' }), token, 400, 'invalid_client_metadata'],
      [publicClient({ token_endpoint_auth_method: 'client_secret_basic' }), token, 400, 'invalid_client_metadata'],
      [publicClient({ token_endpoint_auth_method: undefined }), token, 400, 'invalid_client_metadata'],
      [publicClient({ redirect_uris: ['http://agent.example.com/callback'] }), token, 400, 'invalid_redirect_uri'],
      [publicClient({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://agent.example.com/jwks' }), token, 400, 'invalid_client_metadata'],
      [publicClient({ grant_types: ['client_credentials'] }), token, 400, 'invalid_client_metadata'],
      [publicClient(), 'not-a-token', 401, 'invalid_token'],
      [publicClient(), undefined, 401, 'invalid_token'],
    ];
    for (const [metadata, bearer, status, error] of refusals) {
      const res = await register(svc, metadata, bearer);
      assert.equal(res.status, status, `${JSON.stringify(metadata)}: ${res.text}`);
      assert.equal(res.body.error, error, res.text);
    }
    // An expired token, and a live one of an organization that takes no registrations.
    await svc.dataSource.query('UPDATE agent_registration_tokens SET expires_at = ?', [Date.now() - 1000]);
    assert.equal((await register(svc, publicClient(), token)).status, 401);
    const offOrg = (await createProject(svc)).orgId;
    assert.equal((await register(svc, publicClient(), await issueToken(svc, offOrg))).status, 401);
    assert.equal(await countRows(svc, 'dynamic_clients'), before);
  });

  it('a scope in the registration, as MCP clients send the resource’s own, is accepted and not kept: the resource decides', async () => {
    const res = await register(svc, publicClient({ scope: 'files:read offline_access' }), await issueToken(svc, a.project.orgId));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.scope, undefined, 'replaced (RFC 7591 §3.2.1)');
    const { tokens, error } = await signIn(svc, {
      clientId: res.body.client_id,
      redirectUri: REDIRECT,
      loginName: a.loginName,
      password: PASSWORD,
      scope: 'files:read offline_access',
      extra: { resource: a.resourceUri },
      consent: 'allow',
    });
    assert.ok(tokens, error);
    assert.deepEqual(String(tokens.scope).split(' ').sort(), ['files:read', 'offline_access']);
  });

  it('RFC 7592: reads, updates (a new registration access token) and deletes with the registration access token', async () => {
    const created = await register(svc, publicClient(), await issueToken(svc, a.project.orgId));
    assert.equal(created.status, 201, created.text);
    const { client_id: clientId, registration_access_token: rat, registration_client_uri: uri } = created.body;
    const path = new URL(uri).pathname;

    const read = await svc.api('GET', path, { token: rat });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body.redirect_uris, [REDIRECT]);
    assert.equal((await svc.api('GET', path, { token: 'wrong' })).status, 401);

    const refused = await svc.api('PUT', path, {
      token: rat,
      body: { ...publicClient({ token_endpoint_auth_method: 'client_secret_basic' }), client_id: clientId },
    });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.error, 'invalid_client_metadata');

    const updated = await svc.api('PUT', path, { token: rat, body: { ...publicClient({ client_name: 'Renamed agent' }), client_id: clientId } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.client_name, 'Renamed agent');
    const rotated = updated.body.registration_access_token;
    assert.notEqual(rotated, rat);
    assert.equal((await svc.api('GET', path, { token: rat })).status, 401, 'the old registration access token is gone');
    assert.equal((await svc.api('GET', path, { token: rotated })).body.client_name, 'Renamed agent');

    assert.equal((await svc.api('DELETE', path, { token: rotated })).status, 204);
    assert.equal((await svc.api('GET', path, { token: rotated })).status, 401);
    assert.equal(await countRows(svc, `dynamic_clients WHERE client_id = '${clientId}'`), 0);
    const [event] = await searchEvents(svc, { event_types: ['agent.client.removed'], aggregate_id: clientId });
    assert.equal(event.payload.reason, 'deleted');
    const gone = await signIn(svc, { clientId, redirectUri: REDIRECT, loginName: a.loginName, password: PASSWORD, extra: { resource: a.resourceUri } }).catch(
      (e: Error) => ({ error: e.message }),
    );
    assert.ok('error' in gone && gone.error, 'a deleted client gets nothing');
  });

  it('open: registers without a token and is bound to the organization of the resource of its first code', async () => {
    await setMode(svc, b.project.orgId, 'open');
    const res = await register(svc, publicClient());
    assert.equal(res.status, 201, res.text);
    const clientId: string = res.body.client_id;
    const orgOf = async () => (await svc.dataSource.query('SELECT org_id FROM dynamic_clients WHERE client_id = ?', [clientId]))[0].org_id;
    assert.equal(await orgOf(), null);

    const flow = (resource: string | undefined, loginName: string) =>
      signIn(svc, {
        clientId,
        redirectUri: REDIRECT,
        loginName,
        password: PASSWORD,
        scope: 'openid files:read',
        extra: resource ? { resource } : {},
        consent: 'allow',
      });
    assert.equal((await flow(undefined, b.loginName)).error, 'invalid_target', 'until bound, no code without a resource');
    assert.equal((await flow(a.resourceUri, a.loginName)).error, 'invalid_target', 'a resource of an organization that is not open');
    assert.equal(await orgOf(), null);

    const { tokens, error } = await flow(b.resourceUri, b.loginName);
    assert.ok(tokens, error);
    assert.equal(await orgOf(), b.project.orgId);
    const introspected = await postForm(
      svc,
      '/oauth/v2/introspect',
      { token: tokens.access_token },
      { id: b.resource.clientId, secret: b.resource.clientSecret! },
    );
    assert.equal(introspected.body.active, true);

    await setMode(svc, a.project.orgId, 'open');
    assert.equal((await flow(a.resourceUri, a.loginName)).error, 'invalid_target', 'once bound, another organization’s resource is refused');
    await setMode(svc, a.project.orgId, 'initialAccessToken');
  });

  it('a registration unused for 30 days lapses: refused at once, then removed by the purge', async () => {
    const created = await register(svc, publicClient(), await issueToken(svc, a.project.orgId));
    assert.equal(created.status, 201, created.text);
    const { client_id: clientId, registration_access_token: rat, registration_client_uri: uri } = created.body;
    await svc.dataSource.query('UPDATE dynamic_clients SET last_used_at = ? WHERE client_id = ?', [Date.now() - 31 * DAY_MS, clientId]);
    assert.equal((await svc.api('GET', new URL(uri).pathname, { token: rat })).status, 401);
    const [event] = await eventually('the lapsed registration removed', async () => {
      const found = await searchEvents(svc, { event_types: ['agent.client.removed'], aggregate_id: clientId });
      return found.length > 0 ? found : undefined;
    });
    assert.equal(event.payload.reason, 'lapsed');
    assert.equal(await countRows(svc, `dynamic_clients WHERE client_id = '${clientId}'`), 0);
    assert.equal(await countRows(svc, `oidc_payloads WHERE client_id = '${clientId}'`), 0, 'its registration access token went with it');
  });

  it('an application registered by an administrator is not touched by the registration endpoints', async () => {
    const app = await createOidcApp(svc, a.project, { authMethod: 'client_secret_basic' });
    const res = await svc.api('GET', `/oauth/v2/register/${app.clientId}`, { token: 'anything' });
    assert.equal(res.status, 401);
  });
});

describe('dynamic client registration: per-address rate limit', () => {
  const svc = useService();

  it('100 registrations in a minute from one address: the excess is answered 429', async () => {
    const org = await organization(svc);
    await setMode(svc, org.project.orgId, 'open');
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 100; i++) {
      const res = await register(svc, publicClient());
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter ??= res.headers.get('retry-after');
        assert.equal(res.body.error, 'temporarily_unavailable');
      }
    }
    const created = statuses.filter((s) => s === 201).length;
    // 20 a minute; the 100 may straddle the start of a minute, which gives at most two windows' worth.
    assert.ok(created >= 20 && created <= 40, `${created} registered`);
    assert.equal(statuses.filter((s) => s === 429).length, 100 - created);
    assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After ${retryAfter}`);
    assert.equal(await countRows(svc, 'dynamic_clients'), created);
  });
});
