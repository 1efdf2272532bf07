/**
 * Clients known by their Client ID Metadata Document (docs/agents.md, "Client ID Metadata Documents"): the client_id
 * is an https URL whose document the service fetches once and keeps (at least 5 minutes), where a pre-registered
 * client's registration is read from the database (and kept a second, src/oidc/adapter/client.store.ts); such a
 * client serves the organization of the resource it names, whose policy is checked again at the token endpoint.
 * Against it, a pre-registered public client of the same shape (token_endpoint_auth_method `none`, PKCE S256, the
 * same resource, scopes and redirect URI) on the same service (WORKERS=1), in alternating rounds (median of three in
 * the full run):
 *
 * - the refresh-token grant (rotating, bench/scenarios/oidc-refresh.ts): the cheapest repeatable request that looks
 *   the client up;
 * - a whole sign-in per iteration (authorize → login page → password → resume → code redemption,
 *   bench/peers/login-chain.ts), consent already given (remembered from the set-up's sign-in).
 *
 * The document is served by the bench itself over https, with a certificate of a throw-away CA that the service
 * trusts through NODE_EXTRA_CA_CERTS, on loopback (OUTBOUND_ALLOW_PRIVATE_NETWORKS). The server counts its fetches:
 * the run fails if any measurement fetched the document again.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { throwAwayCa } from '../../test/support/throw-away-ca.js';
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { CONNECTIONS, load, perOperation } from '../lib/load.js';
import { freePort, startService } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';
import { codeChallenge, publicSignIn } from '../lib/sign-in.js';
import type { PublicClient } from '../lib/sign-in.js';
import { loginChain } from '../peers/login-chain.js';
import { alternating } from './oidc.js';
import { poolSize, rotatingRefreshRequests } from './oidc-refresh.js';
import { REDIRECT, setUpPortcullis } from './oidc-setup.js';
import type { OidcTarget } from './oidc-setup.js';

const RESOURCE = 'https://files.example/mcp';
const SCOPE = 'files:read';
const DOCUMENT_PATH = '/agent/client.json';

/** The https server of the client's metadata document, and how many times it was fetched. */
interface DocumentServer {
  clientId: string;
  ca: string;
  fetches(): number;
  close(): void;
}

