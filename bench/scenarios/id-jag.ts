/**
 * Enterprise-managed authorization (docs/agents.md): an agent client redeems an ID-JAG with the JWT bearer grant
 * (RFC 7523), a fresh one per request (each `jti` is accepted once), against the pre-registered web client on the
 * same service (WORKERS=1), in alternating rounds (median of three in the full run):
 *
 * - its code flow: a whole sign-in per iteration (authorize → login page → password → resume → code redemption,
 *   bench/peers/login-chain.ts), what a person's client does for the tokens an ID-JAG gives an agent;
 * - its code redemption alone (bench/lib/codes.ts): the token request at the end of that flow, on codes minted
 *   before the timed window (one code each; RFC 6749 §4.1.2);
 * - its rotating refresh: the cheapest repeatable token request of a person.
 *
 * The ID-JAGs come from an issuer of the bench's own (discovery and a key set on loopback) that the organization
 * trusts with `acceptIdJag`; they are signed in autocannon's synchronous `setupRequest` with node:crypto (RS256),
 * the load generator's CPU, not the server's.
 */
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { KeyObject } from 'node:crypto';
import { adminToken, call } from '../lib/api.js';
import { codeRedemptions, mintCodes } from '../lib/codes.js';
import type { Context } from '../lib/context.js';
import { CONNECTIONS, load, perOperation } from '../lib/load.js';
import type { Figures } from '../lib/load.js';
import { freePort, startService } from '../lib/processes.js';
import { loginChain } from '../peers/login-chain.js';
import { alternating } from './oidc.js';
import { refreshRequests } from './oidc-refresh.js';
import { FORM, basic, setUpPortcullis } from './oidc-setup.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const RESOURCE = 'https://files.example/mcp';
const KID = 'bench-issuer-1';
const SIGN_IN_SECONDS = 3;
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An enterprise IdP of the bench's own: OpenID Connect Discovery §3 and its key set, nothing else. */
async function startKeyIssuer(): Promise<{ issuer: string; privateKey: KeyObject; close: () => void }> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' };
  let issuer = '';
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration')
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
    else if (req.url === '/jwks') res.end(JSON.stringify({ keys: [jwk] }));
    else res.writeHead(404).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { issuer, privateKey, close: () => server.close() };
}

