/**
 * The CPU a request costs on MySQL/MariaDB against SQLite, from two runs' results. On
 * SQLite the database works inside the service's process; on MySQL/MariaDB the server's CPU is added, so
 * the sum is what is compared. Pure functions, no I/O.
 */
import type { Measurement, RunResult } from './measurement.js';
import { headline, ratio } from './targets.js';

/** A request may cost at most this many times its CPU on SQLite. */
export const CPU_RATIO_LIMIT = 1.5;

/** Tokens, introspection and the SCIM lookup, as goal 5 names them. */
export const COMPARED = [
  { scenario: 'oidc.client-credentials', label: 'token: client credentials' },
  { scenario: 'oidc.refresh', label: 'token: refresh' },
  { scenario: 'oidc.introspection-opaque', label: 'introspection (opaque)' },
  { scenario: 'oidc.introspection-jwt', label: 'introspection (JWT)' },
  { scenario: 'scim.lookup', label: 'SCIM lookup `userName eq`' },
];

export interface CpuComparison {
  label: string;
  workers: number;
  sqliteUs: number;
  serviceUs: number;
  databaseUs: number;
  ratio: number;
  met: boolean;
}

const ours = (workers: number) => (m: Measurement) => m.kind === 'portcullis' && m.workers === workers && m.cpuUs !== undefined;

/** Each compared scenario and WORKERS measured with CPU figures in both runs. */
export function compareCpu(sqlite: RunResult, mysql: RunResult): CpuComparison[] {
  if (sqlite.database !== 'SQLite') throw new Error(`the first results are of ${sqlite.database}, not SQLite`);
  if (mysql.database === 'SQLite') throw new Error('the second results are of SQLite, not MySQL/MariaDB');
  const rows: CpuComparison[] = [];
  for (const { scenario, label } of COMPARED) {
    for (const workers of [1, 2]) {
      const base = headline(sqlite.measurements, scenario, ours(workers));
      const other = headline(mysql.measurements, scenario, ours(workers));
      if (!base || !other) continue;
      const total = other.cpuUs! + (other.dbCpuUs ?? 0);
      rows.push({
        label,
        workers,
        sqliteUs: base.cpuUs!,
        serviceUs: other.cpuUs!,
        databaseUs: other.dbCpuUs ?? 0,
        ratio: total / base.cpuUs!,
        met: total <= CPU_RATIO_LIMIT * base.cpuUs!,
      });
    }
  }
  return rows;
}

/** The comparison as a markdown table, with a sentence on how many rows are within the limit. */
export function renderCpuComparison(sqlite: RunResult, mysql: RunResult): string {
  const rows = compareCpu(sqlite, mysql);
  const num = (n: number) => n.toLocaleString('en');
  const db = mysql.database;
  return [
    `CPU µs per request, ${sqlite.database} run of ${sqlite.startedAt} against ${db} run of ${mysql.startedAt} ` +
      `(${db}: the service's processes plus the database server's). ${rows.filter((r) => r.met).length} of ${rows.length} within ${CPU_RATIO_LIMIT}×.`,
    '',
    `| scenario | WORKERS | SQLite | ${db} service | ${db} server | ${db} total | total ÷ SQLite | ≤ ${CPU_RATIO_LIMIT}× |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.workers} | ${num(r.sqliteUs)} | ${num(r.serviceUs)} | ${num(r.databaseUs)} | ${num(r.serviceUs + r.databaseUs)} | ${ratio(r.ratio)}× | **${r.met ? 'met' : 'missed'}** |`,
    ),
  ].join('\n');
}