async function startDocumentServer(): Promise<DocumentServer> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-cimd-'));
  try {
    const tls = throwAwayCa(dir);
    let fetches = 0;
    let clientId = '';
    const server = createServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (req, res) => {
      if (req.url !== DOCUMENT_PATH) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      fetches++;
      const document = {
        client_id: clientId,
        client_name: 'Bench agent',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
      // A day, the longest the service keeps a document: a refetch within the run is the service's, not the header's.
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=86400' }).end(JSON.stringify(document));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    clientId = `https://127.0.0.1:${(server.address() as { port: number }).port}${DOCUMENT_PATH}`;
    return {
      clientId,
      ca: tls.ca,
      fetches: () => fetches,
      close: () => {
        server.closeAllConnections();
        server.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

export async function runCimd(ctx: Context): Promise<void> {
  const timing = { seconds: ctx.options.seconds, warmup: ctx.options.warmup };
  const rounds = ctx.options.quick ? 1 : 3;
  const documents = await startDocumentServer();
  const store = await ctx.newStore();
  try {
    // The document's host is loopback, reached as in the tests; the CA is the bench's own.
    const service = await startService(store, 1, await freePort(), { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', NODE_EXTRA_CA_CERTS: documents.ca });
    try {
      const t = await setUpPortcullis(service.url, adminToken(store.dataDir));
      const [agent, registered] = await publicClients(t, adminToken(store.dataDir), documents.clientId);
      // The person consents to the agent once; one sign-in of the registered twin proves that it works.
      await publicSignIn(service.url, agent, t.login.name, t.login.password, { scope: `${SCOPE} offline_access`, prompt: 'consent' });
      await publicSignIn(service.url, registered, t.login.name, t.login.password);
      const fetched = documents.fetches();
      if (fetched !== 1) throw new Error(`the metadata document was fetched ${fetched} times during the set-up, not once`);

      const refresh = (client: PublicClient) => async () => {
        const { socketErrors: _, ...figures } = await load(
          service.url,
          service.pid,
          timing,
          await publicRefreshRequests(service, t, client, timing.warmup > 0),
        );
        return figures;
      };
      const signIns = (client: PublicClient) => async () => {
        const done = { logins: 0, failed: 0 };
        const chain = loginChain(t, done, {
          id: client.id,
          redirect: client.redirect,
          scope: client.scope,
          authorize: { resource: client.resource, code_challenge: codeChallenge(client.verifier), code_challenge_method: 'S256' },
          redeem: { code_verifier: client.verifier, resource: client.resource },
        });
        // No warm-up, as for the OIDC group's logins: it would sign in too, and bcrypt bounds sign-ins.
        const figures = await load(service.url, service.pid, { seconds: timing.seconds, warmup: 0 }, chain);
        return perOperation(figures, timing.seconds, { completed: done.logins, failed: done.failed });
      };
      const [agentRefresh, registeredRefresh] = await alternating(rounds, [refresh(agent), refresh(registered)]);
      const [agentSignIn, registeredSignIn] = await alternating(rounds, [signIns(agent), signIns(registered)]);
      if (documents.fetches() !== fetched)
        throw new Error(`the metadata document was fetched ${documents.fetches() - fetched} more times during the measurements: not cached`);

      const server = { kind: 'portcullis' as const, server: 'Portcullis WORKERS=1', workers: 1 };
      ctx.record({ scenario: 'cimd.refresh', label: 'refresh token grant of a CIMD client (document cached)', ...server, unit: 'req/s', ...agentRefresh });
      ctx.record({
        scenario: 'cimd.refresh-registered',
        label: 'refresh token grant of a pre-registered public client (same run)',
        ...server,
        unit: 'req/s',
        ...registeredRefresh,
      });
      ctx.record({
        scenario: 'cimd.sign-in',
        label: 'code-flow sign-in with PKCE of a CIMD client (consent given, document cached)',
        ...server,
        unit: 'sign-ins/s',
        ...agentSignIn,
      });
      ctx.record({
        scenario: 'cimd.sign-in-registered',
        label: 'code-flow sign-in with PKCE of a pre-registered public client (same run)',
        ...server,
        unit: 'sign-ins/s',
        ...registeredSignIn,
      });
      console.error(`  CIMD client: refresh ${ratios(agentRefresh, registeredRefresh)}; sign-in ${ratios(agentSignIn, registeredSignIn)}`);
    } finally {
      await service.stop();
    }
  } finally {
    documents.close();
    await store.drop();
  }
}

/** The rate and the CPU per request (or sign-in) of the CIMD client as multiples of the registered client's. */
function ratios(agent: { rate: number; cpuUs?: number }, registered: { rate: number; cpuUs?: number }): string {
  // A 1 s quick run on a loaded machine may complete no sign-in at all.
  if (registered.rate === 0) return 'none of the registered client completed';
  const cpu = agent.cpuUs !== undefined && registered.cpuUs ? ` CPU ${(agent.cpuUs / registered.cpuUs).toFixed(2)}×` : '';
  return `rate ${(agent.rate / registered.rate).toFixed(2)}×${cpu} the registered client's`;
}

/**
 * The resource (an API application with a scope), the organization's policy accepting CIMD clients with consent, and
 * the two public clients: the one the document describes, and its pre-registered twin in the target's project.
 */
async function publicClients(t: OidcTarget, admin: string, clientId: string): Promise<[PublicClient, PublicClient]> {
  if (!t.ids) throw new Error('the cimd scenario needs a Portcullis target');
  const base = `/management/v1/orgs/${t.ids.orgId}`;
  const project = `${base}/projects/${t.ids.projectId}`;
  await call(t.url, admin, 'POST', `${project}/apps/api`, {
    name: 'files',
    authMethod: 'client_secret_basic',
    resourceUri: RESOURCE,
    scopes: [{ name: SCOPE, description: 'Read your files' }],
  });
  const policy = await call(t.url, admin, 'GET', `${base}/login-policy`);
  await call(t.url, admin, 'PUT', `${base}/login-policy`, {
    mfa: policy.mfa,
    passkeys: policy.passkeys,
    allowRegistration: policy.allowRegistration,
    agentClients: 'consent',
  });
  const twin = await call(t.url, admin, 'POST', `${project}/apps/oidc`, {
    name: 'registered-agent',
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [],
    responseTypes: ['code'],
    grantTypes: ['authorization_code', 'refresh_token'],
    authMethod: 'none',
    accessTokenType: 'opaque',
    devMode: true,
  });
  const client = (id: string): PublicClient => ({ id, redirect: REDIRECT, scope: SCOPE, resource: RESOURCE, verifier: randomBytes(32).toString('base64url') });
  return [client(clientId), client(twin.clientId)];
}

/**
 * A pool of refresh tokens of the client (bench/scenarios/oidc-refresh.ts sizes it), each from a sign-in asking for
 * `offline_access` (with `prompt=consent`, which oidc-provider needs to keep that scope), checked by one refresh; then
 * the rotating refresh requests on it.
 */
async function publicRefreshRequests(service: Running, t: OidcTarget, client: PublicClient, warmup: boolean): Promise<Record<string, unknown>[]> {
  const offline = { scope: `${SCOPE} offline_access`, prompt: 'consent' };
  const pool: string[] = [];
  for (let i = 0; i < poolSize(CONNECTIONS, warmup); i++) {
    const { refresh_token } = await publicSignIn(service.url, client, t.login.name, t.login.password, offline);
    if (!refresh_token) throw new Error(`${client.id}: a sign-in asking for offline_access gave no refresh token`);
    pool.push(refresh_token);
  }
  const res = await fetch(`${service.url}/oauth/v2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: pool.pop()!, client_id: client.id }),
  });
  const body = (await res.json()) as { refresh_token?: string };
  if (res.status !== 200 || !body.refresh_token) throw new Error(`${client.id}: the refresh answered ${res.status} ${JSON.stringify(body)}`);
  pool.push(body.refresh_token);
  return rotatingRefreshRequests(pool, { clientId: client.id });
}
