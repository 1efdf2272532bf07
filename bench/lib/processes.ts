import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';

export const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
/** Extra node flags for the Portcullis processes, e.g. `BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'`. */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

export interface Running {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * A port nobody listens on. Not test/support/service.ts's: importing that module loads the whole service
 * into the load generator's process.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Where the service keeps its data: DATA_DIR always (admin.pat), DATABASE_URL on MySQL/MariaDB. */
export interface Store {
  dataDir: string;
  databaseUrl?: string;
}

/**
 * `node dist/src/main.js` as an operator starts it, waited for until /healthz answers. Restarts on the
 * same data pass the same port: PUBLIC_URL is the issuer of the tokens issued before.
 */
export async function startService(store: Store, workers: number, port?: number, extraEnv: Record<string, string> = {}, root = ROOT): Promise<Running> {
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    PORT: String(port),
    PUBLIC_URL: url,
    DATA_DIR: store.dataDir,
    LOG_LEVEL: 'error',
    WORKERS: String(workers),
    // Several services may run at once in a bench run: their management listeners take any free port.
    MANAGEMENT_PORT: '0',
    BCRYPT_COST: process.env.BCRYPT_COST ?? '10',
    ...(store.databaseUrl ? { DATABASE_URL: store.databaseUrl } : {}),
    ...extraEnv,
  };
  return startNode([...NODE_ARGS, join(root, 'dist/src/main.js')], env, `${url}/healthz`, (status) => status === 200);
}

/**
 * Processes started side by side (their starts are not measured): all of them, or, when one fails to start,
 * the others stopped and its error thrown.
 */
export async function allStarted(starting: Promise<Running>[]): Promise<Running[]> {
  const settled = await Promise.allSettled(starting);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (!failed) return settled.map((s) => (s as PromiseFulfilledResult<Running>).value);
  for (const s of settled) if (s.status === 'fulfilled') await s.value.stop();
  throw failed.reason;
}

/** A peer server of bench/peers (compiled), given its arguments after the port; ready once it answers at all. */
export async function startPeer(file: string, args: string[]): Promise<Running> {
  const port = await freePort();
  return startNode([join(ROOT, 'dist/bench/peers', file), String(port), ...args], {}, `http://127.0.0.1:${port}/`, () => true);
}

async function startNode(args: string[], env: Record<string, string>, readyUrl: string, ready: (status: number) => boolean): Promise<Running> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  forwardErrors(child);
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  await waitFor(child, readyUrl, ready);
  return {
    url: new URL(readyUrl).origin,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // A peer still working through a backlog may ignore SIGTERM for long; the data is not needed.
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Passes the child's stderr on, without oidc-provider's start-up warnings (Node 20, memory adapter) in every start. */
function forwardErrors(child: ChildProcess): void {
  let pending = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (!line.startsWith('oidc-provider WARNING')) process.stderr.write(`${line}\n`);
  });
}

async function waitFor(child: ChildProcess, url: string, ready: (status: number) => boolean): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode} during start-up`);
    try {
      if (ready((await fetch(url)).status)) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${url} did not come up within 120 s`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The process and all its descendants (the cluster workers of WORKERS=2). */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent; the command (field 2) may contain spaces, so split after ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended while we looked
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid);
  return tree;
}

function residentMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Samples the resident memory of a process tree every 200 ms while `work` runs; resolves with the work's
 * result and the largest resident size any one process of the tree reached (MB), the figure the
 * "≤ 300 MB per process" target is about.
 */
export async function withPeakMemory<T>(rootPid: number, work: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peakMb = 0;
  const sample = () => {
    for (const pid of processTree(rootPid)) peakMb = Math.max(peakMb, residentMb(pid));
  };
  sample();
  const timer = setInterval(sample, 200);
  try {
    const result = await work();
    sample();
    return { result, peakMb: Math.round(peakMb) };
  } finally {
    clearInterval(timer);
  }
}
