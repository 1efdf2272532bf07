import { readdirSync, readFileSync } from 'node:fs';
import { processTree } from './processes.js';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat fields 14 and 15. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command (field 2) may contain spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU seconds of each process of a tree (the primary and its cluster workers); ended processes are left out. */
function treeCpu(root: number): Map<number, number> {
  const used = new Map<number, number>();
  for (const pid of processTree(root)) {
    try {
      used.set(pid, cpuSeconds(pid));
    } catch {
      // the process ended while we looked
    }
  }
  return used;
}

/**
 * The local MySQL/MariaDB server whose CPU the bench counts beside the service's (`mariadbd` or `mysqld`,
 * found by name in /proc): set once by the orchestrator for a `--mysql` run, when the server runs on this
 * machine. Nothing else uses the database during a run, so its CPU is the service's queries.
 */
let databaseServer: number | undefined;

export function watchDatabaseServer(): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (['mariadbd', 'mysqld'].includes(readFileSync(`/proc/${name}/comm`, 'utf8').trim())) return (databaseServer = Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return undefined;
}

export interface CpuPerRequest {
  /** The server's process tree (all workers summed), µs per request. */
  cpuUs: number;
  /** The database server's, when one is watched. */
  dbCpuUs?: number;
}

/**
 * Counts the CPU the server's process tree (and the watched database server) use while `work` runs; `per`
 * turns the seconds into µs per request once the work tells how many requests it served.
 */
export async function withCpu<T>(
  rootPid: number,
  work: () => Promise<T>,
): Promise<{ result: T; per(requests: number): CpuPerRequest | Record<string, never> }> {
  const before = treeCpu(rootPid);
  const dbBefore = databaseServer === undefined ? undefined : cpuSeconds(databaseServer);
  const result = await work();
  let service = 0;
  // A process started during the work (none expected) counts whole: all its CPU fell in the window.
  for (const [pid, seconds] of treeCpu(rootPid)) service += seconds - (before.get(pid) ?? 0);
  const database = dbBefore === undefined ? undefined : cpuSeconds(databaseServer!) - dbBefore;
  const us = (seconds: number, requests: number) => Math.round((seconds * 1e6) / requests);
  // No request answered (a server that stalled): no CPU per request to give.
  const per = (requests: number) =>
    requests === 0 ? {} : { cpuUs: us(service, requests), ...(database === undefined ? {} : { dbCpuUs: us(database, requests) }) };
  return { result, per };
}
