import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { calculateJwkThumbprint, decodeJwt, exportJWK } from 'jose';
import * as oidc from 'openid-client';
import { DPOP_SIGNING_ALGS } from '../../src/common/auth/dpop-proof.js';
import { LoginClient } from '../attack/support/login-client.js';
import { RawHttpClient } from '../attack/support/raw-http.js';
import { countRows, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { PASSWORD, createApiApp, createHuman, createMachine, createProject, discover, postForm } from './support/oidc-fixtures.js';
import { dpopProof, newDpopKey, symmetricProof, unsignedProof } from './support/dpop-proofs.js';
import { EXCHANGE, TOKEN_TYPE } from './support/token-exchange.js';
import type { DpopKey } from './support/dpop-proofs.js';

const ADMIN_PASSWORD = 'Console-Admin-Password-1';
const API_SCOPE = 'urn:portcullis:iam:api:aud';
const RP = 'http://127.0.0.1:65530';
const projectScope = (projectId: string) => `urn:portcullis:iam:org:project:id:${projectId}:aud`;

interface Answer {
  status: number;
  body: any;
  challenge: string;
  nonce: string | null;
}

/**
 * RFC 9449 (docs/oauth-profiles.md, "DPoP"): DPoP-bound tokens from the token endpoint (openid-client 6 as the client), used with
 * proofs at userinfo, the admin API and SCIM, refused there as Bearer tokens and with bad proofs.
 */
describe('DPoP: bound tokens at the token endpoint, userinfo, introspection, the admin API and SCIM', () => {
  const svc = useService({ BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD });
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let machine: { userId: string; clientId: string; clientSecret: string };
  let config: oidc.Configuration;

  before(async () => {
    project = await createProject(svc);
    machine = await createMachine(svc, project.orgId);
    const owner = await svc.api('PUT', `/admin/v1/members/${machine.userId}`, { token: svc.adminToken, body: { roles: ['IAM_OWNER'] } });
    assert.equal(owner.status, 200, owner.text);
    config = await discover(svc, machine.clientId, oidc.ClientSecretBasic(machine.clientSecret));
  });

  const url = (path: string) => new URL(path, svc.config.publicUrl);
  const tokenUrl = () => url('/oauth/v2/token').href;

  /** A client credentials token of the machine user, bound to a new key, through openid-client. */
  async function boundToken(scope?: string) {
    const key = await newDpopKey();
    const DPoP = oidc.getDPoPHandle(config, key);
    const tokens = await oidc.clientCredentialsGrant(config, scope ? { scope } : {}, { DPoP });
    return { key, DPoP, tokens, token: tokens.access_token };
  }

  /** A request to the service with `Authorization: <scheme> <token>` and an optional DPoP header. */
  async function call(method: string, path: string, auth: { scheme?: string; token: string; proof?: string; body?: unknown }): Promise<Answer> {
    const headers: Record<string, string> = { authorization: `${auth.scheme ?? 'DPoP'} ${auth.token}` };
    if (auth.proof) headers.dpop = auth.proof;
    if (auth.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url(path), { method, headers, body: auth.body === undefined ? undefined : JSON.stringify(auth.body) });
    const text = await res.text();
    return {
      status: res.status,
      body: text ? JSON.parse(text) : undefined,
      challenge: res.headers.get('www-authenticate') ?? '',
      nonce: res.headers.get('dpop-nonce'),
    };
  }

  /** The server's current nonce, as a client learns it: from a use_dpop_nonce answer (RFC 9449 §9). */
  async function nonce(key: DpopKey, token: string): Promise<string> {
    const res = await call('GET', '/admin/v1/orgs', { token, proof: await dpopProof(key, 'GET', url('/admin/v1/orgs').href, { token }) });
    assert.equal(res.status, 401);
    assert.match(res.challenge, /^DPoP error="use_dpop_nonce"/);
    assert.ok(res.nonce, 'a DPoP-Nonce header');
    return res.nonce;
  }

  /** A token request for the machine user with the given DPoP header (none when absent). */
  async function tokenRequest(proof?: string): Promise<{ status: number; body: any; nonce: string | null }> {
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`${machine.clientId}:${machine.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      ...(proof ? { dpop: proof } : {}),
    };
    const res = await fetch(tokenUrl(), { method: 'POST', headers, body: 'grant_type=client_credentials' });
    return { status: res.status, body: await res.json(), nonce: res.headers.get('dpop-nonce') };
  }

  const issuedTokens = () => countRows(svc, "oidc_payloads WHERE model = 'ClientCredentials'");

  it('discovery advertises the proof algorithms (asymmetric only)', async () => {
    const discovery = (await (await fetch(url('/.well-known/openid-configuration'))).json()) as Record<string, unknown>;
    assert.deepEqual(discovery.dpop_signing_alg_values_supported, DPOP_SIGNING_ALGS);
    assert.ok(!DPOP_SIGNING_ALGS.some((alg) => alg.startsWith('HS') || alg === 'none'));
  });

  it('openid-client: a client credentials token bound with DPoP works at the admin API, SCIM and userinfo, and nowhere as a Bearer token', async () => {
    const { DPoP, tokens, token } = await boundToken('openid');
    assert.equal(tokens.token_type.toLowerCase(), 'dpop');

    const admin = await oidc.fetchProtectedResource(config, token, url('/admin/v1/orgs'), 'GET', undefined, undefined, { DPoP });
    assert.equal(admin.status, 200, await admin.clone().text());
    assert.ok(((await admin.json()) as { orgs: unknown[] }).orgs.length > 0);
    const scim = await oidc.fetchProtectedResource(config, token, url(`/scim/v2/${project.orgId}/Users?count=1`), 'GET', undefined, undefined, { DPoP });
    assert.equal(scim.status, 200, await scim.clone().text());
    const write = await oidc.fetchProtectedResource(
      config,
      token,
      url('/admin/v1/orgs'),
      'POST',
      JSON.stringify({ name: `dpop-${randomBytes(3).toString('hex')}` }),
      new Headers({ 'content-type': 'application/json' }),
      { DPoP },
    );
    assert.equal(write.status, 201, await write.clone().text());
    const userinfo = await oidc.fetchUserInfo(config, token, oidc.skipSubjectCheck, { DPoP });
    assert.equal(userinfo.sub, machine.userId);

    // RFC 9449 §7.2: the same token as a Bearer token is refused by every resource.
    for (const path of ['/admin/v1/orgs', `/scim/v2/${project.orgId}/Users?count=1`]) {
      const bearer = await call('GET', path, { scheme: 'Bearer', token });
      assert.equal(bearer.status, 401, path);
      assert.match(bearer.challenge, /^DPoP error="invalid_token"/, path);
    }
    const atUserinfo = await fetch(url('/oidc/v1/userinfo'), { headers: { authorization: `Bearer ${token}` } });
    assert.equal(atUserinfo.status, 401);
    assert.match(atUserinfo.headers.get('www-authenticate') ?? '', /^DPoP .*error="invalid_token"/);
    // Nor does the import's large body limit open for it without its proof (admin/import/import-body-parser.ts).
    const posted = await call('POST', '/admin/v1/import', { scheme: 'Bearer', token, body: {} });
    assert.equal(posted.status, 401);
  });

  it('a nonce from the token endpoint is accepted by the admin API (one nonce for the whole origin)', async () => {
    const key = await newDpopKey();
    const first = await tokenRequest(await dpopProof(key, 'POST', tokenUrl()));
    assert.equal(first.status, 400);
    assert.equal(first.body.error, 'use_dpop_nonce');
    assert.ok(first.nonce);
    const issued = await tokenRequest(await dpopProof(key, 'POST', tokenUrl(), { nonce: first.nonce }));
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    assert.equal(issued.body.token_type, 'DPoP');
    const token = issued.body.access_token as string;
    const res = await call('GET', '/admin/v1/orgs', { token, proof: await dpopProof(key, 'GET', url('/admin/v1/orgs').href, { token, nonce: first.nonce }) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  it('introspection says a bound token is DPoP and names its key (cnf.jkt)', async () => {
    const api = await createApiApp(svc, project);
    const { key, token } = await boundToken(projectScope(project.projectId));
    const res = await postForm(svc, '/oauth/v2/introspect', { token }, { id: api.clientId, secret: api.clientSecret! });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.active, true);
    assert.equal(res.body.token_type, 'DPoP', res.text);
    assert.equal(res.body.cnf?.jkt, await calculateJwkThumbprint(await exportJWK(key.publicKey)));
  });

  it('a JWT access token (RFC 9068) is bound the same way: cnf.jkt inside, refused as Bearer, accepted with its proof', async () => {
    const jwtMachine = await createMachine(svc, project.orgId, 'jwt');
    assert.equal((await svc.api('PUT', `/admin/v1/members/${jwtMachine.userId}`, { token: svc.adminToken, body: { roles: ['IAM_OWNER'] } })).status, 200);
    const jwtConfig = await discover(svc, jwtMachine.clientId, oidc.ClientSecretBasic(jwtMachine.clientSecret));
    const key = await newDpopKey();
    const DPoP = oidc.getDPoPHandle(jwtConfig, key);
    const { access_token: token } = await oidc.clientCredentialsGrant(jwtConfig, {}, { DPoP });
    assert.deepEqual(decodeJwt(token).cnf, { jkt: await calculateJwkThumbprint(await exportJWK(key.publicKey)) });
    assert.equal((await call('GET', '/admin/v1/orgs', { scheme: 'Bearer', token })).status, 401);
    const res = await oidc.fetchProtectedResource(jwtConfig, token, url('/admin/v1/orgs'), 'GET', undefined, undefined, { DPoP });
    assert.equal(res.status, 200);
  });

  describe('bad proofs at the admin API: each refused with the RFC 9449 error, nothing served', () => {
    const orgs = () => countRows(svc, 'organizations');
    const createOrg = { name: 'never-created' };

    it('a replayed proof', async () => {
      const { key, token } = await boundToken();
      const proof = await dpopProof(key, 'GET', url('/admin/v1/orgs').href, { token, nonce: await nonce(key, token) });
      assert.equal((await call('GET', '/admin/v1/orgs', { token, proof })).status, 200);
      const again = await call('GET', '/admin/v1/orgs', { token, proof });
      assert.equal(again.status, 401);
      assert.match(again.challenge, /^DPoP error="invalid_dpop_proof"/);
      assert.equal(again.body.orgs, undefined);
    });

    it('wrong htu, wrong htm, missing or wrong ath, missing proof, another key, stale iat, alg none, HS256, a private jwk', async () => {
      const { key, token } = await boundToken();
      const other = await newDpopKey();
      const n = await nonce(key, token);
      const htu = url('/admin/v1/orgs').href;
      const cases: [string, string | undefined, RegExp][] = [
        ['wrong htu (another path)', await dpopProof(key, 'POST', url('/admin/v1/orgs/x').href, { token, nonce: n }), /invalid_dpop_proof/],
        ['wrong htu (another host)', await dpopProof(key, 'POST', 'http://evil.example/admin/v1/orgs', { token, nonce: n }), /invalid_dpop_proof/],
        ['wrong htm', await dpopProof(key, 'GET', htu, { token, nonce: n }), /invalid_dpop_proof/],
        ['missing ath', await dpopProof(key, 'POST', htu, { nonce: n }), /invalid_dpop_proof/],
        ['wrong ath', await dpopProof(key, 'POST', htu, { token: `${token}x`, nonce: n }), /invalid_dpop_proof/],
        ['missing proof', undefined, /invalid_dpop_proof/],
        ['another key', await dpopProof(other, 'POST', htu, { token, nonce: n }), /invalid_token/],
        ['stale iat', await dpopProof(key, 'POST', htu, { token, nonce: n, iat: Math.floor(Date.now() / 1000) - 3600 }), /invalid_dpop_proof/],
        ['iat in the future', await dpopProof(key, 'POST', htu, { token, nonce: n, iat: Math.floor(Date.now() / 1000) + 3600 }), /invalid_dpop_proof/],
        ['alg none', await unsignedProof(key, 'POST', htu, token, n), /invalid_dpop_proof/],
        ['HS256', await symmetricProof('POST', htu, token, n), /invalid_dpop_proof/],
        [
          'a private jwk in the header',
          await dpopProof(key, 'POST', htu, { token, nonce: n, header: { jwk: await exportJWK(key.privateKey) } }),
          /invalid_dpop_proof/,
        ],
        ['typ jwt', await dpopProof(key, 'POST', htu, { token, nonce: n, header: { typ: 'JWT' } }), /invalid_dpop_proof/],
        ['a nonce of its own', await dpopProof(key, 'POST', htu, { token, nonce: randomBytes(32).toString('base64url') }), /use_dpop_nonce/],
      ];
      const before = await orgs();
      for (const [what, proof, error] of cases) {
        const res = await call('POST', '/admin/v1/orgs', { token, proof, body: createOrg });
        assert.equal(res.status, 401, `${what}: ${JSON.stringify(res.body)}`);
        assert.match(res.challenge, new RegExp(`^DPoP error="${error.source}"`), what);
      }
      assert.equal(await orgs(), before, 'no organization created');
      // The proofs above were all refused before their jti was used: a good one still works.
      const good = await call('POST', '/admin/v1/orgs', {
        token,
        proof: await dpopProof(key, 'POST', htu, { token, nonce: n }),
        body: { name: `dpop-${randomBytes(3).toString('hex')}` },
      });
      assert.equal(good.status, 201, JSON.stringify(good.body));
    });

    it('a DPoP proof with a token that is not bound (a personal access token, an unbound access token) is refused', async () => {
      const key = await newDpopKey();
      const plain = await oidc.clientCredentialsGrant(config);
      assert.equal(plain.token_type.toLowerCase(), 'bearer');
      const n = await nonce(key, plain.access_token);
      for (const token of [svc.adminToken, plain.access_token]) {
        const res = await call('GET', '/admin/v1/orgs', { token, proof: await dpopProof(key, 'GET', url('/admin/v1/orgs').href, { token, nonce: n }) });
        assert.equal(res.status, 401);
        assert.match(res.challenge, /^DPoP error="invalid_token"/);
      }
    });

    it('a proof for PUBLIC_URL is accepted whatever Host the request claims, one for the claimed host is not', async () => {
      const { key, token } = await boundToken();
      const n = await nonce(key, token);
      const forged = new RawHttpClient(svc.url, { host: 'evil.example' });
      const evil = await forged.get('/admin/v1/orgs', {
        authorization: `DPoP ${token}`,
        dpop: await dpopProof(key, 'GET', 'http://evil.example/admin/v1/orgs', { token, nonce: n }),
      });
      assert.equal(evil.status, 401);
      const ours = await forged.get('/admin/v1/orgs', {
        authorization: `DPoP ${token}`,
        dpop: await dpopProof(key, 'GET', url('/admin/v1/orgs').href, { token, nonce: n }),
      });
      assert.equal(ours.status, 200, ours.text);
    });
  });

  it('SCIM: replayed and missing proofs refused with the DPoP challenge in the SCIM envelope', async () => {
    const { key, token } = await boundToken();
    const path = `/scim/v2/${project.orgId}/Users?count=1`;
    const htu = url(`/scim/v2/${project.orgId}/Users`).href;
    const proof = await dpopProof(key, 'GET', htu, { token, nonce: await nonce(key, token) });
    assert.equal((await call('GET', path, { token, proof })).status, 200);
    for (const [what, res] of [
      ['replayed', await call('GET', path, { token, proof })],
      ['missing', await call('GET', path, { token })],
    ] as const) {
      assert.equal(res.status, 401, what);
      assert.match(res.challenge, /^DPoP error="invalid_dpop_proof"/, what);
      assert.ok(res.body.schemas.includes('urn:ietf:params:scim:api:messages:2.0:Error'), what);
    }
  });

  it('userinfo: replayed, missing, foreign-key and stale proofs refused', async () => {
    const { key, token } = await boundToken('openid');
    const userinfo = url('/oidc/v1/userinfo').href;
    const get = (headers: Record<string, string>) => fetch(userinfo, { headers: { authorization: `DPoP ${token}`, ...headers } });
    const first = await get({ dpop: await dpopProof(key, 'GET', userinfo, { token }) });
    assert.equal(first.status, 401);
    const n = first.headers.get('dpop-nonce')!;
    const proof = await dpopProof(key, 'GET', userinfo, { token, nonce: n });
    assert.equal((await get({ dpop: proof })).status, 200);
    const replayed = await get({ dpop: proof });
    assert.equal(replayed.status, 401);
    assert.match(replayed.headers.get('www-authenticate') ?? '', /^DPoP .*error="invalid_token"/);
    const missing = await get({});
    assert.ok([400, 401].includes(missing.status), String(missing.status));
    const wrongKey = await get({ dpop: await dpopProof(await newDpopKey(), 'GET', userinfo, { token, nonce: n }) });
    assert.equal(wrongKey.status, 401);
    const stale = await get({ dpop: await dpopProof(key, 'GET', userinfo, { token, nonce: n, iat: Math.floor(Date.now() / 1000) - 3600 }) });
    assert.equal(stale.status, 401);
    assert.match(stale.headers.get('www-authenticate') ?? '', /^DPoP error="invalid_dpop_proof"/);
  });

  it('bad proofs at the token endpoint: each refused, no token issued', async () => {
    const key = await newDpopKey();
    const n = (await tokenRequest(await dpopProof(key, 'POST', tokenUrl()))).nonce!;
    const used = await dpopProof(key, 'POST', tokenUrl(), { nonce: n });
    assert.equal((await tokenRequest(used)).status, 200);
    const before = await issuedTokens();
    const cases: [string, string, string][] = [
      ['replayed', used, 'invalid_grant'],
      ['wrong htu', await dpopProof(key, 'POST', url('/oauth/v2/introspect').href, { nonce: n }), 'invalid_dpop_proof'],
      ['another host', await dpopProof(key, 'POST', 'http://evil.example/oauth/v2/token', { nonce: n }), 'invalid_dpop_proof'],
      ['wrong htm', await dpopProof(key, 'GET', tokenUrl(), { nonce: n }), 'invalid_dpop_proof'],
      ['stale iat without a nonce', await dpopProof(key, 'POST', tokenUrl(), { iat: Math.floor(Date.now() / 1000) - 3600 }), 'use_dpop_nonce'],
      ['stale iat with a nonce', await dpopProof(key, 'POST', tokenUrl(), { nonce: n, iat: Math.floor(Date.now() / 1000) - 3600 }), 'invalid_dpop_proof'],
      [
        'iat in the future with a nonce',
        await dpopProof(key, 'POST', tokenUrl(), { nonce: n, iat: Math.floor(Date.now() / 1000) + 3600 }),
        'invalid_dpop_proof',
      ],
      ['alg none', await unsignedProof(key, 'POST', tokenUrl(), 'x', n), 'invalid_dpop_proof'],
      ['HS256', await symmetricProof('POST', tokenUrl(), 'x', n), 'invalid_dpop_proof'],
      ['a nonce of its own', await dpopProof(key, 'POST', tokenUrl(), { nonce: randomBytes(32).toString('base64url') }), 'use_dpop_nonce'],
    ];
    for (const [what, proof, error] of cases) {
      const res = await tokenRequest(proof);
      assert.ok(res.status === 400 || res.status === 401, `${what}: ${res.status}`);
      assert.equal(res.body.error, error, `${what}: ${JSON.stringify(res.body)}`);
    }
    // A forged Host does not make a proof for that host valid (htu is PUBLIC_URL's: docs/oauth-profiles.md, "DPoP").
    const forged = new RawHttpClient(svc.url, { host: 'evil.example' });
    const basic = `Basic ${Buffer.from(`${machine.clientId}:${machine.clientSecret}`).toString('base64')}`;
    const evil = await forged.post('/oauth/v2/token', 'grant_type=client_credentials', 'application/x-www-form-urlencoded', {
      authorization: basic,
      dpop: await dpopProof(key, 'POST', 'http://evil.example/oauth/v2/token', { nonce: n }),
    });
    assert.equal(evil.status, 400, evil.text);
    assert.equal(JSON.parse(evil.text).error, 'invalid_dpop_proof');
    assert.equal(await issuedTokens(), before, 'no token issued');
  });

  describe('an application with dpopBoundAccessTokens, and the console, through the code flow', () => {
    let app: { clientId: string; clientSecret: string };
    let user: { userName: string };
    let primaryDomain: string;

    before(async () => {
      const created = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/oidc`, {
        token: svc.adminToken,
        body: {
          name: `dpop-app-${randomBytes(3).toString('hex')}`,
          redirectUris: [`${RP}/cb`],
          responseTypes: ['code'],
          grantTypes: ['authorization_code', 'refresh_token'],
          authMethod: 'client_secret_basic',
          devMode: true,
          dpopBoundAccessTokens: true,
        },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.dpopBoundAccessTokens ?? true, true);
      app = created.body;
      user = await createHuman(svc, project.orgId);
      primaryDomain = project.primaryDomain;
    });

    it('a token request without a proof is refused; with one, the token is bound and works at userinfo with its proof only', async () => {
      const appConfig = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret));
      const login = { loginName: `${user.userName}@${primaryDomain}`, password: PASSWORD };
      const flow = await codeFlow(svc, appConfig, `${RP}/cb`, 'openid', login);
      // Refused before the code is consumed, with the error RFC 9449 §5 gives a token request's missing or bad proof.
      await assert.rejects(flow.exchange(), (error: { error?: string; error_description?: string; status?: number }) => {
        assert.equal(error.error, 'invalid_dpop_proof', JSON.stringify(error));
        assert.equal(error.error_description, 'DPoP proof JWT not provided');
        assert.equal(error.status, 400);
        return true;
      });

      const key = await newDpopKey();
      const DPoP = oidc.getDPoPHandle(appConfig, key);
      const tokens = await flow.exchange({ DPoP });
      assert.equal(tokens.token_type.toLowerCase(), 'dpop');
      const claims = await oidc.fetchUserInfo(appConfig, tokens.access_token, tokens.claims()!.sub, { DPoP });
      assert.equal(claims.sub, tokens.claims()!.sub);
      // The bound token as a Bearer token, and with a proof of another key: userinfo says what is wrong, in the admin API's words.
      const bearer = await fetch(url('/oidc/v1/userinfo'), { headers: { authorization: `Bearer ${tokens.access_token}` } });
      assert.equal(bearer.status, 401);
      const explained = 'the access token is DPoP-bound: present it as "Authorization: DPoP" with a proof';
      assert.deepEqual(await bearer.json(), { error: 'invalid_token', error_description: explained });
      assert.match(
        bearer.headers.get('www-authenticate') ?? '',
        /^DPoP .*error="invalid_token", error_description="the access token is DPoP-bound: present it as \\"Authorization: DPoP\\" with a proof"/,
      );
      const otherKey = oidc.getDPoPHandle(appConfig, await newDpopKey());
      await assert.rejects(
        oidc.fetchUserInfo(appConfig, tokens.access_token, tokens.claims()!.sub, { DPoP: otherKey }),
        (error: { status?: number; cause?: { parameters: Record<string, string> }[] }) => {
          // openid-client hands over the WWW-Authenticate challenge (RFC 9449 §7.1).
          assert.equal(error.status, 401, JSON.stringify(error));
          assert.equal(error.cause?.[0]?.parameters.error, 'invalid_token', JSON.stringify(error));
          assert.equal(error.cause?.[0]?.parameters.error_description, 'the DPoP proof is signed with another key than the token is bound to');
          return true;
        },
      );
    });

    it('the console (apiAccess) with DPoP: the admin API and SCIM with proofs, not as Bearer', async () => {
      const consoleConfig = await discover(svc, 'console', oidc.None());
      const key = await newDpopKey();
      const DPoP = oidc.getDPoPHandle(consoleConfig, key);
      const flow = await codeFlow(svc, consoleConfig, `${svc.config.publicUrl}/console/callback`, `openid ${API_SCOPE}`, {
        loginName: 'admin',
        password: ADMIN_PASSWORD,
      });
      const tokens = await flow.exchange({ DPoP });
      assert.equal(tokens.token_type.toLowerCase(), 'dpop');
      const orgs = await oidc.fetchProtectedResource(consoleConfig, tokens.access_token, url('/admin/v1/orgs'), 'GET', undefined, undefined, { DPoP });
      assert.equal(orgs.status, 200, await orgs.clone().text());
      const scim = await oidc.fetchProtectedResource(
        consoleConfig,
        tokens.access_token,
        url(`/scim/v2/${project.orgId}/Users?count=1`),
        'GET',
        undefined,
        undefined,
        { DPoP },
      );
      assert.equal(scim.status, 200);
      assert.equal((await call('GET', '/admin/v1/orgs', { scheme: 'Bearer', token: tokens.access_token })).status, 401);
    });

    it('token exchange: a bound subject token is refused (it would come out unbound), and so is a dpopBoundAccessTokens client', async () => {
      assert.equal((await svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body: { tokenExchange: true } })).status, 200);
      const body = {
        redirectUris: [`${RP}/cb`],
        responseTypes: ['code'],
        grantTypes: ['authorization_code', EXCHANGE],
        authMethod: 'client_secret_basic',
        devMode: true,
      };
      const create = async (extra: object) => {
        const res = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/oidc`, {
          token: svc.adminToken,
          body: { name: `dpop-tx-${randomBytes(3).toString('hex')}`, ...body, ...extra },
        });
        assert.equal(res.status, 201, res.text);
        return res.body as { clientId: string; clientSecret: string };
      };
      const exchanging = await create({});
      const exchangingConfig = await discover(svc, exchanging.clientId, oidc.ClientSecretBasic(exchanging.clientSecret));
      const login = { loginName: `${user.userName}@${primaryDomain}`, password: PASSWORD };
      const DPoP = oidc.getDPoPHandle(exchangingConfig, await newDpopKey());
      const bound = await (await codeFlow(svc, exchangingConfig, `${RP}/cb`, 'openid', login)).exchange({ DPoP });
      const exchange = (client: { clientId: string; clientSecret: string }, subject: string) =>
        postForm(
          svc,
          '/oauth/v2/token',
          { grant_type: EXCHANGE, subject_token: subject, subject_token_type: TOKEN_TYPE.access },
          { id: client.clientId, secret: client.clientSecret },
        );
      const refused = await exchange(exchanging, bound.access_token);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.error, 'invalid_grant');
      const plain = await (await codeFlow(svc, exchangingConfig, `${RP}/cb`, 'openid', login)).exchange();
      assert.equal((await exchange(exchanging, plain.access_token)).status, 200, 'an unbound one is exchanged as before');

      const strict = await create({ dpopBoundAccessTokens: true });
      const strictConfig = await discover(svc, strict.clientId, oidc.ClientSecretBasic(strict.clientSecret));
      const strictDPoP = oidc.getDPoPHandle(strictConfig, await newDpopKey());
      const own = await (await codeFlow(svc, strictConfig, `${RP}/cb`, 'openid', login)).exchange({ DPoP: strictDPoP });
      const strictRefused = await exchange(strict, own.access_token);
      assert.equal(strictRefused.body.error, 'invalid_grant', strictRefused.text);
    });
  });
});

/**
 * The authorization code flow with PKCE, the browser's part over plain HTTP (the login UI's form), the
 * relying party's part through openid-client: `exchange` redeems the code, with the DPoP handle if given.
 */
async function codeFlow(svc: TestService, config: oidc.Configuration, redirectUri: string, scope: string, login: { loginName: string; password: string }) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const authorize = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const browser = new LoginClient(svc.url);
  const first = await browser.get(`${authorize.pathname}${authorize.search}`);
  let location = first.location ?? '';
  if (location.includes('/ui/login/')) {
    const uid = /\/ui\/login\/([^/?]+)/.exec(location)![1];
    const page = await browser.get(location);
    const csrf = /name="csrf" value="([^"]*)"/.exec(page.text)?.[1] ?? '';
    const posted = await browser.post(`/ui/login/${uid}/login`, { csrf, ...login });
    assert.equal(posted.status, 303, posted.text.slice(0, 300));
    location = posted.location ?? '';
    for (let i = 0; i < 10 && location && !location.startsWith(redirectUri); i++) location = (await browser.get(location)).location ?? '';
  }
  assert.ok(location.startsWith(redirectUri), `the redirect URI: ${location}`);
  const callback = new URL(location, svc.url);
  return {
    exchange: (options?: oidc.DPoPOptions) =>
      oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, undefined, options),
  };
}
