import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './service.js';
import type { TestService } from './service.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

export interface ServiceProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Sends the signal and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * A second process of `svc`'s instance, as WORKERS or a second host runs it: the same database, DATA_DIR (so the same
 * master key) and PUBLIC_URL, unless `env` says otherwise.
 */
export function spawnSecondProcess(svc: TestService, env: Record<string, string> = {}, options: { port?: number } = {}): Promise<ServiceProcess> {
  const db = svc.config.database;
  return spawnService(
    { DATA_DIR: svc.dataDir, DATABASE_URL: db.type === 'mysql' ? db.url : `sqlite:${db.path}`, PUBLIC_URL: svc.config.publicUrl, LOG_LEVEL: 'error', ...env },
    options,
  );
}

/**
 * Starts `node dist/src/main.js` as an operator would, and waits until /healthz answers 200. A port chosen here
 * can be taken by another test process before the service binds it: then start-up fails with EADDRINUSE and a
 * fresh port is tried (a port the caller chose is never replaced).
 */
export async function spawnService(env: Record<string, string>, options: { port?: number; nodeOptions?: string[] } = {}): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnOnce(env, options.port ?? (await freePort()), options.nodeOptions ?? []);
    } catch (error) {
      if (options.port !== undefined || attempt >= 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

async function spawnOnce(env: Record<string, string>, port: number, nodeOptions: string[]): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [...nodeOptions, MAIN], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', BCRYPT_COST: '4', PORT: String(port), MANAGEMENT_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`service exited during start-up (exit code ${child.exitCode ?? child.signalCode}):\n${output}`);
    try {
      const health = await fetch(`${url}/healthz`);
      // The service's own /healthz carries X-Request-Id; another listener on the port (a management listener on
      // port 0 may be given the very port chosen here) does not: then the service fails with EADDRINUSE.
      if (health.status === 200 && health.headers.has('x-request-id')) break;
      if (output.includes('EADDRINUSE')) {
        child.kill('SIGKILL');
        throw new Error(`service could not bind its port (EADDRINUSE):\n${output}`);
      }
    } catch (error) {
      if (String(error).includes('EADDRINUSE')) throw error;
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not become healthy within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    child,
    output: () => output,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the service expecting it to refuse to start; resolves with its exit code and output. */
export function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', MANAGEMENT_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    // Only against a process that never exits: on a loaded 2-core machine loading the application alone took 30 s.
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
