/**
 * OIDC scenarios: Portcullis (WORKERS=1 and 2, one database) against a raw oidc-provider with its memory
 * adapter (bench/peers/raw-provider.ts), plus bcrypt alone at the configured cost as the ceiling for logins.
 * The token scenarios also run against the same provider with a durable SQLite adapter (the
 * anchor; the memory adapter stays beside it as the ceiling). Peers are started fresh per measurement:
 * the memory adapter is an LRU of 1,000 entries, which the tokens of one scenario would otherwise flush
 * the next scenario's tokens out of, and the durable one starts on an empty file likewise. Except with
 * `--quick`, which proves that every scenario runs rather than measuring it: there each peer is started
 * once for the group and kept (a start, with its key pair, bcrypt hash and — for glewlwyd — its set-up,
 * took longer than the second measured).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcrypt';
import { adminToken } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { CONNECTIONS, load, perOperation } from '../lib/load.js';
import type { Figures } from '../lib/load.js';
import { freePort, startPeer, startService } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';
import { DURABLE_PEER } from '../lib/targets.js';
import { loginChain } from '../peers/login-chain.js';
import { glewlwydSide } from './oidc-glewlwyd.js';
import { refreshRequests } from './oidc-refresh.js';
import { basic, checkActive, FORM, setUpPortcullis, setUpRaw } from './oidc-setup.js';
import type { OidcTarget } from './oidc-setup.js';

const BCRYPT_COST = Number(process.env.BCRYPT_COST ?? 10);

interface OidcScenario {
  id: string;
  label: string;
  workers: number[];
  /** Whether the raw library can serve the same request. */
  peer: boolean;
  /** Whether the request reads or writes stored tokens, so the durable peer measures something the memory one does not. */
  durable?: boolean;
  /** `warmup`: whether an unmeasured warm-up runs first. */
  requests(t: OidcTarget, warmup: boolean): Record<string, unknown>[] | Promise<Record<string, unknown>[]>;
}

const introspect = (token: (t: OidcTarget) => string | undefined) => (t: OidcTarget) => [
  { method: 'POST', path: '/oauth/v2/introspect', headers: { ...FORM, authorization: basic(t.api) }, body: `token=${token(t)}` },
];

const SCENARIOS: OidcScenario[] = [
  {
    id: 'oidc.client-credentials',
    label: 'client credentials',
    workers: [1, 2],
    peer: true,
    durable: true,
    requests: (t) => [
      { method: 'POST', path: '/oauth/v2/token', headers: { ...FORM, authorization: basic(t.machine) }, body: 'grant_type=client_credentials' },
    ],
  },
  {
    id: 'oidc.refresh',
    label: 'refresh-token grant (rotating)',
    workers: [1, 2],
    peer: true,
    durable: true,
    requests: (t, warmup) => refreshRequests(t, CONNECTIONS, warmup),
  },
  { id: 'oidc.introspection-opaque', label: 'introspection (opaque)', workers: [1, 2], peer: true, durable: true, requests: introspect((t) => t.opaque) },
  { id: 'oidc.introspection-jwt', label: 'introspection (JWT)', workers: [1, 2], peer: false, requests: introspect((t) => t.jwt) },
  {
    id: 'oidc.userinfo',
    label: 'userinfo',
    workers: [1],
    peer: true,
    durable: true,
    requests: (t) => [{ method: 'GET', path: '/oidc/v1/userinfo', headers: { authorization: `Bearer ${t.userToken}` } }],
  },
  { id: 'oidc.jwks', label: 'JWKS', workers: [1], peer: true, requests: () => [{ method: 'GET', path: '/oauth/v2/keys' }] },
];
/**
 * With `--quick`, WORKERS=2 runs only the refresh grant: the one whose state crosses processes (a token
 * rotated by one worker is used next at the other); the others add nothing a smoke run must prove.
 */
const QUICK_WORKERS_2 = new Set(['oidc.refresh']);
const LOGIN = { scenario: 'oidc.login', label: 'full code-flow login (password)', unit: 'logins/s' as const, hashing: true };

