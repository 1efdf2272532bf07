/**
 * Per-request overhead: what Portcullis costs per request on top of the least a server must
 * do, against two floors measured in the same run, in alternating rounds (median of three in the full
 * run): `GET /healthz` against a bare Express 5 app (bench/peers/bare-express.ts), and a SCIM
 * `userName eq` lookup against node:http + better-sqlite3 doing the same work on the same SQLite file
 * (bench/peers/scim-floor.ts: token check, indexed query, SCIM JSON). Next to the rates, the servers' CPU
 * time per request, which a shared machine disturbs less. SQLite only: the floor reads the service's
 * SQLite file.
 */
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { load } from '../lib/load.js';
import { allStarted, freePort, startPeer, startService } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';
import { seedUsers } from '../lib/seed.js';
import { alternating } from './oidc.js';
import { checkLookup, LOOKUP, scimCaller, scimRequests } from './scim.js';
import type { ScimServer } from './scim.js';

export const HEALTHZ = { scenario: 'overhead.healthz', label: 'GET /healthz' };
export const FLOOR_LOOKUP = { scenario: 'overhead.scim-lookup', label: 'SCIM lookup `userName eq` against its floor' };

export async function runOverhead(ctx: Context): Promise<void> {
  if (ctx.options.mysql) {
    console.error('  overhead: SQLite only (the floor peer reads the SQLite file); skipped');
    return;
  }
  const { seconds, peerSize: size } = ctx.options;
  const rounds = ctx.options.quick ? 1 : 3;
  const store = await ctx.newStore();
  const running: Running[] = [];
  try {
    const port = await freePort();
    const setup = await startService(store, 1, port);
    const admin = adminToken(store.dataDir);
    const org = await call(setup.url, admin, 'POST', '/admin/v1/orgs', { name: 'overhead-bench' });
    const token = await scimCaller(setup.url, admin, org.id);
    await setup.stop();
    await seedUsers(store, org.id, 0, size);

    // Started side by side: nothing is measured yet.
    const [service, express, floor] = await allStarted([
      startService(store, 1, port),
      startPeer('bare-express.js', []),
      startPeer('scim-floor.js', [store.dataDir]),
    ]);
    running.push(service, express, floor);
    const scim = (p: Running, base: string): ScimServer => ({ url: p.url, base, token });
    const ours = scim(service, `/scim/v2/${org.id}`);
    const theirs = scim(floor, `/scim/v2/${org.id}`);
    await checkLookup(ours, size);
    await checkFloorLookup(theirs, size);

    const healthz =
      (p: Running, s = seconds) =>
      () =>
        measure(p, s, [{ method: 'GET', path: '/healthz' }]);
    const lookup =
      (p: Running, server: ScimServer, s = seconds) =>
      () =>
        measure(p, s, scimRequests(server, LOOKUP, size));
    // An unrecorded second on every server first (the JIT compiles the hot paths), then the paired rounds;
    // not with --quick, which measures nothing.
    const warmup = Math.max(1, ctx.options.warmup);
    if (!ctx.options.quick)
      for (const warm of [healthz(service, warmup), healthz(express, warmup), lookup(service, ours, warmup), lookup(floor, theirs, warmup)]) await warm();
    const [h, hPeer, l, lPeer] = await alternating(rounds, [healthz(service), healthz(express), lookup(service, ours), lookup(floor, theirs)]);
    const mine = { kind: 'portcullis' as const, server: 'Portcullis WORKERS=1', workers: 1, unit: 'req/s' as const };
    ctx.record({ ...HEALTHZ, ...mine, ...h });
    ctx.record({ ...HEALTHZ, kind: 'peer', server: 'bare Express 5', nextTo: 1, unit: 'req/s', ...hPeer });
    ctx.record({ ...FLOOR_LOOKUP, ...mine, size, ...l });
    ctx.record({ ...FLOOR_LOOKUP, kind: 'peer', server: 'node:http + better-sqlite3', nextTo: 1, size, unit: 'req/s', ...lPeer });
  } finally {
    for (const p of running.reverse()) await p.stop();
    await store.drop();
  }
}

async function measure(p: Running, seconds: number, requests: Record<string, unknown>[]) {
  // load() counts the server's CPU per request over the measured run.
  const { socketErrors: _, ...figures } = await load(p.url, p.pid, { seconds, warmup: 0 }, requests);
  return figures;
}

/** The floor answers the lookup only (no unfiltered list): one user found. */
async function checkFloorLookup(server: ScimServer, size: number): Promise<void> {
  const found = await call(server.url, server.token, 'GET', LOOKUP.request(server.base, 1, size).path);
  if (found.totalResults !== 1) throw new Error(`${server.url}: the floor found ${found.totalResults} users, expected 1`);
}
