import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { processSetup } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import type { ServiceProcess } from '../support/process.js';
import { freePort } from '../support/service.js';

const run = promisify(execFile);
const UNIT = 'deploy/systemd/portcullis.service';
const RULES = 'deploy/prometheus/portcullis-rules.yml';
const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze';
/** Debian's prometheus package ships promtool; CI does not install it (30 packages, 96 MB for one check). */
const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((path) => existsSync(path));

interface Rule {
  alert: string;
  expr: string;
  severity?: string;
  summary?: string;
}

/**
 * The rules of the file, read by its layout (`- alert:` items; `expr:` inline or a `|` block up to the next key).
 * No YAML library is a dependency; promtool, where installed, checks the file as Prometheus reads it.
 */
function alertRules(text: string): Rule[] {
  return text
    .split(/^ {6}- alert: /m)
    .slice(1)
    .map((item) => ({
      alert: item.split('\n', 1)[0].trim(),
      expr: /^ {8}expr: (?:\|\n)?([\s\S]*?)^ {8}[a-z]+:/m.exec(item)?.[1].trim() ?? '',
      severity: /^ {10}severity: (\S+)$/m.exec(item)?.[1],
      summary: /^ {10}summary: (.+)$/m.exec(item)?.[1],
    }));
}

/** `KEY=VALUE` of the unit's `Environment=` lines. */
function unitEnvironment(unit: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of unit.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)) env[match[1]] = match[2];
  return env;
}

/** Metric names an expression reads: identifiers of the service's families, a histogram's `_bucket`, `_sum`, `_count` series mapped to their family. */
function metricsOf(expr: string): string[] {
  const names = expr.match(/\b(?:portcullis|process|nodejs)_[a-z0-9_]+\b/g) ?? [];
  return [...new Set(names.map((name) => name.replace(/_(bucket|sum|count)$/, '')))];
}

/**
 * docs/operations.md shows every file under deploy/ verbatim, and the files are what the tests run: the
 * systemd unit starts the service as written, the alert rules read only families its /metrics serves.
 */
describe('operations: the files under deploy/ are the ones docs/operations.md shows, and they work', () => {
  let setup: ProcessSetup;
  let service: ServiceProcess;
  let exposition: string;

  before(async () => {
    // The unit's own environment, with the data directory a temporary one and the master key its separate file would hold.
    const { DATA_DIR: _dataDir, ...env } = unitEnvironment(readFileSync(UNIT, 'utf8'));
    setup = await processSetup();
    const managementPort = await freePort();
    service = await setup.spawn({ ...env, MASTER_KEY: randomBytes(32).toString('base64'), MANAGEMENT_PORT: String(managementPort) });
    // A token and a failed password check, so that labelled families have series as well as their TYPE line.
    await fetch(`${service.url}/oauth/v2/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials' }) });
    exposition = await (await fetch(`http://127.0.0.1:${managementPort}/metrics`)).text();
  });
  after(() => setup?.cleanup());

  it('docs/operations.md shows each file under deploy/ as it is', () => {
    const doc = readFileSync('docs/operations.md', 'utf8');
    const shown = new Map<string, string>();
    for (const match of doc.matchAll(/^`(deploy\/[^`]+)`:\n\n```[a-z]*\n([\s\S]*?)```$/gm)) shown.set(match[1], match[2]);
    const files = readdirSync('deploy', { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
      .sort();
    assert.deepEqual([...shown.keys()].sort(), files, 'every file under deploy/ is shown, and nothing else under that name');
    for (const file of files) assert.equal(shown.get(file), readFileSync(file, 'utf8'), `${file} differs from what docs/operations.md shows`);
  });

  it('the systemd unit passes systemd-analyze verify, and the service it starts stops cleanly on its KillSignal', {
    skip: !existsSync(SYSTEMD_ANALYZE) && `${SYSTEMD_ANALYZE} not installed`,
  }, async () => {
    const unit = readFileSync(UNIT, 'utf8');
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-unit-'));
    try {
      // ExecStart names Debian's node; where this test runs from another one, verify that one instead.
      const copy = join(dir, 'portcullis.service');
      writeFileSync(copy, existsSync('/usr/bin/node') ? unit : unit.replace('ExecStart=/usr/bin/node', `ExecStart=${process.execPath}`));
      const { stdout, stderr } = await run(SYSTEMD_ANALYZE, ['verify', copy]);
      assert.equal(stdout + stderr, '', 'no warning: an unknown key is only a warning to systemd');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.match(unit, /^KillSignal=SIGTERM$/m);
    const stopped = await service.stop('SIGTERM');
    // systemd counts an exit by SIGTERM as clean (systemd.service(5), SuccessExitStatus=).
    assert.ok(stopped.code === 0 || stopped.signal === 'SIGTERM', `${JSON.stringify(stopped)}\n${service.output().slice(-2000)}`);
  });

  it('every alert rule reads only metric families the service serves at /metrics', async () => {
    const rules = alertRules(readFileSync(RULES, 'utf8'));
    assert.ok(rules.length >= 8, `${rules.length} rules`);
    const families = new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]));
    assert.ok(families.has('portcullis_http_requests_total'), exposition.slice(0, 500));
    const alerts = new Set<string>();
    for (const rule of rules) {
      assert.ok(!alerts.has(rule.alert), `${rule.alert} is named once`);
      alerts.add(rule.alert);
      assert.ok(rule.expr, `${rule.alert}: expr`);
      assert.ok(['page', 'warn'].includes(rule.severity ?? ''), `${rule.alert}: severity`);
      assert.ok(rule.summary, `${rule.alert}: summary`);
      const read = metricsOf(rule.expr);
      assert.ok(read.length > 0 || /\bup\{/.test(rule.expr), `${rule.alert} reads a metric`);
      for (const name of read) assert.ok(families.has(name), `${rule.alert} reads ${name}, which /metrics does not serve`);
    }
  });

  it('promtool check rules accepts the rule file', { skip: !PROMTOOL && 'promtool not installed (Debian package prometheus)' }, async () => {
    const { stdout } = await run(PROMTOOL!, ['check', 'rules', RULES]);
    assert.match(stdout, /SUCCESS/);
  });
});
