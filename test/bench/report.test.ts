import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Measurement, RunResult } from '../../bench/lib/measurement.js';
import { BEGIN_MARKER, END_MARKER, markersFor, MYSQL_BEGIN_MARKER, MYSQL_END_MARKER, renderReport, replaceBetweenMarkers } from '../../bench/lib/report.js';
import { evaluateTargets } from '../../bench/lib/targets.js';

const ours = (scenario: string, rate: number, extra: Partial<Measurement> = {}): Measurement => ({
  scenario,
  label: scenario,
  kind: 'portcullis',
  server: `Portcullis WORKERS=${extra.workers ?? 1}`,
  workers: 1,
  unit: 'req/s',
  rate,
  p50: 5,
  p99: 20,
  errors: 0,
  peakMb: 150,
  ...extra,
});
const peer = (scenario: string, rate: number, extra: Partial<Measurement> = {}): Measurement => ({
  scenario,
  label: scenario,
  kind: 'peer',
  server: 'peer',
  unit: 'req/s',
  rate,
  p50: 5,
  p99: 20,
  errors: 0,
  ...extra,
});

function run(measurements: Measurement[], database = 'SQLite'): RunResult {
  return {
    startedAt: '2026-11-21T09:00:00.000Z',
    finishedAt: '2026-11-21T09:15:00.000Z',
    quick: false,
    database,
    seconds: 6,
    machine: { cpus: 2, model: 'test cpu', node: '20.20.2', loadAverage: { start: [1, 1, 1], end: [1, 1, 1] } },
    measurements,
  };
}

const verdict = (r: RunResult, subjectServer: string, text: string) =>
  evaluateTargets(r).find((v) => v.subject.server === subjectServer && v.text.startsWith(text));

