import autocannon from 'autocannon';
import { withCpu } from './cpu.js';
import type { Measurement } from './measurement.js';
import { withPeakMemory } from './processes.js';
import { cpuText } from './report.js';

export const CONNECTIONS = 10;

/** What a scenario adds to the server it ran against to make a Measurement. */
export type Figures = Pick<Measurement, 'rate' | 'p50' | 'mean' | 'p99' | 'errors' | 'requests' | 'peakMb' | 'cpuUs' | 'dbCpuUs'>;

/** How long to measure, after how long an unmeasured warm-up (the JIT compiles the hot paths during it). */
export interface Timing {
  seconds: number;
  warmup: number;
}

/**
 * Runs autocannon (10 connections, or `connections`: 1 measures a request's latency without queueing)
 * against `url` with the given request list while sampling the memory of the server's process tree and
 * counting its CPU (and the watched database server's, bench/lib/cpu.ts) per request.
 * `socketErrors` counts failed connections and timeouts alone.
 */
export async function load(
  url: string,
  pid: number,
  timing: Timing,
  requests: Record<string, unknown>[],
  connections = CONNECTIONS,
): Promise<Figures & { socketErrors: number }> {
  // A run of its own rather than autocannon's `warmup` option: the CPU counted must be the measured run's.
  if (timing.warmup > 0) await autocannon({ url, connections, duration: timing.warmup, requests });
  const run = () => autocannon({ url, connections, duration: timing.seconds, requests });
  const {
    result: { result, per },
    peakMb,
  } = await withPeakMemory(pid, () => withCpu(pid, run));
  // Redirects are the login chain's normal answers (and still count as errors in other scenarios).
  const failing = Object.entries(result.statusCodeStats ?? {}).filter(([code]) => !/^[23]/.test(code));
  if (failing.length > 0) console.error(`    non-2xx: ${failing.map(([c, v]) => `${c}×${v.count}`).join(', ')}`);
  return {
    rate: result.requests.average,
    p50: result.latency.p50,
    mean: result.latency.average,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors, // errors include timeouts
    requests: result.requests.total,
    peakMb,
    ...per(result.requests.total),
    socketErrors: result.errors,
  };
}

/** What the CPU figure is per: a request, or a chain's operation (`logins/s` → login). */
const perWhat = (m: Measurement) => /^(.*)s\/s$/.exec(m.unit)?.[1] ?? 'req';

export function print(m: Measurement): void {
  const latency = m.p50 === undefined ? '' : ` p50 ${m.p50} ms${m.p99 === undefined ? '' : ` p99 ${m.p99} ms`}`;
  const size = m.size === undefined ? '' : ` @${m.size.toLocaleString('en')}`;
  console.error(
    `  ${m.label}${size} | ${m.server}: ${m.rate.toFixed(1)} ${m.unit}${latency} errors ${m.errors}${m.peakMb ? ` peak ${m.peakMb} MB` : ''}${m.cpuUs === undefined ? '' : ` CPU ${cpuText(m)} µs/${perWhat(m)}`}`,
  );
}

/**
 * The figures of a request chain (a login is five requests) per completed operation rather than per
 * request: its rate, and its CPU per operation. Only the operations the chain counts as failed, and socket
 * errors, are errors (the chain's redirects are non-2xx by design).
 */
export function perOperation(figures: Figures & { socketErrors: number }, seconds: number, done: { completed: number; failed: number }): Figures {
  const { rate: requestRate, socketErrors, cpuUs, dbCpuUs, ...rest } = figures;
  const requestsPerOperation = (requestRate * seconds) / done.completed;
  // No operation completed (a 1 s quick run on a slow machine): there is no CPU per operation to give.
  const cpu =
    done.completed === 0
      ? {}
      : {
          ...(cpuUs === undefined ? {} : { cpuUs: Math.round(cpuUs * requestsPerOperation) }),
          ...(dbCpuUs === undefined ? {} : { dbCpuUs: Math.round(dbCpuUs * requestsPerOperation) }),
        };
  return { ...rest, ...cpu, rate: done.completed / seconds, errors: done.failed + socketErrors, requests: done.completed + done.failed };
}
