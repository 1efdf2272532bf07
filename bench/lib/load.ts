import autocannon from 'autocannon';
import type { Measurement } from './measurement.js';
import { withPeakMemory } from './processes.js';

export const CONNECTIONS = 10;

/** What a scenario adds to the server it ran against to make a Measurement. */
export type Figures = Pick<Measurement, 'rate' | 'p50' | 'mean' | 'p99' | 'errors' | 'peakMb'>;

/** How long to measure, after how long an unmeasured warm-up (the JIT compiles the hot paths during it). */
export interface Timing {
  seconds: number;
  warmup: number;
}

/**
 * Runs autocannon (10 connections, or `connections`: 1 measures a request's latency without queueing)
 * against `url` with the given request list while sampling the memory of the server's process tree.
 * `socketErrors` counts failed connections and timeouts alone.
 */
export async function load(url: string, pid: number, timing: Timing, requests: Record<string, unknown>[], connections = CONNECTIONS): Promise<Figures & { socketErrors: number }> {
  const warmup = timing.warmup > 0 ? { warmup: { connections, duration: timing.warmup } } : {};
  const run = () => autocannon({ url, connections, duration: timing.seconds, requests, ...warmup });
  const { result, peakMb } = await withPeakMemory(pid, run);
  // Redirects are the login chain's normal answers (and still count as errors in other scenarios).
  const failing = Object.entries(result.statusCodeStats ?? {}).filter(([code]) => !/^[23]/.test(code));
  if (failing.length > 0) console.error(`    non-2xx: ${failing.map(([c, v]) => `${c}×${v.count}`).join(', ')}`);
  return {
    rate: result.requests.average,
    p50: result.latency.p50,
    mean: result.latency.average,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors, // errors include timeouts
    peakMb,
    socketErrors: result.errors,
  };
}

export function print(m: Measurement): void {
  const latency = m.p50 === undefined ? '' : ` p50 ${m.p50} ms p99 ${m.p99} ms`;
  const size = m.size === undefined ? '' : ` @${m.size.toLocaleString('en')}`;
  console.error(`  ${m.label}${size} | ${m.server}: ${m.rate.toFixed(1)} ${m.unit}${latency} errors ${m.errors}${m.peakMb ? ` peak ${m.peakMb} MB` : ''}${m.cpuUs ? ` CPU ${m.cpuUs} µs/req` : ''}`);
}
