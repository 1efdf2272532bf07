/**
 * `npm run bench`: every benchmark scenario in one run on this machine — Portcullis
 * started as a process (SQLite, or `--mysql <server url>` for a fresh MySQL/MariaDB database dropped
 * afterwards), its peers (raw oidc-provider, scimmy + Express) and the load generator (autocannon).
 *
 *   npm run bench                  full run: bench/results/<timestamp>.json, the tables and chart of BENCHMARKS.md
 *   npm run bench -- --quick       one small size, 1 s per scenario, two groups at a time (CI: proves that every
 *                                  scenario runs, not how fast): results in a temporary directory only
 *   npm run bench -- --mysql mysql://root@127.0.0.1:3306 [--only oidc,data,scim-cursor,import,groups,mfa,feed,webhooks,audit,oidc-growth,console,overhead,federation,saml,mail,provisioning,dpop,device,access,id-jag,cimd,migrations,branding,directories] [--seconds 6]
 *   BENCH_LOOK_BEFORE=DIR npm run bench -- --only look   the look against an earlier build in DIR (on demand)
 *   npm run bench -- --only cluster --mysql mysql://root@127.0.0.1:3306   Galera cluster against one MariaDB:
 *                                  never in the default set, nor in --quick
 *
 * `--sizes 100000[,…]` measures the data group at those user counts only (the first also with the peers); scim-cursor
 * seeds the largest and pages halfway through it.
 * A partial run (--quick, --only or --sizes) never rewrites BENCHMARKS.md; a full --mysql run writes its own section of it,
 * never the SQLite run's (bench/compare.ts puts the two side by side).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import mysql from 'mysql2/promise';
import { createTestDatabase } from '../test/support/database.js';
import { chartSvg, pairs, renderPng } from './lib/chart.js';
import type { Context, Options } from './lib/context.js';
import { watchDatabaseServer } from './lib/cpu.js';
import { print } from './lib/load.js';
import type { Measurement, RunResult } from './lib/measurement.js';
import { ROOT } from './lib/processes.js';
import { markersFor, renderReport, replaceBetweenMarkers } from './lib/report.js';
import { evaluateTargets } from './lib/targets.js';
import { runAccess } from './scenarios/access.js';
import { runAudit } from './scenarios/audit.js';
import { runBranding } from './scenarios/branding.js';
import { runLook } from './scenarios/look.js';
import { runCimd } from './scenarios/cimd.js';
import { runCluster } from './scenarios/cluster.js';
import { runConsole } from './scenarios/console.js';
import { runData } from './scenarios/data.js';
import { runDpop } from './scenarios/dpop.js';
import { runDevice } from './scenarios/device.js';
import { runFederation } from './scenarios/federation.js';
import { runSaml } from './scenarios/saml.js';
import { runFeed } from './scenarios/feed.js';
import { runGroups } from './scenarios/groups.js';
import { runIdJag } from './scenarios/id-jag.js';
import { runImport } from './scenarios/import.js';
import { runMail } from './scenarios/mail.js';
import { runMigrations } from './scenarios/migrations.js';
import { runDirectories } from './scenarios/directories.js';
import { runProvisioning } from './scenarios/provisioning.js';
import { runMfa } from './scenarios/mfa.js';
import { runOidc } from './scenarios/oidc.js';
import { runOidcGrowth } from './scenarios/oidc-growth.js';
import { runOverhead } from './scenarios/overhead.js';
import { runScimCursor } from './scenarios/scim-cursor.js';
import { runWebhooks } from './scenarios/webhooks.js';

const GROUPS: Record<string, (ctx: Context) => Promise<void>> = {
  oidc: runOidc,
  data: runData,
  'scim-cursor': runScimCursor,
  import: runImport,
  groups: runGroups,
  mfa: runMfa,
  feed: runFeed,
  webhooks: runWebhooks,
  audit: runAudit,
  'oidc-growth': runOidcGrowth,
  console: runConsole,
  overhead: runOverhead,
  federation: runFederation,
  saml: runSaml,
  mail: runMail,
  provisioning: runProvisioning,
  dpop: runDpop,
  device: runDevice,
  access: runAccess,
  'id-jag': runIdJag,
  cimd: runCimd,
  branding: runBranding,
  cluster: runCluster,
  migrations: runMigrations,
  directories: runDirectories,
  look: runLook,
};
/**
 * Run by `--only` alone: the Galera cluster takes half a minute to start, more than CI's whole quick run can spare;
 * the look compares with an earlier build, which a run has only when it is given one (BENCH_LOOK_BEFORE).
 */
const ON_DEMAND = new Set(['cluster', 'look']);
const DEFAULT_GROUPS = Object.keys(GROUPS).filter((g) => !ON_DEMAND.has(g));
/**
 * Groups run at once by --quick (CI's smoke run): most of its time is processes starting, one core's work
 * at a time. The lanes take the groups in the order above, so the longest (oidc) starts first.
 */
const QUICK_LANES = 2;

