/**
 * OIDC scenarios: Portcullis (WORKERS=1 and 2, one database) against a raw oidc-provider with its memory
 * adapter (bench/peers/raw-provider.ts), plus bcrypt alone at the configured cost as the ceiling for logins.
 * The peer is started fresh per measurement: its memory adapter is an LRU of 1,000 entries, which the
 * tokens of one scenario would otherwise flush the next scenario's tokens out of.
 */
import bcrypt from 'bcrypt';
import { adminToken } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { CONNECTIONS, load } from '../lib/load.js';
import { freePort, startPeer, startService } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';
import { loginChain } from '../peers/login-chain.js';
import { basic, checkActive, FORM, setUpPortcullis, setUpRaw } from './oidc-setup.js';
import type { OidcTarget } from './oidc-setup.js';

const BCRYPT_COST = Number(process.env.BCRYPT_COST ?? 10);

interface OidcScenario {
  id: string;
  label: string;
  workers: number[];
  /** Whether the raw library can serve the same request. */
  peer: boolean;
  requests(t: OidcTarget): Record<string, unknown>[];
}

const introspect = (token: (t: OidcTarget) => string | undefined) => (t: OidcTarget) => [
  { method: 'POST', path: '/oauth/v2/introspect', headers: { ...FORM, authorization: basic(t.api) }, body: `token=${token(t)}` },
];

const SCENARIOS: OidcScenario[] = [
  {
    id: 'oidc.client-credentials', label: 'client credentials', workers: [1, 2], peer: true,
    requests: (t) => [{ method: 'POST', path: '/oauth/v2/token', headers: { ...FORM, authorization: basic(t.machine) }, body: 'grant_type=client_credentials' }],
  },
  { id: 'oidc.introspection-opaque', label: 'introspection (opaque)', workers: [1, 2], peer: true, requests: introspect((t) => t.opaque) },
  { id: 'oidc.introspection-jwt', label: 'introspection (JWT)', workers: [1, 2], peer: false, requests: introspect((t) => t.jwt) },
  { id: 'oidc.userinfo', label: 'userinfo', workers: [1], peer: true, requests: (t) => [{ method: 'GET', path: '/oidc/v1/userinfo', headers: { authorization: `Bearer ${t.userToken}` } }] },
  { id: 'oidc.jwks', label: 'JWKS', workers: [1], peer: true, requests: () => [{ method: 'GET', path: '/oauth/v2/keys' }] },
];
const LOGIN = { scenario: 'oidc.login', label: 'full code-flow login (password)', unit: 'logins/s' as const, hashing: true };

/**
 * Each peer figure is measured right after the Portcullis figure it is compared with: this VM's speed
 * drifts by more over a few minutes than the differences measured, so a peer measured at the end of the
 * run would compare two machines. Scenarios run with WORKERS=2 get a peer figure of their own.
 */
export async function runOidc(ctx: Context): Promise<void> {
  const timing = { seconds: ctx.options.seconds, warmup: ctx.options.warmup };
  const store = await ctx.newStore();
  try {
    const port = await freePort();
    let target: OidcTarget | undefined;
    for (const workers of [1, 2]) {
      const service = await startService(store, workers, port);
      try {
        target ??= await setUpPortcullis(service.url, adminToken(store.dataDir));
        await checkActive(target, target.opaque);
        await checkActive(target, target.jwt!);
        const server = `Portcullis WORKERS=${workers}`;
        for (const s of SCENARIOS.filter((s) => s.workers.includes(workers))) {
          const figures = await load(service.url, service.pid, timing, s.requests(target));
          ctx.record({ scenario: s.id, label: s.label, kind: 'portcullis', server, workers, unit: 'req/s', ...withoutSocketErrors(figures) });
          if (!s.peer) continue;
          await onPeer(async (peer) => {
            const peerFigures = await load(peer.url, peer.pid, timing, s.requests(await setUpRaw(peer.url)));
            ctx.record({ scenario: s.id, label: s.label, ...peerOf(workers), unit: 'req/s', ...withoutSocketErrors(peerFigures) });
          });
        }
        if (workers === 1) {
          ctx.record({ ...LOGIN, kind: 'portcullis', server, workers, ...(await logins(service.url, service.pid, timing.seconds, target)) });
          ctx.record({ scenario: 'oidc.bcrypt', label: `bcrypt.compare alone (cost ${BCRYPT_COST}, ${CONNECTIONS} in flight)`, kind: 'reference', server: 'node bcrypt', unit: 'checks/s', rate: await bcryptRate(timing.seconds), errors: 0, hashing: true });
          await onPeer(async (peer) => ctx.record({ ...LOGIN, ...peerOf(1), ...(await logins(peer.url, peer.pid, timing.seconds, await setUpRaw(peer.url))) }));
        }
      } finally {
        await service.stop();
      }
    }
  } finally {
    await store.drop();
  }
}

/** The peer as recorded next to Portcullis with `workers` processes. */
function peerOf(workers: number) {
  return { kind: 'peer' as const, server: workers === 1 ? 'raw oidc-provider' : `raw oidc-provider (beside WORKERS=${workers})`, nextTo: workers };
}

/** Runs `work` against a freshly started peer (its memory adapter is an LRU of 1,000 entries: no carry-over). */
async function onPeer(work: (peer: Running) => Promise<void>): Promise<void> {
  const peer = await startPeer('raw-provider.js', [String(BCRYPT_COST)]);
  try {
    await work(peer);
  } finally {
    await peer.stop();
  }
}

const withoutSocketErrors = ({ socketErrors: _, ...figures }: Awaited<ReturnType<typeof load>>) => figures;

/**
 * Full code-flow logins: each connection runs the request chain over and over; a login counts when its
 * code redemption answers 200. No warm-up: it would count logins too, and bcrypt is what bounds them.
 */
async function logins(url: string, pid: number, seconds: number, target: OidcTarget) {
  const done = { logins: 0, failed: 0 };
  // The chain's redirects are non-2xx by design: only failed logins and socket errors count as errors.
  const { rate: _requests, socketErrors, ...figures } = await load(url, pid, { seconds, warmup: 0 }, loginChain(target, done));
  return { ...figures, rate: done.logins / seconds, errors: done.failed + socketErrors };
}

/** What bcrypt alone allows in this process: compares at the configured cost, as many in flight as connections. */
async function bcryptRate(seconds: number): Promise<number> {
  const hash = await bcrypt.hash('bench-password', BCRYPT_COST);
  let count = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < end) {
      await bcrypt.compare('bench-password', hash);
      count++;
    }
  }));
  return count / seconds;
}
