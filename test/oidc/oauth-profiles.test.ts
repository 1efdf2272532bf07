import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { SignJWT, UnsecuredJWT, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { LoginClient } from '../attack/support/login-client.js';
import type { PageResponse } from '../attack/support/login-client.js';
import { useService } from '../support/fixtures.js';
import { PASSWORD, createAppKey, createHuman, createOidcApp, createProject, discover } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';

const RP = 'http://127.0.0.1:65530';
const REDIRECT = `${RP}/cb`;

/**
 * The profiles of the authorization request and response (docs/oauth-profiles.md), driven by openid-client 6 as a relying party
 * would: PAR required per application (RFC 9126 §6), request objects signed with the application's keys (JAR,
 * RFC 9101) and required per application, and signed authorization responses (JARM).
 */
describe('OAuth profiles: PAR required, JAR and JARM (openid-client 6)', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let loginName: string;
  let doc: Record<string, unknown>;

  before(async () => {
    project = await createProject(svc);
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
    doc = (await (await fetch(new URL('/.well-known/openid-configuration', svc.url))).json()) as Record<string, unknown>;
  });

  it('discovery advertises exactly the profiles that are on (docs/oauth-profiles.md), and none that are not', () => {
    const endpoint = (path: string) => `${svc.config.publicUrl}${path}`;
    assert.equal(doc.pushed_authorization_request_endpoint, endpoint('/oauth/v2/par'));
    assert.equal(doc.device_authorization_endpoint, endpoint('/oauth/v2/device_authorization'));
    assert.ok((doc.grant_types_supported as string[]).includes('urn:ietf:params:oauth:grant-type:device_code'));
    assert.equal(doc.request_parameter_supported, true);
    assert.equal(doc.request_uri_parameter_supported, false);
    assert.ok((doc.response_modes_supported as string[]).includes('form_post.jwt'));
    assert.ok(Array.isArray(doc.dpop_signing_alg_values_supported) && (doc.dpop_signing_alg_values_supported as string[]).length > 0);
    assert.equal(doc.backchannel_logout_supported, true);
    assert.equal(doc.backchannel_logout_session_supported, true);
    // Not offered yet: dynamic registration, CIBA, mTLS; and no front-channel or session-iframe logout.
    for (const absent of [
      'registration_endpoint',
      'backchannel_authentication_endpoint',
      'mtls_endpoint_aliases',
      'tls_client_certificate_bound_access_tokens',
      'frontchannel_logout_supported',
      'check_session_iframe',
    ]) {
      assert.ok(!(absent in doc), `${absent} is not advertised`);
    }
  });

  /** Follows an authorization URL through the password sign-in to the response that leaves the service. */
  async function signIn(url: URL): Promise<PageResponse> {
    const browser = new LoginClient(svc.url);
    const { uid, csrf } = await browser.startLogin(Object.fromEntries(url.searchParams));
    let res = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD });
    while (res.location && !res.location.startsWith(RP)) res = await browser.get(res.location);
    return res;
  }

  /** The error an authorization request ends in, whether redirected to the client or shown on the error page; never the login UI. */
  async function authorizationError(params: Record<string, string>): Promise<string | undefined> {
    const res = await new LoginClient(svc.url).get(`/oauth/v2/authorize?${new URLSearchParams(params)}`);
    assert.ok(!res.location?.includes('/ui/login/'), `refused before any sign-in: ${res.status} ${res.location}`);
    if (res.location) return new URL(res.location).searchParams.get('error') ?? undefined;
    assert.equal(res.status, 400, res.text.slice(0, 300));
    return /data-error="([^"]+)"/.exec(res.text)?.[1];
  }

  async function codeFlowUrl(config: oidc.Configuration, extra: Record<string, string> = {}) {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const params = {
      redirect_uri: REDIRECT,
      scope: 'openid profile',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...extra,
    };
    return { params, verifier, state };
  }

  describe('PAR required per application', () => {
    let app: OidcApp;
    before(async () => {
      app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic', settings: { requirePushedAuthorizationRequests: true } }, RP);
    });

    it('refuses an authorization request sent by the browser, before any sign-in', async () => {
      const error = await authorizationError({ client_id: app.clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid', state: 's' });
      assert.equal(error, 'invalid_request');
      assert.notEqual(doc.require_pushed_authorization_requests, true, 'required per application, not for the instance');
    });

    it('signs the user in when the client pushes its request first', async () => {
      const config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
      const { params, verifier, state } = await codeFlowUrl(config);
      const url = await oidc.buildAuthorizationUrlWithPAR(config, params);
      const back = await signIn(url);
      assert.ok(back.location?.startsWith(REDIRECT), `back at the client: ${back.status} ${back.location}`);
      const tokens = await oidc.authorizationCodeGrant(config, new URL(back.location!), {
        pkceCodeVerifier: verifier,
        expectedState: state,
        idTokenExpected: true,
      });
      assert.ok(tokens.access_token);
    });

    it('an application without PAR cannot be told to require it: a client-credentials-only API of the app is refused with the field named', async () => {
      const res = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/oidc`, {
        token: svc.adminToken,
        body: {
          name: 'no redirect',
          redirectUris: [],
          responseTypes: [],
          grantTypes: [],
          authMethod: 'client_secret_basic',
          requirePushedAuthorizationRequests: true,
        },
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(
        res.body.details.map((d: { field: string }) => d.field),
        ['requirePushedAuthorizationRequests'],
      );
    });
  });

  describe('JAR: request objects signed with the application key, required per application', () => {
    let app: OidcApp;
    let key: { keyId: string; key: string };
    let config: oidc.Configuration;
    let signingKey: CryptoKey;

    before(async () => {
      app = await createOidcApp(svc, project, { authMethod: 'private_key_jwt', settings: { requireSignedRequestObject: true } }, RP);
      key = await createAppKey(svc, app);
      signingKey = await crypto.subtle.importKey(
        'pkcs8',
        createPrivateKey(key.key).export({ format: 'der', type: 'pkcs8' }),
        { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
        false,
        ['sign'],
      );
      config = await discover(svc, app.clientId, oidc.PrivateKeyJwt({ key: signingKey, kid: key.keyId }));
    });

    it('discovery says request objects are supported, by value and signed with the enabled algorithms only', () => {
      assert.equal(doc.request_parameter_supported, true);
      assert.equal(doc.request_uri_parameter_supported, false);
      assert.ok(Array.isArray(doc.request_object_signing_alg_values_supported));
      assert.ok(
        !(doc.request_object_signing_alg_values_supported as string[]).some((alg) => alg === 'none' || alg.startsWith('HS')),
        String(doc.request_object_signing_alg_values_supported),
      );
    });

    it('a signed request object signs the user in, and the code is redeemed with private_key_jwt', async () => {
      const { params, verifier, state } = await codeFlowUrl(config);
      const url = await oidc.buildAuthorizationUrlWithJAR(config, params, { key: signingKey, kid: key.keyId });
      assert.deepEqual([...url.searchParams.keys()].sort(), ['client_id', 'request']);
      const back = await signIn(url);
      assert.ok(back.location?.startsWith(REDIRECT), `back at the client: ${back.status} ${back.location}`);
      const tokens = await oidc.authorizationCodeGrant(config, new URL(back.location!), {
        pkceCodeVerifier: verifier,
        expectedState: state,
        idTokenExpected: true,
      });
      assert.ok(tokens.access_token);
    });

    it('a plain request is refused: the application requires request objects', async () => {
      const error = await authorizationError({
        client_id: app.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        state: 's',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      });
      assert.equal(error, 'invalid_request');
    });

    /** A request object as a client would sign it, changed by `change`; `signer` and `header` replace the key and the header. */
    async function requestObject(
      change: (claims: Record<string, unknown>) => void,
      signer?: { key: Parameters<SignJWT['sign']>[0]; kid: string },
    ): Promise<string> {
      const now = Math.floor(Date.now() / 1000);
      const claims: Record<string, unknown> = {
        iss: app.clientId,
        client_id: app.clientId,
        aud: svc.config.publicUrl,
        iat: now,
        exp: now + 300,
        jti: randomUUID(),
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        state: 's',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      };
      change(claims);
      const using = signer ?? { key: createPrivateKey(key.key), kid: key.keyId };
      return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: using.kid, typ: 'oauth-authz-req+jwt' }).sign(using.key);
    }

    it('request objects with a wrong audience, expired, without aud, living for days, or signed by another key are refused as invalid_request_object', async () => {
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const now = Math.floor(Date.now() / 1000);
      // One without exp is accepted unless the application asks for exp: test/oidc/request-objects.test.ts.
      const cases: [string, string][] = [
        ['a wrong aud', await requestObject((c) => (c.aud = 'https://another-issuer.example'))],
        ['expired', await requestObject((c) => ((c.iat = now - 900), (c.exp = now - 600)))],
        ['without aud', await requestObject((c) => delete c.aud)],
        ['living for days', await requestObject((c) => (c.exp = now + 3 * 86400))],
        ['signed by another key under the registered kid', await requestObject(() => {}, { key: other, kid: key.keyId })],
      ];
      for (const [name, request] of cases) {
        const error = await authorizationError({ client_id: app.clientId, request });
        assert.equal(error, 'invalid_request_object', name);
      }
    });

    it('an unsigned request object (alg none) is refused', async () => {
      const now = Math.floor(Date.now() / 1000);
      const request = new UnsecuredJWT({
        iss: app.clientId,
        client_id: app.clientId,
        aud: svc.config.publicUrl,
        iat: now,
        exp: now + 300,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
      }).encode();
      const error = await authorizationError({ client_id: app.clientId, request });
      assert.ok(error === 'invalid_request_object' || error === 'invalid_request', String(error));
    });

    it('requireSignedRequestObject needs keys: refused for a client_secret_basic application, with the field named', async () => {
      const res = await svc.api('PATCH', `/management/v1/orgs/${app.orgId}/projects/${app.projectId}/apps/${app.appId}`, {
        token: svc.adminToken,
        body: { authMethod: 'client_secret_basic' },
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(
        res.body.details.map((d: { field: string }) => d.field),
        ['requireSignedRequestObject'],
      );
    });
  });

  describe('JARM: signed authorization responses', () => {
    let app: OidcApp;
    let config: oidc.Configuration;
    const jwks = () => createRemoteJWKSet(new URL(String(doc.jwks_uri)));

    before(async () => {
      app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
      config = await discover(svc, app.clientId, oidc.ClientSecretBasic(app.clientSecret!));
      oidc.useJwtResponseMode(config);
    });

    it('discovery lists the JWT response modes and the signing algorithm', () => {
      for (const mode of ['jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt']) assert.ok((doc.response_modes_supported as string[]).includes(mode), mode);
      assert.ok((doc.authorization_signing_alg_values_supported as string[]).includes('RS256'));
    });

    it('response_mode=jwt: the code comes back inside a response JWT that openid-client verifies, signed with the instance key for this client', async () => {
      const { params, verifier, state } = await codeFlowUrl(config, { response_mode: 'jwt' });
      const back = await signIn(oidc.buildAuthorizationUrl(config, params));
      const callback = new URL(back.location!);
      assert.deepEqual([...callback.searchParams.keys()], ['response'], 'nothing but the signed response');
      const response = callback.searchParams.get('response')!;
      const { payload, protectedHeader } = await jwtVerify(response, jwks(), { issuer: svc.config.publicUrl, audience: app.clientId });
      assert.equal(protectedHeader.alg, 'RS256');
      assert.equal(payload.state, state);
      assert.ok(typeof payload.code === 'string');
      const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, idTokenExpected: true });
      assert.ok(tokens.access_token);
    });

    it('response_mode=form_post.jwt: the auto-submitted form carries only the signed response', async () => {
      const { params, state } = await codeFlowUrl(config);
      // openid-client asks for response_mode=jwt whenever JARM is on; a form_post.jwt client states its mode itself.
      const url = oidc.buildAuthorizationUrl(config, params);
      url.searchParams.set('response_mode', 'form_post.jwt');
      const browser = new LoginClient(svc.url);
      const { uid, csrf } = await browser.startLogin(Object.fromEntries(url.searchParams));
      let res = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName, password: PASSWORD });
      while (res.location && !res.location.startsWith(RP)) res = await browser.get(res.location);
      const fields = [...res.text.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)].map((m) => [m[1], m[2]]);
      assert.ok(res.text.includes(`action="${REDIRECT}"`), res.text.slice(0, 500));
      assert.deepEqual(
        fields.map(([name]) => name),
        ['response'],
      );
      const { payload } = await jwtVerify(fields[0]![1]!, jwks(), { issuer: svc.config.publicUrl, audience: app.clientId });
      assert.equal(payload.state, state);
    });

    it('a tampered response JWT is refused by the client (the signature covers the code)', async () => {
      const { params, verifier, state } = await codeFlowUrl(config, { response_mode: 'jwt' });
      const back = await signIn(oidc.buildAuthorizationUrl(config, params));
      const callback = new URL(back.location!);
      const [h, p, s] = callback.searchParams.get('response')!.split('.');
      const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
      claims.code = `${claims.code}x`;
      callback.searchParams.set('response', [h, Buffer.from(JSON.stringify(claims)).toString('base64url'), s].join('.'));
      await assert.rejects(oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }));
      assert.equal(decodeProtectedHeader(callback.searchParams.get('response')!).alg, 'RS256');
    });

    it("authorizationSignedResponseAlg: the instance's algorithm is accepted; another is refused with the field named", async () => {
      const appsUrl = `/management/v1/orgs/${app.orgId}/projects/${app.projectId}/apps/${app.appId}`;
      const same = await svc.api('PATCH', appsUrl, { token: svc.adminToken, body: { authorizationSignedResponseAlg: 'RS256' } });
      assert.equal(same.status, 200, same.text);
      assert.equal(same.body.authorizationSignedResponseAlg, 'RS256');
      const other = await svc.api('PATCH', appsUrl, { token: svc.adminToken, body: { authorizationSignedResponseAlg: 'ES256' } });
      assert.equal(other.status, 400, other.text);
      assert.deepEqual(
        other.body.details.map((d: { field: string }) => d.field),
        ['authorizationSignedResponseAlg'],
      );
      const unknown = await svc.api('PATCH', appsUrl, { token: svc.adminToken, body: { authorizationSignedResponseAlg: 'HS256' } });
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal(
        (await svc.api('GET', appsUrl, { token: svc.adminToken })).body.authorizationSignedResponseAlg,
        'RS256',
        'nothing changed by the refused requests',
      );
    });
  });
});