export async function runIdJag(ctx: Context): Promise<void> {
  const timing = { seconds: ctx.options.seconds, warmup: ctx.options.warmup };
  const rounds = ctx.options.quick ? 1 : 3;
  const keyIssuer = await startKeyIssuer();
  const store = await ctx.newStore();
  try {
    // The issuer listens on loopback: outbound calls to it are allowed as in the tests.
    const service = await startService(store, 1, await freePort(), { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
    try {
      const admin = adminToken(store.dataDir);
      const t = await setUpPortcullis(service.url, admin);
      if (!t.ids) throw new Error('the id-jag scenario needs a Portcullis target');
      const base = `/management/v1/orgs/${t.ids.orgId}`;
      const project = `${base}/projects/${t.ids.projectId}`;
      await call(service.url, admin, 'POST', `${project}/apps/api`, {
        name: 'files',
        authMethod: 'client_secret_basic',
        resourceUri: RESOURCE,
        scopes: [{ name: 'files:read', description: 'Read your files' }],
      });
      const agent = await call(service.url, admin, 'POST', `${project}/apps/oidc`, {
        name: 'agent',
        redirectUris: [t.web.redirect],
        postLogoutRedirectUris: [],
        responseTypes: ['code'],
        grantTypes: ['authorization_code', JWT_BEARER],
        authMethod: 'client_secret_basic',
        accessTokenType: 'opaque',
        devMode: true,
      });
      await call(service.url, admin, 'POST', `${base}/idps`, {
        type: 'oidc',
        name: 'Bench enterprise IdP',
        issuer: keyIssuer.issuer,
        clientId: 'bench',
        clientSecret: 'unused-bench-secret',
        link: { by: 'email', from: 'email' },
        acceptIdJag: true,
      });
      const header = b64({ alg: 'RS256', kid: KID, typ: 'oauth-id-jag+jwt' });
      const idJag = () => {
        const now = Math.floor(Date.now() / 1000);
        const input = `${header}.${b64({
          iss: keyIssuer.issuer,
          sub: 'bench-enterprise-user',
          aud: service.url,
          client_id: agent.clientId,
          resource: RESOURCE,
          scope: 'files:read',
          email: 'bench@example.com',
          email_verified: true,
          jti: randomUUID(),
          iat: now,
          exp: now + 120,
        })}`;
        return `${input}.${sign('sha256', Buffer.from(input), keyIssuer.privateKey).toString('base64url')}`;
      };
      const agentBasic = basic({ id: agent.clientId, secret: agent.clientSecret });
      const first = await fetch(`${service.url}/oauth/v2/token`, {
        method: 'POST',
        headers: { ...FORM, authorization: agentBasic },
        body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: idJag() }),
      });
      if (first.status !== 200) throw new Error(`ID-JAG redemption answered ${first.status} ${await first.text()}`);

      const measure = (requests: () => Promise<Record<string, unknown>[]>) => async () => {
        const { socketErrors: _, ...figures } = await load(service.url, service.pid, timing, await requests());
        return figures;
      };
      const redemption = measure(async () => [
        {
          method: 'POST',
          path: '/oauth/v2/token',
          setupRequest: (req: Record<string, unknown>) => ({
            ...req,
            headers: { ...FORM, authorization: agentBasic },
            body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: idJag() }).toString(),
          }),
        },
      ]);
      let refreshRate = 0;
      const refresh = async () => {
        const figures = await measure(() => refreshRequests(t, CONNECTIONS, timing.warmup > 0))();
        refreshRate = figures.rate;
        return figures;
      };
      const codeFlow = async () => {
        const done = { logins: 0, failed: 0 };
        // At least 3 s: a connection's first sign-in (its password check queued behind nine others) takes about a
        // second on this VM, so the quick run's 1 s completed none. No warm-up, as for the OIDC group's logins: it
        // would sign in too, and bcrypt bounds sign-ins.
        const seconds = Math.max(timing.seconds, SIGN_IN_SECONDS);
        const figures = await load(service.url, service.pid, { seconds, warmup: 0 }, loginChain(t, done));
        return perOperation(figures, seconds, { completed: done.logins, failed: done.failed });
      };
      const codeRedemption = async () => {
        // Codes for four times what the refresh answered in this round: a redemption rotates nothing and ran up to
        // 2.4 times the refresh's rate on MariaDB. Minted in one session, used oldest first, well within their 60 s
        // lifetime (src/oidc/provider/provider.factory.ts).
        const count = Math.max(500, Math.ceil(4 * refreshRate * (timing.seconds + timing.warmup)));
        const pool = await mintCodes(service.url, t.web, t.login, count);
        const figures = await measure(async () => codeRedemptions(pool, t.web))();
        if (pool.length === 0) throw new Error(`the ${count} codes minted for the code redemption ran out: more are needed`);
        return figures;
      };
      const [jag, registered, signIn, redeemed] = await alternating(rounds, [redemption, refresh, codeFlow, codeRedemption]);
      const server = { kind: 'portcullis' as const, server: 'Portcullis WORKERS=1', workers: 1 };
      const reqs = { ...server, unit: 'req/s' as const };
      ctx.record({ scenario: 'id-jag.redemption', label: 'ID-JAG redemption (JWT bearer grant, fresh ID-JAG each)', ...reqs, ...jag });
      ctx.record({
        scenario: 'id-jag.code-flow-registered',
        label: 'code-flow sign-in of a pre-registered client (password, same run)',
        ...server,
        unit: 'sign-ins/s',
        ...signIn,
        hashing: true,
      });
      ctx.record({ scenario: 'id-jag.code-redemption-registered', label: 'code redemption of a pre-registered client (same run)', ...reqs, ...redeemed });
      ctx.record({ scenario: 'id-jag.refresh-registered', label: 'refresh token grant of a pre-registered client (same run)', ...reqs, ...registered });
      console.error(
        `  ID-JAG redemption against the registered client: code-flow sign-in ${ratios(jag, signIn)}; code redemption ${ratios(jag, redeemed)}; refresh ${ratios(jag, registered)}`,
      );
    } finally {
      await service.stop();
    }
  } finally {
    keyIssuer.close();
    await store.drop();
  }
}

/** The rate and the CPU per request of the redemption as multiples of the other lane's (per sign-in for the code flow). */
function ratios(jag: Figures, other: Figures): string {
  // A 1 s quick run on a loaded machine may complete no sign-in at all.
  if (other.rate === 0) return 'none completed';
  const cpu = jag.cpuUs !== undefined && other.cpuUs ? `, CPU ${(jag.cpuUs / other.cpuUs).toFixed(3)}×` : '';
  return `rate ${(jag.rate / other.rate).toFixed(2)}×${cpu}`;
}
