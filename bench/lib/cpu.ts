import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat fields 14 and 15. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command (field 2) may contain spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * Runs `work` and gives its result with the server's CPU microseconds per request: less sensitive to a
 * shared, noisy machine than the rate, since time the server waits for the CPU is not counted.
 */
export async function withCpuPerRequest<T extends { rate: number }>(pid: number, seconds: number, work: () => Promise<T>): Promise<T & { cpuUs: number }> {
  const before = cpuSeconds(pid);
  const result = await work();
  const used = cpuSeconds(pid) - before;
  return { ...result, cpuUs: Math.round((used * 1e6) / Math.max(1, result.rate * seconds)) };
}
