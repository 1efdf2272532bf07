import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const ROOT = new URL('../../..', import.meta.url).pathname;
const PRELOAD = join(ROOT, 'scripts', 'test-async-scope.mjs');

/**
 * Suites written the ways this project's are: a test declared after an await in a suite, hooks, a nested suite, and
 * errors thrown or rejected outside any await, which the runner must pin on the test that caused them.
 */
const FIXTURE = `
import { after, before, describe, it, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
console.log('# async scope: ' + (globalThis[Symbol.for('portcullis.test-async-scope')] === true));
describe('outer', async () => {
  await sleep(2);
  before(async () => { await sleep(1); });
  it('declared after an await', async () => { await sleep(1); });
  describe('inner', () => { it('nested', () => {}); });
  after(() => {});
});
test('an uncaught exception fails this test', async () => {
  setImmediate(() => { throw new Error('thrown-outside'); });
  await sleep(100);
});
test('an unhandled rejection fails this test', async () => {
  Promise.reject(new Error('rejected-outside'));
  await sleep(100);
});
test('late activity', () => { setTimeout(() => { throw new Error('after-the-end'); }, 20); });
test('last', async () => { await sleep(100); });
`;

/** What the runner reported: each test's nesting depth, name and outcome, and the top-level diagnostics. */
function run(withPreload: boolean, file: string) {
  const args = [...(withPreload ? ['--import', PRELOAD] : []), '--test-reporter=tap', file];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 });
  const tests = [...result.stdout.matchAll(/^( *)(not ok|ok) \d+ - (.+)$/gm)].map(([, indent, outcome, name]) => `${indent.length / 4} ${outcome} ${name}`);
  const diagnostics = result.stdout.split('\n').filter((line) => /^# Error: /.test(line));
  const active = result.stdout.includes('# async scope: true');
  return { active, tests, diagnostics, failures: [...result.stdout.matchAll(/(thrown-outside|rejected-outside)/g)].length, status: result.status };
}

describe('the async-scope preload (scripts/test-async-scope.mjs) keeps the test runner’s answers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-async-scope-'));
  const file = join(dir, 'fixture.test.mjs');
  writeFileSync(file, FIXTURE);
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('nests, attributes and fails exactly as the runner does without it', () => {
    const plain = run(false, file);
    const scoped = run(true, file);
    // Node 20 to 24 have the runner the preload is written for; on them it must take effect.
    if (Number(process.versions.node.split('.')[0]) <= 24) assert.ok(scoped.active, 'the preload took effect');
    assert.equal(plain.active, false);
    assert.deepEqual(scoped.tests, plain.tests);
    assert.deepEqual(scoped.diagnostics, plain.diagnostics);
    assert.equal(scoped.status, plain.status);
    assert.ok(plain.tests.includes('1 ok declared after an await'), plain.tests.join('\n'));
    assert.ok(plain.tests.includes('2 ok nested'), plain.tests.join('\n'));
    assert.ok(scoped.tests.includes('0 not ok an uncaught exception fails this test'), scoped.tests.join('\n'));
    assert.ok(scoped.tests.includes('0 not ok an unhandled rejection fails this test'), scoped.tests.join('\n'));
    assert.ok(scoped.failures >= 2);
    assert.ok(
      scoped.diagnostics.some((line) => line.includes('"late activity"') && line.includes('after-the-end')),
      `an error after its test ended is named in a diagnostic: ${scoped.diagnostics.join('\n')}`,
    );
    assert.equal(scoped.status, 1);
  });
});