/**
 * Each peer figure is measured right after the Portcullis figure it is compared with, in alternating
 * rounds (three in the full run, one in the quick run) of which the median counts: this VM's speed
 * drifts by more over a few minutes, and scatters by more between two runs, than the differences
 * measured. A round is Portcullis, the durable peer (token scenarios), the memory peer, glewlwyd.
 * Scenarios run with WORKERS=2 get peer figures of their own.
 */
export async function runOidc(ctx: Context): Promise<void> {
  const timing = { seconds: ctx.options.seconds, warmup: ctx.options.warmup };
  const warmup = timing.warmup > 0;
  const rounds = ctx.options.quick ? 1 : 3;
  // Debian's glewlwyd, where installed, is measured in the same rounds, after the raw library.
  const glewlwyd = glewlwydSide(ctx.options.quick);
  const peers = ctx.options.quick ? keptPeers() : freshPeers();
  const store = await ctx.newStore();
  try {
    const port = await freePort();
    let target: OidcTarget | undefined;
    for (const workers of [1, 2]) {
      const service = await startService(store, workers, port);
      try {
        const t = (target ??= await setUpPortcullis(service.url, adminToken(store.dataDir)));
        await checkActive(t, t.opaque);
        await checkActive(t, t.jwt!);
        const server = `Portcullis WORKERS=${workers}`;
        const scenarios = SCENARIOS.filter((s) => s.workers.includes(workers) && (workers === 1 || !ctx.options.quick || QUICK_WORKERS_2.has(s.id)));
        for (const s of scenarios) {
          const ours = async () => withoutSocketErrors(await load(service.url, service.pid, timing, await s.requests(t, warmup)));
          const onRaw = (durable: boolean) => async () =>
            peers.on(async (p) => withoutSocketErrors(await load(p.url, p.pid, timing, await s.requests(await setUpRaw(p.url), warmup))), durable);
          const glew = s.peer ? glewlwyd?.scenario(s.id, timing) : undefined;
          const [mine, ...others] = await alternating(s.peer ? rounds : 1, [
            ours,
            ...(s.durable ? [onRaw(true)] : []),
            ...(s.peer ? [onRaw(false)] : []),
            ...(glew ? [glew] : []),
          ]);
          const durable = s.durable ? others.shift() : undefined;
          const theirs = s.peer ? others.shift() : undefined;
          ctx.record({ scenario: s.id, label: s.label, kind: 'portcullis', server, workers, unit: 'req/s', ...mine });
          if (durable) ctx.record({ scenario: s.id, label: s.label, ...peerOf(workers, DURABLE_PEER), unit: 'req/s', ...durable });
          if (theirs) ctx.record({ scenario: s.id, label: s.label, ...peerOf(workers), unit: 'req/s', ...theirs });
          if (glew) ctx.record({ scenario: s.id, label: s.label, ...glewlwyd!.recordedAs(workers), unit: 'req/s', ...others.shift()! });
        }
        if (workers === 1) {
          const [mine, bcryptAlone, theirs, glew] = await alternating(rounds, [
            () => logins(service.url, service.pid, timing.seconds, t),
            async () => ({ rate: await bcryptRate(timing.seconds), errors: 0 }),
            () => peers.on(async (p) => logins(p.url, p.pid, timing.seconds, await setUpRaw(p.url))),
            ...(glewlwyd ? [() => glewlwyd.logins(timing.seconds)] : []),
          ]);
          ctx.record({ ...LOGIN, kind: 'portcullis', server, workers, ...mine });
          ctx.record({
            scenario: 'oidc.bcrypt',
            label: `bcrypt.compare alone (cost ${BCRYPT_COST}, ${CONNECTIONS} in flight)`,
            kind: 'reference',
            server: 'node bcrypt',
            unit: 'checks/s',
            ...bcryptAlone,
            hashing: true,
          });
          ctx.record({ ...LOGIN, ...peerOf(1), ...theirs });
          if (glew) ctx.record({ ...LOGIN, ...glewlwyd!.recordedAs(1), ...glew });
        }
      } finally {
        await service.stop();
      }
    }
  } finally {
    await peers.close();
    await glewlwyd?.close();
    await store.drop();
  }
}

