#!/usr/bin/env node
// Runs every compiled test file with Node's own test runner.
// Node 20's `--test` takes no globs, so the files are listed here: unit specs beside the code
// (`*.spec.js`) and integration / end-to-end suites under test/ (`*.test.js`).
// Extra arguments narrow the run to files whose path contains one of them.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const filters = process.argv.slice(2);

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.spec.js') || name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const files = ['src', 'test']
  .flatMap((d) => collect(join(dist, d)))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

if (files.length === 0) {
  console.error('no test files found under dist/ (did the build run?)');
  process.exit(1);
}

const concurrency = process.env.TEST_CONCURRENCY ?? '1';
const result = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', cwd: root },
);
process.exit(result.status ?? 1);
