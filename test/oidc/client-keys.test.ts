import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import type { JWK } from 'jose';
import * as oidc from 'openid-client';
import { LoginClient } from '../attack/support/login-client.js';
import { eventually } from '../faults/faults.helpers.js';
import { countRows, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { PASSWORD, createAppKey, createHuman, createOidcApp, createProject, discover } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';
import { KeyServer } from './support/key-server.js';

const RP = 'http://127.0.0.1:65530';
const REDIRECT = `${RP}/cb`;

type Alg = 'ES256' | 'ES384' | 'EdDSA' | 'RS256';

/** A client's key pair as openid-client holds it: the private CryptoKey, and the public JWK the application registers. */
interface ClientKey {
  privateKey: CryptoKey;
  kid: string;
  jwk: JWK;
}

async function clientKey(alg: Alg): Promise<ClientKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
  const kid = randomUUID();
  return { privateKey, kid, jwk: { ...(await exportJWK(publicKey)), kid, use: 'sig' } };
}

const appsPath = (project: { orgId: string; projectId: string }) => `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps`;

/** An OIDC application for private_key_jwt that requires signed request objects, created with `keys` (jwks or jwksUri). */
function appBody(keys: Record<string, unknown>, authMethod = 'private_key_jwt') {
  return {
    name: unique('app'),
    redirectUris: [REDIRECT],
    responseTypes: ['code'],
    grantTypes: ['authorization_code'],
    authMethod,
    devMode: true,
    requireSignedRequestObject: authMethod === 'private_key_jwt',
    ...keys,
  };
}

async function createApp(svc: TestService, project: { orgId: string; projectId: string }, keys: Record<string, unknown>): Promise<OidcApp> {
  const res = await svc.api('POST', `${appsPath(project)}/oidc`, { token: svc.adminToken, body: appBody(keys) });
  assert.equal(res.status, 201, res.text);
  return { ...res.body, ...project };
}

/** Whether the service authenticates the client by an assertion signed with `key` (introspection of a made-up token). */
async function authenticates(svc: TestService, app: OidcApp, key: ClientKey, options?: oidc.ModifyAssertionOptions): Promise<boolean> {
  const config = await discover(svc, app.clientId, oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }, options));
  try {
    const answer = await oidc.tokenIntrospection(config, 'not-a-token');
    return answer.active === false;
  } catch (error) {
    if (error instanceof oidc.ResponseBodyError && error.error === 'invalid_client') return false;
    throw error;
  }
}

/**
 * Applications that bring their own public keys (docs/oauth-profiles.md, "Client keys"): inline `jwks` or a
 * `jwks_uri`, of the key types whose algorithms discovery advertises, used for private_key_jwt (RFC 7523) and signed
 * request objects (RFC 9101), driven by openid-client 6 as a relying party would.
 */