describe('benchmark report', () => {
  it('replaces only what lies between the markers', () => {
    const document = `# Title\nprose before\n${BEGIN_MARKER}\nold table\n${END_MARKER}\nprose after\n`;
    const updated = replaceBetweenMarkers(document, 'new table');
    assert.equal(updated, `# Title\nprose before\n${BEGIN_MARKER}\nnew table\n${END_MARKER}\nprose after\n`);
    assert.equal(replaceBetweenMarkers(updated, 'newer'), `# Title\nprose before\n${BEGIN_MARKER}\nnewer\n${END_MARKER}\nprose after\n`);
  });

  it("puts a MySQL/MariaDB run between its own markers, leaving the SQLite run's tables alone", () => {
    const document = `${BEGIN_MARKER}\nSQLite table\n${END_MARKER}\n${MYSQL_BEGIN_MARKER}\nold\n${MYSQL_END_MARKER}\n`;
    assert.equal(
      replaceBetweenMarkers(document, 'MariaDB table', markersFor('MariaDB 10.11.6')),
      `${BEGIN_MARKER}\nSQLite table\n${END_MARKER}\n${MYSQL_BEGIN_MARKER}\nMariaDB table\n${MYSQL_END_MARKER}\n`,
    );
    assert.throws(() => replaceBetweenMarkers(`${BEGIN_MARKER}\n${END_MARKER}`, 'table', markersFor('MySQL 8.4')), /lacks the markers/);
  });

  it('refuses a document without the markers instead of appending somewhere', () => {
    assert.throws(() => replaceBetweenMarkers('# no markers', 'table'), /lacks the markers/);
    assert.throws(() => replaceBetweenMarkers(`${END_MARKER}\n${BEGIN_MARKER}`, 'table'), /lacks the markers/);
  });

  it('judges ratios to the raw library per number of workers, within the same run', () => {
    const r = run([peer('oidc.client-credentials', 1000), ours('oidc.client-credentials', 600), ours('oidc.client-credentials', 990, { workers: 2 })]);
    assert.deepEqual(
      { met: verdict(r, 'Portcullis WORKERS=1', '≥ 0.6×')?.met, text: verdict(r, 'Portcullis WORKERS=1', '≥ 0.6×')?.text },
      { met: true, text: '≥ 0.6× the raw library: 0.60×' },
    );
    assert.deepEqual(
      { met: verdict(r, 'Portcullis WORKERS=2', '≥ 1.0×')?.met, text: verdict(r, 'Portcullis WORKERS=2', '≥ 1.0×')?.text },
      { met: false, text: '≥ 1.0× the raw library: 0.99×' },
    );
  });

  it('compares each Portcullis figure with the peer figure measured next to it', () => {
    const r = run([
      ours('oidc.client-credentials', 700),
      peer('oidc.client-credentials', 1000, { nextTo: 1 }),
      ours('oidc.client-credentials', 1100, { workers: 2 }),
      peer('oidc.client-credentials', 1200, { nextTo: 2, server: 'peer (beside WORKERS=2)' }),
    ]);
    assert.equal(verdict(r, 'Portcullis WORKERS=1', '≥ 0.6×')?.text, '≥ 0.6× the raw library: 0.70×');
    assert.deepEqual(
      [verdict(r, 'Portcullis WORKERS=2', '≥ 1.0×')?.met, verdict(r, 'Portcullis WORKERS=2', '≥ 1.0×')?.text],
      [false, '≥ 1.0× the raw library: 0.91×'],
    );
    const markdown = renderReport(r, 'chart.png');
    assert.match(markdown, /\| oidc\.client-credentials \| Portcullis WORKERS=2 \| 1,100 req\/s \|.*\| 0\.91× \|/);
    assert.match(markdown, /\| oidc\.client-credentials \| peer \(beside WORKERS=2\) \| 1,200 req\/s \|/);
  });

  it('leaves a figure whose answers were more than 1 % errors out of every ratio and target, and says so', () => {
    const durable = (rate: number) => peer('oidc.refresh', rate, { server: 'oidc-provider + SQLite adapter', nextTo: 1, requests: 6_000 });
    // The memory peer's rotating refresh as measured: its adapter's LRU evicted the pooled refresh tokens.
    const r = run([
      ours('oidc.refresh', 950, { requests: 5_700 }),
      durable(1000),
      peer('oidc.refresh', 8_664, { nextTo: 1, errors: 158_447, requests: 162_000 }),
      ours('oidc.client-credentials', 700, { requests: 4_200, errors: 43 }),
      peer('oidc.client-credentials', 1000, { nextTo: 1, requests: 6_000, errors: 60 }),
    ]);
    assert.equal(verdict(r, 'Portcullis WORKERS=1', '≥ 0.9× the durable peer')?.text, '≥ 0.9× the durable peer: 0.95×');
    assert.equal(evaluateTargets(r).filter((v) => v.subject.scenario === 'oidc.refresh' && v.text.includes('raw library')).length, 0);
    // Exactly 1 % of errors is still a figure; above it, the figure is void.
    assert.equal(verdict(r, 'Portcullis WORKERS=1', '≥ 0.6×')?.text, '≥ 0.6× the raw library: void: 1 % of the answers failed');
    assert.equal(verdict(r, 'Portcullis WORKERS=1', '≥ 0.6×')?.met, false);
    const markdown = renderReport(r, 'chart.png');
    assert.match(markdown, /\| oidc\.refresh \| peer \| 8,664 req\/s \|.*\| void: 98 % of the answers failed \|/);
    assert.match(markdown, /\| oidc\.refresh \| 1 \| 950 req\/s \| 1,000 req\/s \| 8,664 req\/s \(void: 98 % of the answers failed\) \| 0\.95× \| — \|/);
  });

  it('never rounds a ratio just under its target up to the target', () => {
    const r = run([peer('oidc.introspection-opaque', 254.5), ours('oidc.introspection-opaque', 151.5)]);
    const v = verdict(r, 'Portcullis WORKERS=1', '≥ 0.6×');
    assert.deepEqual([v?.met, v?.text], [false, '≥ 0.6× the raw library: 0.59×']);
  });

  it('judges logins against bcrypt alone and exempts them from the p99 limit', () => {
    const r = run([
      ours('oidc.login', 16, { unit: 'logins/s', hashing: true, p99: 900 }),
      { scenario: 'oidc.bcrypt', label: 'bcrypt', kind: 'reference', server: 'node bcrypt', unit: 'checks/s', rate: 21, errors: 0, hashing: true },
    ]);
    assert.equal(verdict(r, 'Portcullis WORKERS=1', '≥ 80 %')?.met, false);
    assert.equal(verdict(r, 'Portcullis WORKERS=1', 'p99'), undefined);
  });

  it('judges SCIM at the size the peer ran at, and event search at the largest size', () => {
    const r = run([
      ours('scim.lookup', 2500, { size: 10_000 }),
      ours('scim.lookup', 1900, { size: 100_000 }),
      ours('scim.lookup', 1500, { size: 1_000_000 }),
      peer('scim.lookup', 3, { size: 100_000 }),
      ours('events.by-type', 900, { size: 10_000, p50: 3 }),
      ours('events.by-type', 500, { size: 1_000_000, p50: 25 }),
    ]);
    const lookup = verdict(r, 'Portcullis WORKERS=1', '≥ 2,000');
    assert.deepEqual([lookup?.met, lookup?.subject.size], [false, 100_000]);
    assert.equal(verdict(r, 'Portcullis WORKERS=1', 'faster than the peer')?.met, true);
    const events = verdict(r, 'Portcullis WORKERS=1', 'p50 ≤ 20 ms');
    assert.deepEqual([events?.met, events?.subject.size], [false, 1_000_000]);
  });

  it('applies the import target on SQLite only, and the memory limit to every Portcullis row', () => {
    const imported = ours('import', 12_000, { unit: 'users/s', size: 100_000, p50: undefined, p99: undefined, peakMb: 310 });
    assert.equal(verdict(run([imported]), 'Portcullis WORKERS=1', '≥ 10,000')?.met, true);
    assert.equal(verdict(run([imported], 'MariaDB 10.11'), 'Portcullis WORKERS=1', '≥ 10,000'), undefined);
    assert.equal(verdict(run([imported]), 'Portcullis WORKERS=1', '≤ 300 MB')?.met, false);
  });

  it('renders the verdicts, growth and scaling into the tables', () => {
    const markdown = renderReport(
      run([
        peer('oidc.client-credentials', 1000),
        ours('oidc.client-credentials', 500, { cpuUs: 300 }),
        ours('oidc.client-credentials', 800, { workers: 2 }),
        ours('scim.lookup', 2100, { size: 10_000 }),
        ours('scim.lookup', 1900, { size: 100_000 }),
        peer('scim.lookup', 0, { size: 100_000 }),
      ]),
      'bench/results/chart.png',
    );
    assert.match(
      markdown,
      /\| oidc\.client-credentials \| Portcullis WORKERS=1 \| 500 req\/s \| 5 \| 20 \| 0 \| 150 \| 300 \| 0\.50× \| ≥ 0\.6× the raw library: 0\.50× — \*\*missed\*\* \|/,
    );
    assert.match(markdown, /\| scim\.lookup \(100,000\) \| peer \| 0\.0 req\/s \| — \| — \|/);
    assert.match(markdown, /peer: no answer in time/);
    assert.match(markdown, /\| scim\.lookup \| 2,100 req\/s, p50 5 \/ p99 20 ms \| 1,900 req\/s, p50 5 \/ p99 20 ms \|/);
    assert.match(markdown, /\| oidc\.client-credentials \| 500 req\/s \| 800 req\/s \| 1\.60× \|/);
    assert.match(markdown, /!\[[^\]]*\]\(bench\/results\/chart\.png\)/);
  });
});
