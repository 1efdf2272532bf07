import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Measurement, RunResult } from '../../bench/lib/measurement.js';
import { perVcpu, sizingTable } from '../../bench/lib/sizing.js';

const ours = (scenario: string, rate: number, extra: Partial<Measurement> = {}): Measurement => ({
  scenario,
  label: scenario,
  kind: 'portcullis',
  server: `Portcullis WORKERS=${extra.workers ?? 1}`,
  workers: 1,
  unit: 'req/s',
  rate,
  errors: 0,
  peakMb: 150,
  ...extra,
});

const run = (measurements: Measurement[]): RunResult => ({
  startedAt: '2026-11-21T09:00:00.000Z',
  finishedAt: '2026-11-21T09:15:00.000Z',
  quick: false,
  database: 'SQLite',
  seconds: 6,
  machine: { cpus: 2, model: 'test cpu', node: '20.20.2', loadAverage: { start: [1, 1, 1], end: [1, 1, 1] } },
  measurements,
});

describe('benchmark sizing table', () => {
  it('gives what one fully used vCPU serves at a CPU cost per request', () => {
    assert.equal(perVcpu(1000), 1000);
    assert.equal(perVcpu(250), 4000);
  });

  it('puts WORKERS=1 and WORKERS=2 of a family on one row, with the larger peak memory of the two', () => {
    const [, , grants] = sizingTable(
      run([ours('oidc.client-credentials', 1200, { cpuUs: 800, peakMb: 170 }), ours('oidc.client-credentials', 1900, { workers: 2, cpuUs: 900, peakMb: 180 })]),
    );
    assert.equal(grants, '| client-credentials grants/s | 1,200 | 1,900 | 800 | 1,250 | 180 |');
  });

  it('counts the database server in on MySQL/MariaDB and shows the service alone beside it', () => {
    const [, , lookups] = sizingTable(run([ours('scim.lookup', 2000, { size: 100_000, cpuUs: 300, dbCpuUs: 200 })]));
    assert.equal(lookups, '| SCIM lookups/s | 2,000 | — | 300 + 200 DB | 2,000 (service alone 3,333) | 150 |');
  });

  it('shows SCIM at its headline size, logins per login, and leaves out families not measured', () => {
    const table = sizingTable(
      run([
        ours('scim.lookup', 2500, { size: 10_000, cpuUs: 200 }),
        ours('scim.lookup', 2000, { size: 100_000, cpuUs: 250 }),
        { ...ours('scim.lookup', 10, { size: 100_000 }), kind: 'peer', server: 'scimmy peer' },
        ours('oidc.login', 20, { unit: 'logins/s', cpuUs: 80_000 }),
      ]),
    );
    assert.deepEqual(table.slice(2), ['| password logins/s | 20 | — | 80,000 | 12.5 | 150 |', '| SCIM lookups/s | 2,000 | — | 250 | 4,000 | 150 |']);
  });
});