describe('client keys: applications bring their own jwks or jwks_uri (openid-client 6)', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', CLIENT_JWKS_CACHE_MS: '1000' });
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let loginName: string;
  let keyServer: KeyServer;

  before(async () => {
    project = await createProject(svc);
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
    keyServer = await KeyServer.start();
  });
  after(() => keyServer?.close());

  /** The code flow with a request object signed by `key`, the code redeemed with a private_key_jwt assertion by `key`. */
  async function signInWith(app: OidcApp, key: ClientKey, options?: oidc.ModifyAssertionOptions) {
    const config = await discover(svc, app.clientId, oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }, options));
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const params = {
      redirect_uri: REDIRECT,
      scope: 'openid profile',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    };
    const url = await oidc.buildAuthorizationUrlWithJAR(config, params, { key: key.privateKey, kid: key.kid }, options);
    assert.deepEqual([...url.searchParams.keys()].sort(), ['client_id', 'request']);
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin(Object.fromEntries(url.searchParams));
    let res = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD });
    while (res.location && !res.location.startsWith(RP)) res = await browser.get(res.location);
    assert.ok(res.location?.startsWith(REDIRECT), `back at the client: ${res.status} ${res.location}`);
    return oidc.authorizationCodeGrant(config, new URL(res.location!), { pkceCodeVerifier: verifier, expectedState: state, idTokenExpected: true });
  }

  it('discovery advertises the algorithms of every key type an application may hold, the same for assertions and request objects', async () => {
    const doc = (await (await fetch(new URL('/.well-known/openid-configuration', svc.url))).json()) as Record<string, string[]>;
    for (const member of ['token_endpoint_auth_signing_alg_values_supported', 'request_object_signing_alg_values_supported']) {
      for (const alg of ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA', 'Ed25519'])
        assert.ok(doc[member].includes(alg), `${member} lists ${alg}: ${doc[member]}`);
      assert.ok(!doc[member].some((alg) => alg === 'none' || alg.startsWith('HS')), `${member}: ${doc[member]}`);
    }
    assert.deepEqual(doc.request_object_signing_alg_values_supported, doc.token_endpoint_auth_signing_alg_values_supported);
  });

  for (const alg of ['ES256', 'EdDSA'] as const) {
    it(`an application holding an inline ${alg} key signs a request object and authenticates by private_key_jwt`, async () => {
      const key = await clientKey(alg);
      const app = await createApp(svc, project, { jwks: { keys: [key.jwk] } });
      const tokens = await signInWith(app, key);
      assert.ok(tokens.access_token && tokens.id_token);
      const read = await svc.api('GET', `${appsPath(project)}/${app.appId}`, { token: svc.adminToken });
      assert.deepEqual(read.body.jwks, { keys: [key.jwk] });
      assert.equal(read.body.jwksUri, null);
    });
  }

  // RFC 9864 §2.2: `Ed25519` is the fully specified name of what `EdDSA` names for an Ed25519 key; a key set may say
  // either, and a client may sign with either (docs/oauth-profiles.md, "Client keys").
  const signsEdDsa: oidc.ModifyAssertionOptions = {
    [oidc.modifyAssertion]: (header) => {
      if (header.alg === 'Ed25519') header.alg = 'EdDSA';
    },
  };
  it('an Ed25519 key published with alg "EdDSA" verifies what openid-client 6 signs "Ed25519": request object and private_key_jwt', async () => {
    const key = await clientKey('EdDSA');
    const app = await createApp(svc, project, { jwks: { keys: [{ ...key.jwk, alg: 'EdDSA' }] } });
    assert.equal(await authenticates(svc, app, key), true, 'private_key_jwt at introspection');
    const tokens = await signInWith(app, key);
    assert.ok(tokens.access_token && tokens.id_token);
    const read = await svc.api('GET', `${appsPath(project)}/${app.appId}`, { token: svc.adminToken });
    assert.deepEqual(read.body.jwks, { keys: [{ ...key.jwk, alg: 'EdDSA' }] }, 'the key set as it was given');
  });

  it('an Ed25519 key published with alg "Ed25519", inline or at a jwks_uri, verifies what a client signs "EdDSA"', async () => {
    const key = await clientKey('EdDSA');
    const published = { keys: [{ ...key.jwk, alg: 'Ed25519' }] };
    const inline = await createApp(svc, project, { jwks: published });
    const served = await createApp(svc, project, { jwksUri: keyServer.serve(`/${randomUUID()}/jwks.json`, published) });
    for (const app of [inline, served]) {
      assert.equal(await authenticates(svc, app, key, signsEdDsa), true, 'private_key_jwt at introspection');
      assert.ok((await signInWith(app, key, signsEdDsa)).access_token);
    }
  });

  it('an Ed25519 key stays an Ed25519 key: an assertion claiming ES256 with its kid is refused invalid_client', async () => {
    const key = await clientKey('EdDSA');
    const app = await createApp(svc, project, { jwks: { keys: [{ ...key.jwk, alg: 'EdDSA' }] } });
    const other = await clientKey('ES256');
    assert.equal(await authenticates(svc, app, { ...other, kid: key.kid }), false);
  });

  it('an application whose keys are served at a jwks_uri on loopback signs a request object and authenticates by private_key_jwt', async () => {
    const key = await clientKey('ES384');
    const path = `/${randomUUID()}/jwks.json`;
    const app = await createApp(svc, project, { jwksUri: keyServer.serve(path, { keys: [key.jwk] }) });
    const tokens = await signInWith(app, key);
    assert.ok(tokens.access_token && tokens.id_token);
    assert.ok((keyServer.reads.get(path) ?? 0) >= 1, 'the keys were read from the jwks_uri');
    const read = await svc.api('GET', `${appsPath(project)}/${app.appId}`, { token: svc.adminToken });
    assert.equal(read.body.jwksUri, `${keyServer.origin}${path}`);
    assert.equal(read.body.jwks, null);
  });

  it('keys rotated at the jwks_uri are used once the cache period has passed, and the retired key stops working', async () => {
    const [first, second] = [await clientKey('RS256'), await clientKey('ES256')];
    const path = `/${randomUUID()}/jwks.json`;
    const app = await createApp(svc, project, { jwksUri: keyServer.serve(path, { keys: [first.jwk] }) });
    assert.equal(await authenticates(svc, app, first), true);
    assert.equal(await authenticates(svc, app, second), false);
    keyServer.serve(path, { keys: [second.jwk] });
    await eventually('the rotated key authenticates', async () => ((await authenticates(svc, app, second)) ? true : undefined), 10_000, 200);
    assert.equal(await authenticates(svc, app, first), false);
  });

  it('a jwks_uri serving a private key, a symmetric key or no key set gives no keys: the client is refused', async () => {
    const key = await clientKey('ES256');
    const { d } = (await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey)) as JWK;
    const served = [{ keys: [{ ...key.jwk, d }] }, { keys: [key.jwk, { kty: 'oct', k: 'c2VjcmV0', kid: 'mac' }] }, { not: 'a key set' }];
    for (const set of served) {
      const path = `/${randomUUID()}/jwks.json`;
      const app = await createApp(svc, project, { jwksUri: keyServer.serve(path, set) });
      assert.equal(await authenticates(svc, app, key), false, JSON.stringify(set).slice(0, 80));
      assert.equal(keyServer.reads.get(path), 1, 'the set was read');
    }
  });

  it('bad keys are refused with 400 naming the field, at create and at PATCH, and nothing is stored', async () => {
    const [good, other] = [await clientKey('ES256'), await clientKey('ES256')];
    const privateEc = (await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey)) as JWK;
    const privateRsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    const weakRsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
    const p521 = generateKeyPairSync('ec', { namedCurve: 'P-521' }).publicKey.export({ format: 'jwk' });
    const cases: [string, Record<string, unknown>, string, string?][] = [
      ['a private EC key', { jwks: { keys: [{ ...privateEc, kid: 'a' }] } }, 'jwks.keys.0.d'],
      ['a private RSA key', { jwks: { keys: [privateRsa] } }, 'jwks.keys.0.d'],
      ['a symmetric key', { jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, 'jwks.keys.0.kty'],
      ['an RSA key of 1024 bits', { jwks: { keys: [weakRsa] } }, 'jwks.keys.0.n'],
      ['an EC key on P-521', { jwks: { keys: [p521] } }, 'jwks.keys.0.crv'],
      ['a repeated kid', { jwks: { keys: [good.jwk, { ...other.jwk, kid: good.kid }] } }, 'jwks.keys.1.kid'],
      ['eleven keys', { jwks: { keys: Array.from({ length: 11 }, (_, i) => ({ ...good.jwk, kid: `k${i}` })) } }, 'jwks.keys'],
      ['an encryption key', { jwks: { keys: [{ ...good.jwk, use: 'enc' }] } }, 'jwks.keys.0.use'],
      ['an algorithm the key cannot sign with', { jwks: { keys: [{ ...good.jwk, alg: 'RS256' }] } }, 'jwks.keys.0.alg'],
      ['a point not on the curve', { jwks: { keys: [{ ...good.jwk, y: good.jwk.x }] } }, 'jwks.keys.0'],
      ['no key set', { jwks: { kty: 'EC' } }, 'jwks'],
      ['both jwks and jwksUri', { jwks: { keys: [good.jwk] }, jwksUri: `${RP}/jwks` }, 'jwksUri'],
      ['plain http to a host that is not loopback', { jwksUri: 'http://keys.example.com/jwks' }, 'jwksUri'],
      ['a jwksUri with a fragment', { jwksUri: 'https://keys.example.com/jwks#x' }, 'jwksUri'],
      ["this instance's own keys", { jwksUri: `${svc.config.publicUrl}/oauth/v2/keys` }, 'jwksUri'],
      ['keys for a client_secret_basic application', { jwks: { keys: [good.jwk] } }, 'jwks', 'client_secret_basic'],
    ];
    const existing = await createApp(svc, project, { jwks: { keys: [good.jwk] } });
    const apps = await countRows(svc, 'applications');
    const events = await countRows(svc, 'events');
    for (const [name, keys, field, authMethod] of cases) {
      const created = await svc.api('POST', `${appsPath(project)}/oidc`, { token: svc.adminToken, body: appBody(keys, authMethod) });
      assert.equal(created.status, 400, `${name}: ${created.text}`);
      assert.ok(
        created.body.details.some((d: { field: string }) => d.field === field),
        `${name}: ${created.text}`,
      );
      const changed = await svc.api('PATCH', `${appsPath(project)}/${existing.appId}`, {
        token: svc.adminToken,
        body: { ...keys, ...(authMethod ? { authMethod } : {}) },
      });
      assert.equal(changed.status, 400, `${name} (PATCH): ${changed.text}`);
    }
    assert.equal(await countRows(svc, 'applications'), apps);
    assert.equal(await countRows(svc, 'events'), events);
    const read = await svc.api('GET', `${appsPath(project)}/${existing.appId}`, { token: svc.adminToken });
    assert.deepEqual(read.body.jwks, { keys: [good.jwk] });
  });

  it('an application has its own keys or keys registered through …/keys, never both', async () => {
    const key = await clientKey('ES256');
    const own = await createApp(svc, project, { jwks: { keys: [key.jwk] } });
    const keys = await countRows(svc, 'public_keys');
    const added = await svc.api('POST', `${appsPath(project)}/${own.appId}/keys`, { token: svc.adminToken, body: {} });
    assert.equal(added.status, 400, added.text);
    assert.equal(await countRows(svc, 'public_keys'), keys);
    const registered = await createOidcApp(svc, project, { authMethod: 'private_key_jwt' }, RP);
    await createAppKey(svc, registered);
    const changed = await svc.api('PATCH', `${appsPath(project)}/${registered.appId}`, { token: svc.adminToken, body: { jwks: { keys: [key.jwk] } } });
    assert.equal(changed.status, 400, changed.text);
    assert.deepEqual(
      changed.body.details.map((d: { field: string }) => d.field),
      ['jwks'],
    );
    // Back to registered keys: the application's own set is dropped with null.
    const dropped = await svc.api('PATCH', `${appsPath(project)}/${own.appId}`, { token: svc.adminToken, body: { jwks: null } });
    assert.equal(dropped.status, 200, dropped.text);
    assert.equal(dropped.body.jwks, null);
    assert.equal((await svc.api('POST', `${appsPath(project)}/${own.appId}/keys`, { token: svc.adminToken, body: {} })).status, 201);
  });
});

