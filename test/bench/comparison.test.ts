import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareCpu, renderCpuComparison } from '../../bench/lib/comparison.js';
import type { Measurement, RunResult } from '../../bench/lib/measurement.js';

const ours = (scenario: string, cpuUs: number, extra: Partial<Measurement> = {}): Measurement => ({
  scenario,
  label: scenario,
  kind: 'portcullis',
  server: `Portcullis WORKERS=${extra.workers ?? 1}`,
  workers: 1,
  unit: 'req/s',
  rate: 1000,
  errors: 0,
  cpuUs,
  ...extra,
});

const run = (database: string, measurements: Measurement[]): RunResult => ({
  startedAt: '2026-11-24T09:00:00.000Z',
  finishedAt: '2026-11-24T09:15:00.000Z',
  quick: false,
  database,
  seconds: 6,
  machine: { cpus: 2, model: 'test cpu', node: '20.20.2', loadAverage: { start: [1, 1, 1], end: [1, 1, 1] } },
  measurements,
});

describe('benchmark CPU comparison, MariaDB against SQLite', () => {
  const sqlite = run('SQLite', [
    ours('oidc.client-credentials', 800),
    ours('oidc.client-credentials', 900, { workers: 2 }),
    ours('scim.lookup', 300, { size: 100_000 }),
    ours('oidc.userinfo', 700),
  ]);
  const mariadb = run('MariaDB 10.11.6', [
    ours('oidc.client-credentials', 900, { dbCpuUs: 300 }),
    ours('oidc.client-credentials', 1000, { workers: 2, dbCpuUs: 400 }),
    ours('scim.lookup', 350, { size: 100_000, dbCpuUs: 101 }),
    ours('oidc.userinfo', 700, { dbCpuUs: 900 }),
  ]);

  it('compares the service plus the database server with SQLite, per WORKERS, and only the scenarios of goal 5', () => {
    assert.deepEqual(
      compareCpu(sqlite, mariadb).map((r) => [r.label, r.workers, r.serviceUs + r.databaseUs, r.met]),
      [
        ['token: client credentials', 1, 1200, true],
        ['token: client credentials', 2, 1400, false],
        ['SCIM lookup `userName eq`', 1, 451, false],
      ],
    );
  });

  it('renders the table with the ratio rounded down and the verdict', () => {
    const markdown = renderCpuComparison(sqlite, mariadb);
    assert.match(markdown, /1 of 3 within 1\.5×/);
    assert.match(markdown, /\| token: client credentials \| 1 \| 800 \| 900 \| 300 \| 1,200 \| 1\.50× \| \*\*met\*\* \|/);
    assert.match(markdown, /\| SCIM lookup `userName eq` \| 1 \| 300 \| 350 \| 101 \| 451 \| 1\.50× \| \*\*missed\*\* \|/);
  });

  it('refuses results given in the wrong order', () => {
    assert.throws(() => compareCpu(mariadb, sqlite), /not SQLite/);
    assert.throws(() => compareCpu(sqlite, sqlite), /not MySQL\/MariaDB/);
  });
});
