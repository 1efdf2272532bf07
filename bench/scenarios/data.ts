/**
 * The scenarios that read seeded data, at each growth size (users and events both grow to it): SCIM
 * lookup and event search at every size; at `peerSize` also the other SCIM scenarios, the SCIM peer, and
 * the lookup with WORKERS=2 (not with --quick); at the largest size also the sorted page. Seeding happens
 * while the service is stopped, so every size is measured by fresh processes.
 */
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { load } from '../lib/load.js';
import type { Timing } from '../lib/load.js';
import type { Measurement } from '../lib/measurement.js';
import { freePort, startPeer, startService } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';
import { seedEvents, seedUsers } from '../lib/seed.js';
import { checkEvents, EVENT_SCENARIOS, eventRequests } from './events.js';
import { checkLookup, LOOKUP, SCIM_SCENARIOS, SORTED_PAGE, WORST_FILTER, scimCaller, scimRequests, writePeerUsers } from './scim.js';
import type { ScimScenario, ScimServer } from './scim.js';

export async function runData(ctx: Context): Promise<void> {
  const { sizes, peerSize, seconds, growthSeconds, warmup, quick } = ctx.options;
  const store = await ctx.newStore();
  try {
    const port = await freePort();
    const setup = await startService(store, 1, port);
    const admin = adminToken(store.dataDir);
    const org = await call(setup.url, admin, 'POST', '/admin/v1/orgs', { name: 'scim-bench' });
    const scim: ScimServer = { url: setup.url, base: `/scim/v2/${org.id}`, token: await scimCaller(setup.url, admin, org.id) };
    await setup.stop();

    let seeded = 0;
    for (const size of sizes) {
      const started = Date.now();
      await seedUsers(store, org.id, seeded, size);
      await seedEvents(store, org.id, seeded, size);
      console.error(
        `  seeded ${(size - seeded).toLocaleString('en')} users and events (now ${size.toLocaleString('en')} each) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      seeded = size;
      const full = size === peerSize || size === sizes.at(-1);
      const timing = { seconds: full ? seconds : growthSeconds, warmup };
      // The sorted page also at the largest size (the goal: p99 ≤ 50 ms at 1,000,000 users).
      const scimScenarios = size === peerSize ? SCIM_SCENARIOS : size === sizes.at(-1) ? [LOOKUP, SORTED_PAGE] : [LOOKUP];

      const service = await startService(store, 1, port);
      try {
        await checkLookup(scim, size);
        await checkEvents(scim.url, admin, size);
        for (const s of scimScenarios) ctx.record(await measureScim(service, scim, s, size, timing, 'Portcullis WORKERS=1', 1));
        if (size === peerSize) ctx.record(await healthzBesideWorstFilters(service, scim, size, timing));
        for (const s of EVENT_SCENARIOS) {
          const { socketErrors: _, ...figures } = await load(service.url, service.pid, timing, eventRequests(admin, s, size));
          ctx.record({ scenario: s.id, label: s.label, kind: 'portcullis', server: 'Portcullis WORKERS=1', workers: 1, size, unit: 'req/s', ...figures });
        }
      } finally {
        await service.stop();
      }
      if (size !== peerSize) continue;

      // Not with --quick: a read-only lookup on two processes proves nothing the oidc group's WORKERS=2
      // refresh grant does not, and the start of two processes costs more than the rest of this size.
      if (!quick) {
        const two = await startService(store, 2, port);
        try {
          ctx.record(await measureScim(two, scim, LOOKUP, size, timing, 'Portcullis WORKERS=2', 2));
        } finally {
          await two.stop();
        }
      }
      const peerUsers = writePeerUsers(store, size);
      for (const s of SCIM_SCENARIOS) {
        // A fresh peer per scenario: requests it still works through after a timed run must not eat the
        // CPU of the next measurement (even with --quick: one peer kept for all answered no create nor
        // PATCH within its second, still working through ten sorted pages of a second each).
        const peer = await startPeer('scimmy-peer.js', [peerUsers]);
        try {
          const server = { url: peer.url, base: '/scim/v2', token: 'bench' };
          await checkLookup(server, size);
          // No warm-up: scimmy answers a lookup in seconds at this size, and the warm-up's backlog would eat
          // into the measurement.
          ctx.record({ ...(await measureScim(peer, server, s, size, { ...timing, warmup: 0 }, 'scimmy peer')), kind: 'peer' });
        } finally {
          await peer.stop();
        }
      }
    }
  } finally {
    await store.drop();
  }
}

async function measureScim(
  process: Running,
  server: ScimServer,
  s: ScimScenario,
  size: number,
  timing: Timing,
  name: string,
  workers?: number,
): Promise<Measurement> {
  const { socketErrors: _, ...figures } = await load(process.url, process.pid, timing, scimRequests({ ...server, url: process.url }, s, size), s.connections);
  const unit = 'req/s';
  return { scenario: s.id, label: s.label, kind: 'portcullis', server: name, workers, size, unit, ...figures };
}

/**
 * What the costliest allowed filters do to everyone else. `GET /healthz` (one connection) is
 * measured while four connections send the worst filter (`scim.filter-worst`): on SQLite those reads run on a
 * read thread of their own (src/common/database/bounded-reads.ts), so the request thread stays free; before, it
 * waited for each read.
 */
async function healthzBesideWorstFilters(process: Running, server: ScimServer, size: number, timing: Timing): Promise<Measurement> {
  const filters = load(process.url, process.pid, { ...timing, warmup: 0 }, scimRequests({ ...server, url: process.url }, WORST_FILTER, size), 4);
  const { socketErrors: _, ...figures } = await load(process.url, process.pid, { ...timing, warmup: 0 }, [{ method: 'GET', path: '/healthz' }], 1);
  await filters;
  return {
    scenario: 'scim.filter-worst.healthz',
    label: 'GET /healthz beside 4 connections of the worst filter',
    kind: 'portcullis',
    server: 'Portcullis WORKERS=1',
    workers: 1,
    size,
    unit: 'req/s',
    ...figures,
  };
}
