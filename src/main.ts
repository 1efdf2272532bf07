// First: it holds the young generation's size while every other module loads.
import { youngGenerationMayGrow } from './common/operations/start-up-heap.js';
import 'reflect-metadata';
import cluster from 'node:cluster';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig, settingNames } from './common/config/config.js';
import { misspelledVariables } from './common/config/misspelled-variables.js';
import type { AppConfig } from './common/config/config.js';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { openDataSource } from './common/database/data-source.js';
import { SchemaNewerError, migrate } from './common/database/migrate.js';
import { collectProcessMetrics } from './common/metrics/metrics.js';
import { startManagementServer } from './common/operations/management-server.js';
import type { ManagementEndpoints } from './common/operations/management-server.js';
import { answerPrimaryForMetrics, clusterMetrics, processMetrics } from './common/operations/metrics-sources.js';
import { databaseReadiness } from './common/operations/readiness.js';
import { startUpProblem, startUpSummary } from './common/operations/start-up-report.js';
import { superviseWorkers } from './common/operations/worker-supervisor.js';
import { masterKeyProblem } from './oidc/keys/master-key.check.js';
import { ENTITIES } from './entities.js';
import { AppLogger } from './common/http/logging.js';

/** The configuration once read, for naming what stopped start-up. */
let configured: AppConfig | undefined;

/**
 * Entry point. The primary process validates the configuration and applies migrations, then serves
 * itself (WORKERS=1) or forks WORKERS processes sharing the port and the database (node:cluster).
 */
async function main(): Promise<void> {
  limitHeapGrowth();
  const config = readConfig();
  configured = config;
  if (cluster.isPrimary) {
    const applied = await migrate(config.database).catch((error: unknown) => {
      if (!(error instanceof SchemaNewerError)) throw error;
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    });
    log('info', applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');
    await exitOnMasterKeyProblem(config);
    if (config.workers > 1) {
      const dataSource = await openDataSource(config.database, ENTITIES);
      const workers = superviseWorkers(config.workers, log);
      const database = databaseReadiness(dataSource);
      const readiness = async () => workers.readiness() ?? (await database());
      await startManagement(config, { readiness, metrics: clusterMetrics() });
      youngGenerationMayGrow();
      return;
    }
  }
  await serve(config);
}

/** The master key against the signing keys already stored, on a data source of its own closed before anything serves. */
async function checkMasterKey(config: AppConfig): Promise<string | undefined> {
  const dataSource = await openDataSource(config.database, ENTITIES);
  try {
    return await masterKeyProblem(config, dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * On a machine with memory to spare V8 lets the heap grow to several times its live size between full
 * collections: a process serving tokens reached 300 MB with 110 MB live. Growing by 1.5× per collection
 * keeps it under 200 MB at a CPU cost within the benchmark's noise (BENCHMARKS.md). V8 reads this flag
 * at every collection, so setting it here applies; an operator's own setting in NODE_OPTIONS wins.
 */
function limitHeapGrowth(): void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => /heap[-_]growing[-_]percent/.test(arg));
  if (!given) setFlagsFromString('--heap-growing-percent=50');
}

/** The configuration, or exit code 2 with every problem; the primary says first what it runs with. */
function readConfig(): AppConfig {
  try {
    const config = loadConfig();
    if (cluster.isPrimary) {
      log('info', startUpSummary(config));
      for (const warning of misspelledVariables(process.env, settingNames())) log('warn', warning);
    }
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

async function serve(config: AppConfig): Promise<void> {
  collectProcessMetrics();
  // A worker answers the primary's scrapes from its first moment, or a scrape would wait for it.
  if (cluster.isWorker) answerPrimaryForMetrics();
  // Loading the application takes seconds, and from Node.js 22 on it holds the event loop for all of them at once. It
  // starts only once the migrations and the master key check have closed their connections: a handshake under way
  // meanwhile could not read the server's answer and failed at its connectTimeout (3 s) on a loaded machine. The primary
  // of WORKERS > 1 serves nothing and never loads it (docs/operations.md, "Start-up").
  const { createApp } = await import('./app.factory.js');
  const app = await createApp(config);
  stopOnSignals(app);
  // Listening initialises the modules, which create the first signing key and open the stored ones. Instances started
  // at once on an empty database all pass the primary's check before any has a key; the first key is then one
  // instance's, and another's master key cannot open it (docs/operations.md, "Master key").
  await app.listen(config.port).catch(async (error: unknown) => {
    // A check that fails itself (the database is gone meanwhile) must not hide the error that stopped start-up.
    await exitOnMasterKeyProblem(config).catch(() => undefined);
    throw error;
  });
  youngGenerationMayGrow();
  log('info', `Portcullis listening on port ${config.port} (${config.publicUrl})`);
  // A single process is its own management listener; workers leave it to the primary.
  if (cluster.isPrimary) await startManagement(config, { readiness: databaseReadiness(app.get(DataSource)), metrics: processMetrics() });
}

/**
 * Only the signals that mean "stop": Nest's default list also takes SIGUSR2, where an operator's
 * `--heapsnapshot-signal=SIGUSR2` would write a snapshot and then see the service shut down (docs/operations.md).
 */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * The first stop signal closes the application (no new connections, requests in flight finish, then the modules and
 * the database close: docs/operations.md, "Graceful shutdown"), saying "stopping" and "stopped"; the process then ends
 * by that signal, as an orchestrator expects. A repeated signal while it stops changes nothing.
 */
function stopOnSignals(app: NestExpressApplication): void {
  const logger = app.get(AppLogger);
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    // The DrainingExpressAdapter's count (src/common/http/draining-express-adapter.ts), read without loading Nest here.
    const inFlight = (app.getHttpAdapter() as { inFlight?: number }).inFlight ?? 0;
    log('info', `stopping (${signal}): no new connections; waiting for ${inFlight} request(s) in flight`);
    try {
      await app.close();
    } catch (error) {
      log('error', `stopping failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    }
    await logger.end();
    log('info', `stopped (${inFlight} request(s) drained)`);
    for (const s of STOP_SIGNALS) process.removeListener(s, stop);
    process.kill(process.pid, signal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
}

/** Stops with exit code 2 and one line naming MASTER_KEY when it cannot open the database's signing keys. */
async function exitOnMasterKeyProblem(config: AppConfig): Promise<void> {
  const problem = await checkMasterKey(config);
  if (!problem) return;
  process.stderr.write(`${new ConfigError([problem]).message}\n`);
  process.exit(2);
}

async function startManagement(config: AppConfig, endpoints: ManagementEndpoints): Promise<void> {
  const { host, port } = config.management;
  const server = await startManagementServer(host, port, endpoints);
  log('info', `management listener on ${host}:${server.port} (/metrics, /healthz, /readyz)`);
}

const LEVELS = { info: 30, warn: 40, error: 50 } as const;

/** The primary logs before Nest's logger exists: same JSON shape as pino's lines. */
function log(level: keyof typeof LEVELS, msg: string): void {
  const line = JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, msg });
  (level === 'info' ? process.stdout : process.stderr).write(line + '\n');
}

/**
 * A failure an operator can mend (a port in use, a database that refuses) is one line saying what to change, with
 * exit code 2 like a configuration problem; anything else is a defect and keeps its stack (exit code 1).
 */
main().catch((error: unknown) => {
  const problem = configured ? startUpProblem(error, configured) : undefined;
  if (problem !== undefined) {
    process.stderr.write(`start-up failed: ${problem}\n`);
    process.exit(2);
  }
  log('error', `start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
