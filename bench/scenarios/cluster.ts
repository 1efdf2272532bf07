/**
 * High availability on MariaDB Galera (docs/high-availability.md): Portcullis (WORKERS=1) on three Galera
 * nodes behind HAProxy (test/ha/support/galera-cluster.ts: `balance first`, all on this machine) against the same
 * service on one MariaDB (a fresh database on the `--mysql` server), in one run:
 *
 * - `cluster.client-credentials`: client-credentials grants (opaque tokens: each grant is a committed INSERT, which
 *   Galera certifies and replicates to both other nodes before it answers), one service per database, in alternating
 *   rounds (three, median counts; one with `--quick`), with the database side's CPU per grant (the cluster's: three
 *   mariadbd and HAProxy);
 * - `cluster.failover`: `kill -9` of the node taking the writes under a steady stream of grants (bench/scenarios/
 *   cluster-failover.ts), three times (one with `--quick`): the time from the kill to the first grant answered again,
 *   beside the time to the first commit straight on the next node, and the failed answers by status.
 *
 * Starting the cluster alone takes half a minute, so the group is not in the default set (nor in CI's `--quick`):
 *
 *   npm run bench -- --only cluster --mysql mysql://root@127.0.0.1:3306
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { adminToken } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { cpuSeconds } from '../lib/cpu.js';
import { CONNECTIONS, load } from '../lib/load.js';
import type { Figures, Timing } from '../lib/load.js';
import { freePort, startService } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';
import { failoverRounds } from './cluster-failover.js';
import type { FailoverRound } from './cluster-failover.js';
import { alternating } from './oidc.js';
import { basic, FORM, setUpPortcullis } from './oidc-setup.js';

const SINGLE = 'Portcullis WORKERS=1, one MariaDB';
const CLUSTER = 'Portcullis WORKERS=1, 3 Galera nodes + HAProxy';
const GRANTS = {
  scenario: 'cluster.client-credentials',
  label: 'client credentials (opaque: one INSERT per grant)',
  kind: 'portcullis' as const,
  workers: 1,
  unit: 'req/s' as const,
};

export async function runCluster(ctx: Context): Promise<void> {
  if (!ctx.options.mysql) throw new Error('the cluster group compares with one MariaDB: add --mysql mysql://root@127.0.0.1:3306');
  // Imported here, not at the top: it loads the whole service (test/support/service.ts) into the load generator's process.
  const { galeraMissing, startGaleraCluster } = await import('../../test/ha/support/galera-cluster.js');
  const missing = galeraMissing();
  if (missing) throw new Error(`the cluster group needs galera-4, haproxy and rsync: ${missing}`);
  const timing = { seconds: ctx.options.seconds, warmup: ctx.options.warmup };
  const rounds = ctx.options.quick ? 1 : 3;
  const cluster = await startGaleraCluster(`portcullis_bench_${process.pid}`);
  const clusterStore = { dataDir: mkdtempSync(join(tmpdir(), 'portcullis-bench-galera-')), databaseUrl: cluster.url };
  let single: Awaited<ReturnType<Context['newStore']>> | undefined;
  const services: Running[] = [];
  try {
    single = await ctx.newStore();
    const clusterPort = await freePort();
    const [onSingle, onCluster] = [await startService(single, 1), await startService(clusterStore, 1, clusterPort)];
    services.push(onSingle, onCluster);
    const [singleClient, clusterClient] = [
      (await setUpPortcullis(onSingle.url, adminToken(single.dataDir))).machine,
      (await setUpPortcullis(onCluster.url, adminToken(clusterStore.dataDir))).machine,
    ];
    const [s, c] = await alternating(rounds, [
      () => grants(onSingle, singleClient, timing),
      () => grants(onCluster, clusterClient, timing, clusterProcesses()),
    ]);
    ctx.record({ ...GRANTS, server: SINGLE, ...s });
    ctx.record({ ...GRANTS, server: CLUSTER, ...c });
    console.error(`  cluster ÷ single: ${(c.rate / s.rate).toFixed(2)}×`);
    // The failover rounds start their own service on the cluster, on the same port (the issuer of its tokens).
    for (const service of services.splice(0)) await service.stop();
    recordFailovers(ctx, await failoverRounds(cluster, clusterStore, clusterPort, clusterClient, rounds));
  } finally {
    for (const service of services) await service.stop();
    await cluster.close();
    await single?.drop();
    rmSync(clusterStore.dataDir, { recursive: true, force: true });
  }
}

/**
 * Grants at 10 connections for `timing.seconds`. The database side's CPU is load's watched server (the `--mysql` one)
 * unless `databasePids` names the cluster's processes, counted over the measured run only (the warm-up runs before).
 */
