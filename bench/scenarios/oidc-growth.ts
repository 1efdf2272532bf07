/**
 * Growth of the OIDC store: client credentials and opaque introspection against a service
 * whose `oidc_payloads` holds 1,000,000 and then 10,000,000 live rows, each measured in alternating rounds
 * with the same requests against a second service whose table is empty (the machine's speed drifts more over
 * the minutes of seeding than the difference measured). Then the purge: a backlog of expired rows at the
 * largest size, deleted batch by batch with the service's own statement, each batch timed — how long it holds
 * the writer (SQLite) or its row locks (MariaDB).
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { FALLBACK_AUTOCHECKPOINT_PAGES } from '../../src/common/database/wal-checkpointer.js';
import { purgeBatchSql, purgeInBatches } from '../../src/oidc/adapter/oidc-purge.js';
import { adminToken } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { load } from '../lib/load.js';
import { allStarted, freePort, startService } from '../lib/processes.js';
import type { Running, Store } from '../lib/processes.js';
import { seedOidcPayloads } from '../lib/seed.js';
import { alternating } from './oidc.js';
import { basic, FORM, setUpPortcullis } from './oidc-setup.js';
import type { OidcTarget } from './oidc-setup.js';

const YEAR = 365 * 86_400_000;
/**
 * On MySQL/MariaDB only the first size: with the server's default 128 MB InnoDB buffer pool, rows keyed by a
 * random hash go in at ≈ 1,500 a second once the table outgrows the pool (1,000,000 took 655 s on this VM),
 * so 10,000,000 would take hours of seeding before a minute of measurement (BENCHMARKS.md, "OIDC store growth").
 */
const MYSQL_SIZES = [1_000_000];

const SCENARIOS = [
  {
    id: 'oidc-growth.client-credentials',
    label: 'client credentials, OIDC table grown',
    requests: (t: OidcTarget) => [
      { method: 'POST', path: '/oauth/v2/token', headers: { ...FORM, authorization: basic(t.machine) }, body: 'grant_type=client_credentials' },
    ],
  },
  {
    id: 'oidc-growth.introspection',
    label: 'introspection (opaque), OIDC table grown',
    requests: (t: OidcTarget) => [
      { method: 'POST', path: '/oauth/v2/introspect', headers: { ...FORM, authorization: basic(t.api) }, body: `token=${t.opaque}` },
    ],
  },
];

