import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import type { CryptoKey } from 'jose';
import { countRows, createCaller, searchEvents, unique, useService } from '../support/fixtures.js';
import { createHuman, createOidcApp, createProject, PASSWORD, postForm } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { EXCHANGE, RP, TOKEN_TYPE } from '../oidc/support/token-exchange.js';
import { JWT_BEARER, setUpIdJagTrust, useEnterpriseIdp } from './support/id-jag-instances.js';
import type { IdJagTrust } from './support/id-jag-instances.js';

const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const RESOURCE = 'https://files.example/mcp';

/**
 * docs/agents.md, "Enterprise-managed authorization", between two Portcullis instances: `ent` is the enterprise IdP,
 * which issues ID-JAGs by token exchange for its organization's external resources; `rs` is the MCP server's
 * authorization server, which redeems them with the JWT bearer grant from its organization's upstream IdP `ent`.
 */
/** The enterprise IdP of the test's own (startKeyIssuer). */
interface KeyIssuer {
  issuer: string;
  /** An ID-JAG signed with the current key, named by its `kid` unless another is given. */
  sign: (claims: Record<string, unknown>, typ?: string, kid?: string) => Promise<string>;
  /** A new current key, published beside the old one (a rotation). */
  rotate: () => Promise<void>;
  /** How often its key set was read. */
  keyReads: () => number;
  close: () => void;
}

/**
 * An enterprise IdP of the test's own that issues ID-JAGs with any clock: discovery and its key set, nothing else
 * (OpenID Connect Discovery §3). It stands for "an IdP that issues ID-JAGs" of docs/agents.md.
 */
async function startKeyIssuer(): Promise<KeyIssuer> {
  const published: object[] = [];
  let current!: { kid: string; privateKey: CryptoKey };
  const rotate = async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const kid = `test-issuer-${published.length + 1}`;
    published.push({ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' });
    current = { kid, privateKey };
  };
  await rotate();
  let keyReads = 0;
  let issuer = '';
  const server: Server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      res.end(
        JSON.stringify({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
        }),
      );
    } else if (req.url === '/jwks') {
      keyReads++;
      res.end(JSON.stringify({ keys: published }));
    } else res.writeHead(404).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const sign = (claims: Record<string, unknown>, typ = 'oauth-id-jag+jwt', kid = current.kid) => signWith(current.privateKey, kid, issuer, claims, typ);
  return { issuer, sign, rotate, keyReads: () => keyReads, close: () => server.close() };
}

function signWith(key: CryptoKey, kid: string, iss: string, claims: Record<string, unknown>, typ: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const { iat = now, exp = now + 120, ...rest } = claims as { iat?: number; exp?: number };
  return new SignJWT({ jti: unique('jti'), ...rest })
    .setProtectedHeader({ alg: 'RS256', kid, typ })
    .setIssuer(iss)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key);
}