describe('client keys: a jwks_uri under the outbound address rules', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let keyServer: KeyServer;

  before(async () => {
    project = await createProject(svc);
    keyServer = await KeyServer.start();
  });
  after(() => keyServer?.close());

  it('a jwks_uri on loopback or a private network is refused with 400 naming jwksUri, at create and at PATCH; nothing is stored', async () => {
    const key = await clientKey('ES256');
    const existing = await createApp(svc, project, { jwks: { keys: [key.jwk] } });
    const apps = await countRows(svc, 'applications');
    for (const uri of [
      keyServer.serve('/jwks', { keys: [key.jwk] }),
      'https://127.0.0.1/jwks',
      'https://10.0.0.8/jwks',
      'https://[::1]/jwks',
      'https://169.254.169.254/jwks',
    ]) {
      const created = await svc.api('POST', `${appsPath(project)}/oidc`, { token: svc.adminToken, body: appBody({ jwksUri: uri }) });
      assert.equal(created.status, 400, `${uri}: ${created.text}`);
      assert.deepEqual(
        created.body.details.map((d: { field: string }) => d.field),
        ['jwksUri'],
        uri,
      );
      const changed = await svc.api('PATCH', `${appsPath(project)}/${existing.appId}`, { token: svc.adminToken, body: { jwks: null, jwksUri: uri } });
      assert.equal(changed.status, 400, `${uri} (PATCH): ${changed.text}`);
    }
    assert.equal(await countRows(svc, 'applications'), apps);
    assert.equal(keyServer.reads.size, 0, 'nothing was fetched');
  });

  it('a jwks_uri that points at loopback by the time it is read is not fetched: the client is refused', async () => {
    const key = await clientKey('ES256');
    const app = await createApp(svc, project, { jwks: { keys: [key.jwk] } });
    assert.equal(await authenticates(svc, app, key), true);
    // As if the name had moved to a private address after it was registered: the fetch checks the address itself.
    await svc.dataSource.query('UPDATE applications SET jwks = NULL, jwks_uri = ? WHERE id = ?', [keyServer.serve('/moved', { keys: [key.jwk] }), app.appId]);
    await eventually('the client is refused', async () => ((await authenticates(svc, app, key)) ? undefined : true), 10_000, 200);
    assert.equal(keyServer.reads.get('/moved'), undefined, 'nothing was fetched');
  });
});