export async function runOidcGrowth(ctx: Context): Promise<void> {
  const sizes = ctx.options.quick ? [2_000] : ctx.options.mysql ? MYSQL_SIZES : [1_000_000, 10_000_000];
  const rounds = ctx.options.quick ? 1 : 3;
  const timing = { seconds: ctx.options.seconds, warmup: ctx.options.warmup };
  const [emptyStore, grownStore] = [await ctx.newStore(), await ctx.newStore()];
  const [emptyPort, grownPort] = [await freePort(), await freePort()];
  let empty: Running | undefined;
  let grown: Running | undefined;
  try {
    // The two services started and set up side by side: nothing is measured yet.
    [empty, grown] = await allStarted([startService(emptyStore, 1, emptyPort), startService(grownStore, 1, grownPort)]);
    const [emptyTarget, grownTarget] = await Promise.all([
      setUpPortcullis(empty.url, adminToken(emptyStore.dataDir)),
      setUpPortcullis(grown.url, adminToken(grownStore.dataDir)),
    ]);
    let seeded = 0;
    for (const size of sizes) {
      await grown.stop();
      const started = performance.now();
      await seedOidcPayloads(grownStore, seeded, size, Date.now() + YEAR);
      console.error(`    seeded ${(size - seeded).toLocaleString('en')} OIDC rows in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      seeded = size;
      grown = await startService(grownStore, 1, grownPort);
      for (const s of SCENARIOS) {
        const figures = (service: Running, t: OidcTarget) => async () => {
          const { socketErrors: _, ...f } = await load(service.url, service.pid, timing, s.requests(t));
          return f;
        };
        const [onEmpty, onGrown] = await alternating(rounds, [figures(empty, emptyTarget), figures(grown, grownTarget)]);
        ctx.record({
          scenario: s.id,
          label: s.label,
          kind: 'reference',
          server: 'Portcullis WORKERS=1, empty OIDC table',
          workers: 1,
          size,
          unit: 'req/s',
          ...onEmpty,
        });
        ctx.record({
          scenario: s.id,
          label: s.label,
          kind: 'portcullis',
          server: `Portcullis WORKERS=1, ${size.toLocaleString('en')} live OIDC rows`,
          workers: 1,
          size,
          unit: 'req/s',
          ...onGrown,
        });
      }
    }
    await grown.stop();
    grown = undefined;
    await purgeBatches(ctx, grownStore, seeded, ctx.options.quick ? 5_000 : 200_000);
  } finally {
    await grown?.stop();
    await empty?.stop();
    await emptyStore.drop();
    await grownStore.drop();
  }
}

/**
 * Adds `backlog` rows that expired an hour ago to the grown table, then runs the service's purge loop
 * (purgeInBatches: its batch sizes and its rests) over the service's statement, timing each batch (statement
 * and commit; the service stopped, so no other writer competes). Target: no batch holds the writer longer
 * than 50 ms.
 */
async function purgeBatches(ctx: Context, store: Store, from: number, backlog: number): Promise<void> {
  await seedOidcPayloads(store, from, from + backlog, Date.now() - 3_600_000);
  const run = await purgeRunner(store);
  const durations: number[] = [];
  const started = performance.now();
  try {
    const before = Date.now() - 60_000;
    await purgeInBatches(
      async (size) => {
        const batchStarted = performance.now();
        const deleted = await run(before, size);
        durations.push(performance.now() - batchStarted);
        return deleted;
      },
      (ms) => run.rest(ms),
    );
  } finally {
    await run.close();
  }
  const sorted = [...durations].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 10) / 10;
  ctx.record({
    scenario: 'oidc-growth.purge',
    label: `OIDC purge, batches sized to ~15 ms with equal rests (${backlog.toLocaleString('en')} expired among ${from.toLocaleString('en')} live)`,
    kind: 'portcullis',
    server: "the service's purge loop and statement",
    workers: 1,
    size: from,
    unit: 'batches/s',
    rate: durations.length / ((performance.now() - started) / 1000),
    p50: at(0.5),
    p99: at(0.99),
    max: Math.round(sorted[sorted.length - 1] * 10) / 10,
    errors: 0,
  });
}

/**
 * The purge statement on a connection of its own, as the service's would run it (autocommit: one statement,
 * one commit), and the rest between batches as the service takes it: on SQLite a checkpoint (which the
 * service runs on its checkpointer's thread during the rest: src/oidc/adapter/oidc-purge.ts) and the rest of
 * the time asleep.
 */
async function purgeRunner(
  store: Store,
): Promise<((before: number, size: number) => Promise<number>) & { rest(ms: number): Promise<void>; close(): Promise<void> }> {
  if (store.databaseUrl) {
    const conn = await mysql.createConnection({ uri: store.databaseUrl });
    const sql = purgeBatchSql('mysql');
    return Object.assign(
      async (before: number, size: number) => Number(((await conn.query(sql, [before, size]))[0] as { affectedRows: number }).affectedRows),
      { rest: async (ms: number) => void (await sleep(ms)), close: () => conn.end() },
    );
  }
  const db = new Database(join(store.dataDir, 'portcullis.sqlite'));
  // The service's settings (common/database/data-source.ts, wal-checkpointer.ts): WAL, synchronous NORMAL,
  // the request thread's own checkpoint only as a fallback.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const statement = db.prepare(purgeBatchSql('sqlite'));
  const rest = async (ms: number) => {
    const resting = performance.now();
    db.pragma('wal_checkpoint(PASSIVE)');
    await sleep(Math.max(0, ms - (performance.now() - resting)));
  };
  return Object.assign(async (before: number, size: number) => statement.run(before, size).changes, { rest, close: async () => void db.close() });
}