describe('enterprise-managed authorization (ID-JAG) between two instances', () => {
  const rs = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  const ent = useEnterpriseIdp();
  let keyIssuer: KeyIssuer;
  let entProject: IdJagTrust['entProject'];
  let entAgent: OidcApp;
  let rsProject: IdJagTrust['rsProject'];
  let rsAgent: OidcApp;
  let rsOtherAgent: OidcApp;
  let rsApi: IdJagTrust['rsApi'];
  let idpId: string;
  let owner: IdJagTrust['owner'];
  let alice: IdJagTrust['alice'];
  const basic = (app: OidcApp) => ({ id: app.clientId, secret: app.clientSecret! });
  const externalResources = () => `/management/v1/orgs/${entProject.orgId}/external-resources`;

  async function addExternalResource(body: Record<string, unknown>) {
    const res = await ent.api('POST', externalResources(), {
      token: owner.token,
      body: {
        name: unique('files'),
        issuer: rs.url,
        resource: RESOURCE,
        scopes: ['files:read'],
        clientIdAtIssuer: rsAgent.clientId,
        projectId: entProject.projectId,
        ...body,
      },
    });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  async function idTokenOf(loginName: string): Promise<string> {
    const { tokens, error } = await signIn(ent, {
      clientId: entAgent.clientId,
      clientSecret: entAgent.clientSecret,
      redirectUri: `${RP}/cb`,
      loginName,
      password: PASSWORD,
      scope: 'openid email',
    });
    assert.ok(tokens?.id_token, `signed in: ${error}`);
    return tokens.id_token;
  }

  const exchange = (idToken: string, extra: Record<string, string> = {}) =>
    postForm(
      ent,
      '/oauth/v2/token',
      {
        grant_type: EXCHANGE,
        requested_token_type: ID_JAG,
        subject_token: idToken,
        subject_token_type: TOKEN_TYPE.id,
        audience: rs.url,
        resource: RESOURCE,
        scope: 'files:read',
        ...extra,
      },
      basic(entAgent),
    );

  async function idJagOf(extra: Record<string, string> = {}): Promise<string> {
    const res = await exchange(await idTokenOf(alice.loginName), extra);
    assert.equal(res.status, 200, res.text);
    return res.body.access_token;
  }

  const redeem = (assertion: string, client: OidcApp = rsAgent) => postForm(rs, '/oauth/v2/token', { grant_type: JWT_BEARER, assertion }, basic(client));

  async function refused(assertion: string, description: RegExp, client?: OidcApp) {
    const tokensBefore = await countRows(rs, 'oidc_payloads');
    const res = await redeem(assertion, client);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error, 'invalid_grant', res.text);
    assert.match(res.body.error_description, description);
    assert.ok((await countRows(rs, 'oidc_payloads')) <= tokensBefore + 1, 'no token stored (at most the used jti)');
  }

  /** An ID-JAG of the test's own trusted issuer, with claims and times chosen here (and the key's name, if given). */
  const forged = (claims: Record<string, unknown>, typ?: string, kid?: string) =>
    keyIssuer.sign(
      {
        sub: 'key-issuer-alice',
        aud: rs.url,
        client_id: rsAgent.clientId,
        resource: RESOURCE,
        scope: 'files:read',
        email: alice.email,
        email_verified: true,
        ...claims,
      },
      typ,
      kid,
    );

  before(async () => {
    ({ entProject, owner, entAgent, rsProject, rsApi, rsAgent, idpId, alice } = await setUpIdJagTrust(ent, rs, {
      resource: RESOURCE,
      entAgentAuth: 'client_secret_basic',
    }));
    rsOtherAgent = await createOidcApp(rs, rsProject, { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', JWT_BEARER] }, RP);
    // A second issuer rs trusts: the test's own, whose ID-JAGs carry the claims and times a test chooses.
    keyIssuer = await startKeyIssuer();
    const second = await rs.api('POST', `/management/v1/orgs/${rsProject.orgId}/idps`, {
      token: rs.adminToken,
      body: {
        type: 'oidc',
        name: 'Key issuer',
        issuer: keyIssuer.issuer,
        clientId: 'rs',
        clientSecret: 'unused-secret-2',
        link: { by: 'email', from: 'email' },
        acceptIdJag: true,
      },
    });
    assert.equal(second.status, 201, second.text);
  });

  after(() => keyIssuer?.close());

  it('manages external resources (ORG_OWNER): 400 naming the field, 409 twice, list, remove, events', async () => {
    const bad = await ent.api('POST', externalResources(), {
      token: owner.token,
      body: { name: 'x', issuer: 'not a url', resource: RESOURCE, scopes: [], clientIdAtIssuer: 'c', projectId: entProject.projectId },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /issuer/);
    const badScope = await ent.api('POST', externalResources(), {
      token: owner.token,
      body: { name: 'x', issuer: rs.url, resource: 'https://x.example/a', scopes: ['a b'], clientIdAtIssuer: 'c', projectId: entProject.projectId },
    });
    assert.equal(badScope.status, 400, badScope.text);
    assert.match(badScope.text, /scopes\[0\]/);
    const foreignProject = await createProject(ent);
    const foreign = await ent.api('POST', externalResources(), {
      token: owner.token,
      body: { name: 'x', issuer: rs.url, resource: 'https://x.example/b', scopes: [], clientIdAtIssuer: 'c', projectId: foreignProject.projectId },
    });
    assert.equal(foreign.status, 400, foreign.text);
    assert.match(foreign.text, /projectId/);
    assert.equal((await ent.api('GET', externalResources(), { token: owner.token })).body.total, 0, 'nothing stored');

    const added = await addExternalResource({});
    assert.equal(added.clientIdAtIssuer, rsAgent.clientId);
    const twice = await ent.api('POST', externalResources(), {
      token: owner.token,
      body: { name: 'again', issuer: rs.url, resource: RESOURCE, scopes: [], clientIdAtIssuer: 'c', projectId: entProject.projectId },
    });
    assert.equal(twice.status, 409, twice.text);
    const list = await ent.api('GET', externalResources(), { token: owner.token });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.externalResources.map((r: { id: string }) => r.id),
      [added.id],
    );
    const manager = await createCaller(ent, entProject.orgId, { org: ['ORG_USER_MANAGER'] });
    assert.equal((await ent.api('GET', externalResources(), { token: manager.token })).status, 403);
    const other = await addExternalResource({ resource: 'https://files.example/removed' });
    assert.equal((await ent.api('DELETE', `${externalResources()}/${other.id}`, { token: owner.token })).status, 204);
    assert.equal((await ent.api('DELETE', `${externalResources()}/${other.id}`, { token: owner.token })).status, 404);
    const events = await searchEvents(ent, { event_types: ['org.external_resource.added', 'org.external_resource.removed'] });
    assert.ok(events.some((e) => e.type.type === 'org.external_resource.added' && e.payload.externalResourceId === added.id));
    assert.ok(events.some((e) => e.type.type === 'org.external_resource.removed' && e.payload.externalResourceId === other.id));
  });

  it('reads acceptIdJag back on the IdP', async () => {
    const read = await rs.api('GET', `/management/v1/orgs/${rsProject.orgId}/idps/${idpId}`, { token: rs.adminToken });
    assert.equal(read.body.acceptIdJag, true, read.text);
  });

  it('issues an ID-JAG by token exchange, and the other instance redeems it for a token of the resource, once', async () => {
    const res = await exchange(await idTokenOf(alice.loginName));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.issued_token_type, ID_JAG);
    assert.equal(res.body.token_type, 'N_A');
    assert.ok(res.body.expires_in <= 300);
    const idJag = res.body.access_token;
    assert.equal(decodeProtectedHeader(idJag).typ, 'oauth-id-jag+jwt');
    const claims = decodeJwt(idJag);
    assert.equal(claims.iss, ent.url);
    assert.equal(claims.sub, alice.entId);
    assert.equal(claims.aud, rs.url);
    assert.equal(claims.client_id, rsAgent.clientId);
    assert.equal(claims.resource, RESOURCE);
    assert.equal(claims.scope, 'files:read');
    assert.equal(typeof claims.email, 'string');
    assert.ok(typeof claims.jti === 'string' && claims.jti.length > 0);
    assert.ok(claims.exp! - claims.iat! <= 300);
    const issued = await searchEvents(ent, { event_types: ['user.agent.grant.issued'] });
    assert.ok(issued.some((e) => e.aggregate.id === alice.entId && e.payload.resource === RESOURCE));
    assert.ok(!JSON.stringify(issued).includes(idJag), 'the event carries no token');

    const token = await redeem(idJag);
    assert.equal(token.status, 200, token.text);
    assert.equal(token.body.token_type, 'Bearer');
    assert.equal(token.body.refresh_token, undefined, 'no refresh token');
    assert.equal(token.body.scope, 'files:read');
    const introspected = await postForm(rs, '/oauth/v2/introspect', { token: token.body.access_token }, { id: rsApi.clientId, secret: rsApi.clientSecret });
    assert.equal(introspected.body.active, true, introspected.text);
    assert.deepEqual([introspected.body.aud].flat(), [RESOURCE]);
    assert.equal(introspected.body.sub, alice.rsId, 'linked by the IdP’s e-mail rule');

    await refused(idJag, /already used/);
  });

  it('accepts an ID-JAG once when it is presented twice at the same moment', async () => {
    const idJag = await idJagOf();
    const answers = await Promise.all([redeem(idJag), redeem(idJag)]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400], answers.map((a) => a.text).join('\n'));
    assert.match(answers.find((a) => a.status === 400)!.body.error_description, /already used/);
  });

  it('refuses an ID-JAG for another audience, another resource or another client', async () => {
    await addExternalResource({ issuer: 'https://other-as.example' });
    await refused(await idJagOf({ audience: 'https://other-as.example' }), /audience/);
    await addExternalResource({ resource: 'https://unknown.example/mcp' });
    await refused(await idJagOf({ resource: 'https://unknown.example/mcp' }), /resource/);
    await refused(await idJagOf(), /another client/, rsOtherAgent);
  });

  it('refuses an expired, old or long-lived ID-JAG, typ JWT, and one of an untrusted issuer or key', async () => {
    const now = Math.floor(Date.now() / 1000);
    await refused(await forged({ iat: now - 200, exp: now - 40 }), /expired/);
    await refused(await forged({ iat: now - 400, exp: now + 60 }), /too old|expired|longer/);
    await refused(await forged({ iat: now, exp: now + 600 }), /longer than 300/);
    await refused(await forged({}, 'JWT'), /typ/);
    await refused(await idTokenOf(alice.loginName), /typ/);
    const stranger = await generateKeyPair('RS256');
    const signed = (iss: string) =>
      signWith(
        stranger.privateKey,
        'test-issuer-1',
        iss,
        { sub: alice.entId, aud: rs.url, client_id: rsAgent.clientId, resource: RESOURCE },
        'oauth-id-jag+jwt',
      );
    await refused(await signed(ent.url), /signature/);
    await refused(await signed('https://untrusted.example'), /issuer/);
    // A well-formed ID-JAG from the trusted key is accepted: the refusals above are the checks, not the setup.
    const good = await redeem(await forged({}));
    assert.equal(good.status, 200, good.text);
  });

  it("reads the issuer's keys again at once for an ID-JAG signed with a new key, not for every unknown kid", async () => {
    const warm = await redeem(await forged({}));
    assert.equal(warm.status, 200, warm.text);
    await keyIssuer.rotate();
    const reads = keyIssuer.keyReads();
    const rotated = await redeem(await forged({}));
    assert.equal(rotated.status, 200, `the IdP signs with its new key at once: ${rotated.text}`);
    assert.equal(keyIssuer.keyReads(), reads + 1, 'the key set was read once more');
    // Made-up key names right after: refused without another read (at most one every 30 s per IdP).
    await refused(await forged({}, undefined, 'made-up-1'), /signature/);
    await refused(await forged({}, undefined, 'made-up-2'), /signature/);
    assert.equal(keyIssuer.keyReads(), reads + 1, 'a made-up kid is not looked up again so soon');
  });

  it('refuses to issue for an ungranted user and for an unregistered resource', async () => {
    const bob = await createHuman(ent, entProject.orgId);
    const ungranted = await exchange(await idTokenOf(`${bob.userName}@${entProject.primaryDomain}`));
    assert.equal(ungranted.status, 400, ungranted.text);
    assert.equal(ungranted.body.error, 'invalid_grant');
    assert.match(ungranted.body.error_description, /grant/);
    const unregistered = await exchange(await idTokenOf(alice.loginName), { resource: 'https://nowhere.example/mcp' });
    assert.equal(unregistered.status, 400, unregistered.text);
    assert.equal(unregistered.body.error, 'invalid_target');
  });

  it('refuses an ID-JAG once the IdP no longer accepts them', async () => {
    const idJag = await idJagOf();
    const off = await rs.api('PATCH', `/management/v1/orgs/${rsProject.orgId}/idps/${idpId}`, { token: rs.adminToken, body: { acceptIdJag: false } });
    assert.equal(off.status, 200, off.text);
    await refused(idJag, /issuer/);
    assert.equal(
      (await rs.api('PATCH', `/management/v1/orgs/${rsProject.orgId}/idps/${idpId}`, { token: rs.adminToken, body: { acceptIdJag: true } })).status,
      200,
    );
  });
});