type RoundFigures = Pick<Figures, 'rate' | 'errors'> & Partial<Figures>;

/**
 * Runs the measurements one after the other, `rounds` times, and gives each one's median round (by
 * rate), with the errors and answers of all rounds and the largest peak memory of any.
 */
export async function alternating<T extends RoundFigures>(rounds: number, measurements: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[][] = measurements.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, measure] of measurements.entries()) results[i].push(await measure());
  }
  return results.map((all) => {
    const median = [...all].sort((a, b) => a.rate - b.rate)[Math.floor(all.length / 2)];
    const peaks = all.map((f) => f.peakMb).filter((mb): mb is number => mb !== undefined);
    const counted = all.every((f) => f.requests !== undefined) ? { requests: all.reduce((sum, f) => sum + f.requests!, 0) } : {};
    return { ...median, errors: all.reduce((sum, f) => sum + f.errors, 0), ...counted, ...(peaks.length ? { peakMb: Math.max(...peaks) } : {}) };
  });
}

/** A peer as recorded next to Portcullis with `workers` processes. */
function peerOf(workers: number, name = 'raw oidc-provider') {
  return { kind: 'peer' as const, server: workers === 1 ? name : `${name} (beside WORKERS=${workers})`, nextTo: workers };
}

/** Where the raw peers' measurements run: `on` gives `work` a peer with the memory adapter, or a `durable` one. */
interface RawPeers {
  on<T>(work: (peer: Running) => Promise<T>, durable?: boolean): Promise<T>;
  close(): Promise<void>;
}

/** A peer started for each measurement and stopped after it: nothing carries over (the full run). */
function freshPeers(): RawPeers {
  return {
    on: async (work, durable = false) => {
      const peer = await startRaw(durable);
      try {
        return await work(peer);
      } finally {
        await peer.stop();
      }
    },
    close: async () => undefined,
  };
}

/** One peer of each adapter, started on first use and kept until `close` (`--quick`). */
function keptPeers(): RawPeers {
  const started = new Map<boolean, Promise<Running>>();
  return {
    on: async (work, durable = false) => {
      if (!started.has(durable)) started.set(durable, startRaw(durable));
      return work(await started.get(durable)!);
    },
    close: async () => {
      // A peer that failed to start has said so to its measurement already.
      for (const peer of started.values()) await (await peer.catch(() => undefined))?.stop();
    },
  };
}

/** The raw peer with the memory adapter, or `durable`, with the SQLite adapter on a new file that `stop` removes. */
async function startRaw(durable: boolean): Promise<Running> {
  const dir = durable ? mkdtempSync(join(tmpdir(), 'portcullis-bench-durable-peer-')) : undefined;
  const removeDir = () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const peer = await startPeer('raw-provider.js', [String(BCRYPT_COST), ...(dir ? [join(dir, 'oidc.sqlite')] : [])]);
    return { ...peer, stop: async () => (await peer.stop(), removeDir()) };
  } catch (error) {
    removeDir();
    throw error;
  }
}

const withoutSocketErrors = ({ socketErrors: _, ...figures }: Awaited<ReturnType<typeof load>>) => figures;

/**
 * Full code-flow logins: each connection runs the request chain over and over; a login counts when its
 * code redemption answers 200. No warm-up: it would count logins too, and bcrypt is what bounds them.
 */
async function logins(url: string, pid: number, seconds: number, target: OidcTarget) {
  const done = { logins: 0, failed: 0 };
  return perOperation(await load(url, pid, { seconds, warmup: 0 }, loginChain(target, done)), seconds, { completed: done.logins, failed: done.failed });
}

/** What bcrypt alone allows in this process: compares at the configured cost, as many in flight as connections. */
async function bcryptRate(seconds: number): Promise<number> {
  const hash = await bcrypt.hash('bench-password', BCRYPT_COST);
  let count = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) {
        await bcrypt.compare('bench-password', hash);
        count++;
      }
    }),
  );
  return count / seconds;
}
