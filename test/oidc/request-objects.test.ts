import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { LoginClient } from '../attack/support/login-client.js';
import type { PageResponse } from '../attack/support/login-client.js';
import { useService } from '../support/fixtures.js';
import { spawnSecondProcess } from '../support/process.js';
import type { TestService } from '../support/service.js';
import { PASSWORD, createAppKey, createHuman, createOidcApp, createProject, discover } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';

const RP = 'http://127.0.0.1:65530';
const REDIRECT = `${RP}/cb`;

/** The rows of the used-jti store (grants/assertion-replay.ts), which request objects share with DPoP proofs and assertions. */
async function usedJtiRows(svc: TestService): Promise<number> {
  const [{ n }] = await svc.dataSource.query("SELECT COUNT(*) AS n FROM oidc_payloads WHERE model = 'JwtAssertionUse'");
  return Number(n);
}

/**
 * Signed request objects (JAR, RFC 9101) as clients send them: openid-client 6's, with a `jti` that is used once
 * (§10.8), and objects without `exp` as Apache's mod_auth_openidc sends them (test/oidc/apache-rp.test.ts drives the
 * module itself), accepted unless the application asks for `exp`.
 */
describe('request objects: single use by jti, and exp optional unless the application asks for it', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let loginName: string;

  before(async () => {
    project = await createProject(svc);
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
  });

  /** A private_key_jwt application with a key, and openid-client configured to sign with it. */
  async function jarClient(settings: Record<string, unknown> = {}) {
    const app = await createOidcApp(svc, project, { authMethod: 'private_key_jwt', settings }, RP);
    const key = await createAppKey(svc, app);
    const signingKey = await crypto.subtle.importKey(
      'pkcs8',
      createPrivateKey(key.key).export({ format: 'der', type: 'pkcs8' }),
      { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    const config = await discover(svc, app.clientId, oidc.PrivateKeyJwt({ key: signingKey, kid: key.keyId }));
    return { app, key, signingKey, config };
  }

  async function codeFlowParams() {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    return {
      verifier,
      state,
      params: {
        redirect_uri: REDIRECT,
        scope: 'openid',
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      },
    };
  }

  /** Follows an authorization URL through the password sign-in to the redirect back to the client. */
  async function signIn(url: URL): Promise<PageResponse> {
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin(Object.fromEntries(url.searchParams));
    let res = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD });
    while (res.location && !res.location.startsWith(RP)) res = await browser.get(res.location);
    assert.ok(res.location?.startsWith(REDIRECT), `back at the client: ${res.status} ${res.location} ${res.text.slice(0, 300)}`);
    return res;
  }

  /** The error an authorization request is refused with before any sign-in (the error page: its redirect URI is not trusted). */
  async function refusal(url: URL): Promise<{ error?: string; text: string }> {
    const res = await new LoginClient(svc.url).get(`${url.pathname}${url.search}`);
    assert.ok(!res.location?.includes('/ui/login/'), `refused before any sign-in: ${res.status} ${res.location}`);
    if (res.location) return { error: new URL(res.location).searchParams.get('error') ?? undefined, text: res.location };
    assert.equal(res.status, 400, res.text.slice(0, 300));
    return { error: /data-error="([^"]+)"/.exec(res.text)?.[1], text: res.text };
  }

  /** A request object signed with the application's key (or `signer`), its claims changed by `change`. */
  async function requestObject(
    client: { app: OidcApp; key: { keyId: string; key: string } },
    change: (claims: Record<string, unknown>) => void,
    signer?: Parameters<SignJWT['sign']>[0],
  ) {
    const { params, verifier, state } = await codeFlowParams();
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      iss: client.app.clientId,
      client_id: client.app.clientId,
      aud: svc.config.publicUrl,
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
      response_type: 'code',
      ...params,
    };
    change(claims);
    const request = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: client.key.keyId }).sign(signer ?? createPrivateKey(client.key.key));
    const url = new URL('/oauth/v2/authorize', svc.url);
    url.search = new URLSearchParams({ client_id: client.app.clientId, request }).toString();
    return { url, request, verifier, state };
  }

  it('openid-client: a request object opens one authorization; the same one again is refused (RFC 9101 §10.8), and nothing is issued for it', async () => {
    const { config, signingKey, key } = await jarClient();
    const { params, verifier, state } = await codeFlowParams();
    const url = await oidc.buildAuthorizationUrlWithJAR(config, params, { key: signingKey, kid: key.keyId });
    const back = await signIn(url);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(back.location!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: true,
    });
    assert.ok(tokens.access_token);
    const replayed = await refusal(url);
    assert.equal(replayed.error, 'invalid_request_object', replayed.text.slice(0, 300));
    assert.match(replayed.text, /already used/);
  });

  it('two processes of one instance: the same request object sent to both at once opens one authorization', async () => {
    const client = await jarClient();
    const second = await spawnSecondProcess(svc);
    try {
      const { url } = await requestObject(client, () => {});
      const path = `${url.pathname}${url.search}`;
      const answers = await Promise.all([new LoginClient(svc.url).get(path), new LoginClient(second.url, {}, svc.config.publicUrl).get(path)]);
      const opened = answers.filter((res) => res.status === 303 && res.location?.includes('/ui/login/'));
      const refused = answers.filter((res) => res.status === 400 && /data-error="invalid_request_object"/.test(res.text));
      assert.equal(opened.length, 1, answers.map((res) => `${res.status} ${res.location ?? res.text.slice(0, 200)}`).join('\n'));
      assert.equal(refused.length, 1);
    } finally {
      await second.stop();
    }
  });

  it('a forged request object naming a jti uses nothing up: refused, no row written, and the signed one with that jti still works', async () => {
    const client = await jarClient();
    const jti = randomUUID();
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const rowsBefore = await usedJtiRows(svc);
    const forged = await requestObject(client, (c) => (c.jti = jti), other);
    assert.equal((await refusal(forged.url)).error, 'invalid_request_object');
    assert.equal(await usedJtiRows(svc), rowsBefore, 'the forged object recorded no jti');
    const genuine = await requestObject(client, (c) => (c.jti = jti));
    await signIn(genuine.url);
    assert.equal(await usedJtiRows(svc), rowsBefore + 1);
  });

  it('PAR: a pushed request object is used once at the PAR endpoint; its request_uri signs in, pushing it again is refused', async () => {
    const { config, signingKey, key } = await jarClient();
    const { params, verifier, state } = await codeFlowParams();
    const { searchParams } = await oidc.buildAuthorizationUrlWithJAR(config, params, { key: signingKey, kid: key.keyId });
    const pushed = await oidc.buildAuthorizationUrlWithPAR(config, searchParams);
    const back = await signIn(pushed);
    assert.ok((await oidc.authorizationCodeGrant(config, new URL(back.location!), { pkceCodeVerifier: verifier, expectedState: state })).access_token);
    await assert.rejects(oidc.buildAuthorizationUrlWithPAR(config, searchParams), (error: { error?: string; error_description?: string }) => {
      assert.equal(error.error, 'invalid_request_object', JSON.stringify(error));
      return true;
    });
  });

  it('without exp (as mod_auth_openidc sends them): accepted, bounded by iat, used once by jti; an application with requestObjectRequiresExp refuses it', async () => {
    const client = await jarClient();
    const noExp = await requestObject(client, (c) => delete c.exp);
    await signIn(noExp.url);
    assert.equal((await refusal(noExp.url)).error, 'invalid_request_object', 'its jti is used once');
    const bare = await requestObject(client, (c) => (delete c.exp, delete c.iat, delete c.jti));
    await signIn(bare.url);
    const old = await requestObject(client, (c) => (delete c.exp, (c.iat = Math.floor(Date.now() / 1000) - 3700)));
    const tooOld = await refusal(old.url);
    assert.equal(tooOld.error, 'invalid_request_object');
    assert.match(tooOld.text, /without &#39;exp&#39;|without 'exp'/);
    const living = await requestObject(client, (c) => (c.exp = Number(c.iat) + 2 * 3600));
    assert.equal((await refusal(living.url)).error, 'invalid_request_object', 'exp an hour past iat at most, as before');

    const strict = await jarClient({ requestObjectRequiresExp: true });
    const refused = await refusal((await requestObject(strict, (c) => delete c.exp)).url);
    assert.equal(refused.error, 'invalid_request_object');
    assert.match(refused.text, /missing the &#39;exp&#39; claim|missing the 'exp' claim/);
    await signIn((await requestObject(strict, () => {})).url);
  });

  it('requestObjectRequiresExp: read back, changed by PATCH, and refused without private_key_jwt with the field named (nothing changed)', async () => {
    const { app } = await jarClient({ requestObjectRequiresExp: true });
    const path = `/management/v1/orgs/${app.orgId}/projects/${app.projectId}/apps/${app.appId}`;
    assert.equal((await svc.api('GET', path, { token: svc.adminToken })).body.requestObjectRequiresExp, true);
    const off = await svc.api('PATCH', path, { token: svc.adminToken, body: { requestObjectRequiresExp: false } });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.requestObjectRequiresExp, false);
    const secret = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    const secretPath = `/management/v1/orgs/${secret.orgId}/projects/${secret.projectId}/apps/${secret.appId}`;
    const refused = await svc.api('PATCH', secretPath, { token: svc.adminToken, body: { requestObjectRequiresExp: true } });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(
      refused.body.details.map((d: { field: string }) => d.field),
      ['requestObjectRequiresExp'],
    );
    assert.equal((await svc.api('GET', secretPath, { token: svc.adminToken })).body.requestObjectRequiresExp, false);
  });
});
