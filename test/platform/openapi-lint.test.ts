import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from '../support/conformance.js';
import { useService } from '../support/fixtures.js';

const REDOCLY = join(REPO_ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: 'error' | 'warn'; message: string; location: { pointer: string }[] }[];
}

/**
 * The served OpenAPI document passes a real linter: `redocly lint` with the recommended ruleset and
 * the exceptions of redocly.yaml, each with its reason. Offline: no telemetry, no update check
 * (the rules are bundled in @redocly/cli).
 */
describe('OpenAPI document: redocly lint (recommended rules, redocly.yaml)', () => {
  const svc = useService();
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has no errors; warnings are listed', async (t) => {
    const res = await svc.api('GET', '/docs-json');
    assert.equal(res.status, 200);
    const file = join(dir, 'openapi.json');
    writeFileSync(file, res.text);
    const result = spawnSync(process.execPath, [REDOCLY, 'lint', file, '--config', join(REPO_ROOT, 'redocly.yaml'), '--format=json'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 120_000,
    });
    const report = JSON.parse(result.stdout) as LintReport;
    for (const p of report.problems) t.diagnostic(`${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
    t.diagnostic(`redocly lint: ${report.totals.errors} error(s), ${report.totals.warnings} warning(s)`);
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    assert.deepEqual(errors, []);
    assert.equal(result.status, 0, result.stderr);
  });
});
