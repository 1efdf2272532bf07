/**
 * BENCHMARKS.md's sizing table: Portcullis's capacity per process and per vCPU in the
 * units of Keycloak's sizing guide, from one run's figures. Pure functions, no I/O.
 */
import type { Measurement, RunResult } from './measurement.js';
import { headline } from './targets.js';

/** The scenario families a sizing guide counts, in the guide's units. */
export const SIZING_FAMILIES = [
  { scenario: 'oidc.client-credentials', unit: 'client-credentials grants/s' },
  { scenario: 'oidc.login', unit: 'password logins/s' },
  { scenario: 'oidc.refresh', unit: 'refreshes/s' },
  { scenario: 'oidc.introspection-opaque', unit: 'introspections/s (opaque)' },
  { scenario: 'oidc.introspection-jwt', unit: 'introspections/s (JWT)' },
  { scenario: 'oidc.userinfo', unit: 'userinfo requests/s' },
  { scenario: 'scim.lookup', unit: 'SCIM lookups/s' },
  { scenario: 'scim.create', unit: 'SCIM creates/s' },
  { scenario: 'scim.patch', unit: 'SCIM PATCH/s' },
  { scenario: 'events.by-type', unit: 'event searches/s' },
];

/** CPU µs a request costs in all: the service's, plus the database server's on MySQL/MariaDB. */
export const totalCpuUs = (m: Measurement) => (m.cpuUs === undefined ? undefined : m.cpuUs + (m.dbCpuUs ?? 0));

/** Requests a fully used vCPU serves per second at this CPU cost per request. */
export const perVcpu = (cpuUs: number) => 1e6 / Math.max(1, cpuUs);

const fmt = (n: number | undefined) => (n === undefined ? '—' : n.toLocaleString('en', { maximumFractionDigits: n < 100 ? 1 : 0 }));
const row = (cells: string[]) => `| ${cells.join(' | ')} |`;

function vcpuCell(m: Measurement | undefined): string {
  const total = m && totalCpuUs(m);
  if (!m || total === undefined) return '—';
  // On MySQL/MariaDB: the vCPU serves the database server's share too; the service's own figure beside it.
  return m.dbCpuUs === undefined ? fmt(perVcpu(total)) : `${fmt(perVcpu(total))} (service alone ${fmt(perVcpu(m.cpuUs!))})`;
}

function cpuCell(m: Measurement | undefined): string {
  if (m?.cpuUs === undefined) return '—';
  return m.dbCpuUs === undefined ? fmt(m.cpuUs) : `${fmt(m.cpuUs)} + ${fmt(m.dbCpuUs)} DB`;
}

/** One row per family measured: rate with WORKERS=1 and 2, CPU per request, per vCPU, peak MB per process. */
export function sizingTable(run: RunResult): string[] {
  const ms = run.measurements;
  const lines = [
    row(['family', 'WORKERS=1 (one process)', 'WORKERS=2', 'CPU µs per request (WORKERS=1)', 'per fully used vCPU (1e6 ÷ CPU µs)', 'peak MB per process']),
    row(Array(6).fill('---')),
  ];
  for (const family of SIZING_FAMILIES) {
    const [one, two] = [1, 2].map((w) => headline(ms, family.scenario, (m) => m.kind === 'portcullis' && m.workers === w));
    if (!one && !two) continue;
    const peaks = [one, two].map((m) => m?.peakMb).filter((mb): mb is number => mb !== undefined);
    lines.push(row([family.unit, fmt(one?.rate), fmt(two?.rate), cpuCell(one), vcpuCell(one), peaks.length ? fmt(Math.max(...peaks)) : '—']));
  }
  return lines;
}