function options(): Options {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean' }, mysql: { type: 'string' }, only: { type: 'string' }, seconds: { type: 'string' }, sizes: { type: 'string' } },
  });
  const quick = values.quick ?? false;
  const groups = values.only ? values.only.split(',') : DEFAULT_GROUPS;
  for (const g of groups) if (!GROUPS[g]) throw new Error(`--only: unknown group "${g}" (known: ${Object.keys(GROUPS).join(', ')})`);
  const base = quick
    ? { seconds: 1, growthSeconds: 1, warmup: 0, sizes: [1_000], peerSize: 1_000, importSizes: [1_000] }
    : { seconds: 6, growthSeconds: 4, warmup: 1, sizes: [10_000, 100_000, 1_000_000], peerSize: 100_000, importSizes: [10_000, 100_000] };
  const seconds = values.seconds ? Number(values.seconds) : base.seconds;
  // `--sizes 100000`: only these user counts; the first is where the peers run (a partial run, never written to BENCHMARKS.md).
  const sizes = values.sizes ? values.sizes.split(',').map(Number) : base.sizes;
  const peerSize = values.sizes ? sizes[0] : base.peerSize;
  return { ...base, sizes, peerSize, quick, groups, mysql: values.mysql, seconds, growthSeconds: Math.min(seconds, base.growthSeconds) };
}

async function databaseLabel(server?: string): Promise<string> {
  if (!server) return 'SQLite';
  const conn = await mysql.createConnection({ uri: server });
  try {
    const [rows] = await conn.query('SELECT VERSION() AS v');
    const version = String((rows as { v: string }[])[0].v);
    return `${version.includes('MariaDB') ? 'MariaDB' : 'MySQL'} ${version.split('-')[0]}`;
  } finally {
    await conn.end();
  }
}

async function main(): Promise<void> {
  const opts = options();
  const started = Date.now();
  const measurements: Measurement[] = [];
  const loadStart = loadavg();
  if (opts.mysql) {
    process.env.TEST_DATABASE_URL = opts.mysql;
    const server = watchDatabaseServer();
    console.error(server ? `database server CPU counted: pid ${server}` : 'no mariadbd/mysqld process on this machine: database server CPU not counted');
  }
  const ctx: Context = {
    options: opts,
    newStore: async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-bench-'));
      const database = await createTestDatabase();
      return { dataDir, databaseUrl: database.url, drop: async () => (await database.drop(), rmSync(dataDir, { recursive: true, force: true })) };
    },
    record: (m) => {
      measurements.push(m);
      print(m);
    },
  };
  // --quick measures nothing, so its groups need not run alone: QUICK_LANES at once, each on its own
  // database and processes; a full run measures one group at a time.
  const queue = [...opts.groups];
  const lane = async () => {
    for (let group = queue.shift(); group !== undefined; group = queue.shift()) {
      console.error(`== ${group} (${((Date.now() - started) / 1000).toFixed(0)} s elapsed)`);
      try {
        await GROUPS[group](ctx);
      } catch (error) {
        queue.length = 0; // the other lanes start no further group
        throw error;
      }
      if (opts.quick) console.error(`== ${group} done (${((Date.now() - started) / 1000).toFixed(0)} s elapsed)`);
    }
  };
  // Every lane finishes its group (and stops its processes) before a failure ends the run.
  const lanes = await Promise.allSettled(Array.from({ length: opts.quick ? QUICK_LANES : 1 }, lane));
  for (const l of lanes) if (l.status === 'rejected') throw l.reason;
  const run: RunResult = {
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date().toISOString(),
    quick: opts.quick,
    database: await databaseLabel(opts.mysql),
    seconds: opts.seconds,
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.versions.node, loadAverage: { start: loadStart, end: loadavg() } },
    measurements,
  };
  const complete = DEFAULT_GROUPS.every((g) => opts.groups.includes(g)) && !opts.groups.some((g) => ON_DEMAND.has(g));
  await write(run, opts.quick || !complete || process.argv.includes('--sizes'));
  console.error(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/**
 * Results JSON and chart; BENCHMARKS.md's tables only for a complete run, between the SQLite markers or,
 * on MySQL/MariaDB, its own (compare the two with bench/compare.ts).
 */
async function write(run: RunResult, partial: boolean): Promise<void> {
  const stamp = run.startedAt.replace(/[:.]/g, '-');
  const dir = partial ? mkdtempSync(join(tmpdir(), 'portcullis-bench-results-')) : join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${stamp}.json`), `${JSON.stringify(run, null, 2)}\n`);
  const svg = chartSvg(pairs(run.measurements), `Portcullis against its peers, ${run.database}, ${run.startedAt.slice(0, 16)} (log scale)`);
  // A MySQL/MariaDB run's chart beside the SQLite run's, not over it.
  const chart = join(dir, run.database === 'SQLite' ? 'chart.png' : 'chart-mysql.png');
  writeFileSync(chart, renderPng(svg));
  const verdicts = evaluateTargets(run);
  const missed = verdicts.filter((v) => !v.met);
  console.error(`targets met: ${verdicts.length - missed.length} of ${verdicts.length}`);
  for (const v of missed) console.error(`  missed: ${v.subject.label}${v.subject.size ? ` @${v.subject.size}` : ''} | ${v.subject.server}: ${v.text}`);
  if (partial) {
    writeFileSync(join(dir, 'report.md'), renderReport(run, chart));
    console.error(`results (BENCHMARKS.md unchanged): ${dir}`);
    return;
  }
  const file = join(ROOT, 'BENCHMARKS.md');
  writeFileSync(file, replaceBetweenMarkers(readFileSync(file, 'utf8'), renderReport(run, relative(ROOT, chart)), markersFor(run.database)));
  console.error(`results: ${join(dir, `${stamp}.json`)}; BENCHMARKS.md updated`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