async function grants(service: Running, client: { id: string; secret: string }, timing: Timing, databasePids?: number[]): Promise<Figures> {
  const requests = [{ method: 'POST', path: '/oauth/v2/token', headers: { ...FORM, authorization: basic(client) }, body: 'grant_type=client_credentials' }];
  if (timing.warmup > 0) await autocannon({ url: service.url, connections: CONNECTIONS, duration: timing.warmup, requests });
  const before = databasePids?.map(cpuSeconds);
  const { socketErrors: _, ...figures } = await load(service.url, service.pid, { seconds: timing.seconds, warmup: 0 }, requests);
  if (!databasePids || !before || figures.rate === 0) return figures;
  const used = databasePids.reduce((sum, pid, i) => sum + cpuSeconds(pid) - before[i], 0);
  return { ...figures, dbCpuUs: Math.round((used * 1e6) / (figures.rate * timing.seconds)) };
}

/**
 * The cluster's mariadbd and HAProxy: this process's own children, as test/ha/support/galera-cluster.ts starts them
 * (not their short-lived forks for state transfers, nor another cluster's processes on this machine).
 */
function clusterProcesses(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        // The command (field 2) may contain spaces: the parent (field 4) is counted after its closing parenthesis.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === process.pid && ['mariadbd', 'haproxy'].includes(readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
      } catch {
        return false; // ended while we looked
      }
    });
}

/**
 * The failover rounds as two figures whose p50 and max are the median and the longest time from the kill (ms): the first
 * grant answered again through the service, and the first commit straight on the next node (the cluster's own part).
 * Their rates are the stream's grants/s over the whole round and the probe's commits/s, not throughput figures.
 */
function recordFailovers(ctx: Context, failovers: FailoverRound[]): void {
  for (const [i, f] of failovers.entries()) console.error(`  failover ${i + 1}: ${describe(f)}`);
  const times = (ms: number[]) => ({ p50: median(ms), max: Math.max(...ms) });
  ctx.record({
    scenario: 'cluster.failover',
    label: 'kill -9 of the node taking the writes → first grant answered again (p50: median ms, max: longest ms)',
    kind: 'portcullis',
    server: CLUSTER,
    workers: 1,
    unit: 'req/s',
    rate: median(failovers.map((f) => f.grantsPerSecond)),
    ...times(failovers.map((f) => f.recoveredMs)),
    errors: failovers.reduce((sum, f) => sum + Object.values(f.failed).reduce((a, b) => a + b, 0), 0),
  });
  ctx.record({
    scenario: 'cluster.failover',
    label: 'kill -9 of the node taking the writes → first commit straight on the next node (p50: median ms, max: longest ms)',
    kind: 'reference',
    server: 'Galera alone (no HAProxy, no service)',
    unit: 'req/s',
    rate: median(failovers.map((f) => f.probeCommitsPerSecond)),
    ...times(failovers.map((f) => f.clusterCommitMs)),
    errors: failovers.reduce((sum, f) => sum + f.probeRefusals.length, 0),
  });
}

function describe(f: FailoverRound): string {
  const failed =
    Object.entries(f.failed)
      .map(([status, n]) => `${status}×${n}`)
      .join(', ') || 'none';
  const odd = Object.entries(f.samples)
    .map(([status, body]) => `\n    first ${status}: ${body}`)
    .join('');
  const when = f.failuresMs ? ` answered +${f.failuresMs.first}…+${f.failuresMs.last} ms after the kill, each after up to ${f.slowestFailureMs} ms` : '';
  const refused = f.probeRefusals.length ? `; the next node refused ${f.probeRefusals.length} commits, first: ${f.probeRefusals[0]}` : '';
  return `answered again after ${f.recoveredMs} ms (a commit straight on the next node after ${f.clusterCommitMs} ms${refused}); failed: ${failed}${when}; ${f.grantsPerSecond.toFixed(0)} grants/s${odd}`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
