import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../src/common/config/config.js';
import { createDataSource } from '../../src/common/database/data-source.js';
import { createTestDatabase } from '../support/database.js';
import { createClient } from '../support/http.js';
import { spawnService } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';
import type { TestService } from '../support/service.js';
import { TcpProxy } from './tcp-proxy.js';
import { ENTITIES } from '../../src/entities.js';

/**
 * A DATA_DIR and a fresh database (SQLite in DATA_DIR, or MariaDB with TEST_DATABASE_URL) for service
 * processes that are started, killed and restarted by a test; `env` is what every process gets.
 */
export interface ProcessSetup {
  dataDir: string;
  env: Record<string, string>;
  adminToken(): string;
  /** Starts one more service process on this setup (extra variables on top of `env`). */
  spawn(extra?: Record<string, string>, options?: { port?: number }): Promise<ServiceProcess>;
  /** Opens the setup's database directly (the way an operator would inspect it) for `read`. */
  inspect<T>(read: (dataSource: DataSource) => Promise<T>): Promise<T>;
  /** Kills every process spawned here and removes the database and DATA_DIR. */
  cleanup(): Promise<void>;
}

export async function processSetup(env: Record<string, string> = {}): Promise<ProcessSetup> {
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-faults-'));
  const database = await createTestDatabase();
  const fullEnv = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(database.url ? { DATABASE_URL: database.url } : {}), ...env };
  const spawned: ServiceProcess[] = [];
  return {
    dataDir,
    env: fullEnv,
    adminToken: () => readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim(),
    spawn: async (extra = {}, options = {}) => {
      const proc = await spawnService({ ...fullEnv, ...extra }, options);
      spawned.push(proc);
      return proc;
    },
    inspect: async (read) => {
      const dataSource = createDataSource(loadConfig(fullEnv).database, ENTITIES);
      await dataSource.initialize();
      try {
        return await read(dataSource);
      } finally {
        await dataSource.destroy();
      }
    },
    cleanup: async () => {
      await Promise.all(spawned.map((p) => p.stop('SIGKILL')));
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The part of TestService the shared fixtures (createOrg, createCaller, scimTenant, the OIDC fixtures)
 * use: an HTTP client, the admin token and the public URL. Lets them set up a spawned process too.
 */
export function remoteService(url: string, adminToken: string): TestService {
  const remote: Pick<TestService, 'url' | 'api' | 'adminToken'> & { config: { publicUrl: string } } = {
    url,
    api: createClient(url),
    adminToken,
    config: { publicUrl: url },
  };
  return remote as unknown as TestService;
}

/** Polls `check` until it returns a value other than undefined, or fails with `what` at the deadline. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 15_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Until the operators' listener at `management` (its base URL) answers `/readyz` 200: with WORKERS > 1, once every
 * worker listens (docs/operations.md, "Start-up").
 */
export function untilReady(management: string, what: string, timeoutMs?: number, intervalMs?: number): Promise<true> {
  return eventually(what, async () => ((await fetch(`${management}/readyz`)).status === 200 ? true : undefined), timeoutMs, intervalMs);
}

/**
 * A service process whose database connections pass through a TCP proxy, so a test can take the
 * database away (`proxy.stop`) without touching the server other suites use. MySQL/MariaDB only.
 */
export async function spawnBehindProxy(setup: ProcessSetup, extra: Record<string, string> = {}): Promise<{ proxy: TcpProxy; service: ServiceProcess }> {
  const direct = new URL(setup.env.DATABASE_URL);
  const proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 3306) });
  const viaProxy = new URL(direct);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  return { proxy, service: await setup.spawn({ ...extra, DATABASE_URL: viaProxy.toString() }) };
}
