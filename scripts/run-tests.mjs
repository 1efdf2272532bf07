#!/usr/bin/env node
// Runs every compiled test file with Node's own test runner: unit specs beside the code (`*.spec.js`) and
// integration / end-to-end suites under test/ (`*.test.js`). Extra arguments narrow the run to files whose path
// contains one of them.
//
// Why not `node --test`: it starts a process per file and runs one at a time, and loading the application costs about
// 2 s of CPU per process. Here (docs/testing.md, "How the runner works"):
// - files are packed into groups of about TEST_GROUP_SECONDS of tests (their last measured times, test/durations.json),
//   each group one process (scripts/test-group.mjs) running its files one after another; a file whose source says
//   `@own-process` (it changes what a process holds: it spawns and kills services, measures its process) runs alone;
// - TEST_CONCURRENCY processes run at once (default: the number of cores), the longest first;
// - each process's output is printed whole when it ends, and the time and test counts of every file are written to
//   test-artifacts/test-times-<database>.json for scripts/test-times.mjs.
// It compiles first when a source or test file is newer than dist/ (scripts/build-stamp.mjs): a test edited and run
// without a build would otherwise run its old compiled copy.
// TEST_ISOLATION=file runs every file in a process of its own (as `node --test` does), e.g. to check that a file
// passes without the files grouped before it.
// TEST_SKIP_UNIT_SPECS=1 leaves out the unit specs (`src/**/*.spec.js`): they never open a database, so CI runs them
// in the SQLite pass only, not again in the MariaDB pass.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale } from './build-stamp.mjs';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const filters = process.argv.slice(2);
const database = process.env.TEST_DATABASE_URL ? 'mysql' : 'sqlite';
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? availableParallelism()));
const groupMs = Number(process.env.TEST_GROUP_SECONDS ?? 60) * 1000;
const isolateAll = process.env.TEST_ISOLATION === 'file';
const skipUnitSpecs = process.env.TEST_SKIP_UNIT_SPECS === '1';
// A process still running after this long is stopped and its files count as failed: a hung test must not hold CI.
const unitTimeoutMs = Number(process.env.TEST_PROCESS_TIMEOUT_S ?? 900) * 1000;
// A file never measured is assumed to take this long until a run measures it.
const unmeasuredMs = 10_000;
const reporter = join(root, 'scripts', 'test-summary-reporter.mjs');
const groupRunner = join(root, 'scripts', 'test-group.mjs');
const asyncScope = pathToFileURL(join(root, 'scripts', 'test-async-scope.mjs')).href;

buildIfStale();
const files = (skipUnitSpecs ? ['test'] : ['src', 'test'])
  .flatMap((d) => collect(join(dist, d)))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));

if (files.length === 0) {
  console.error('no test files found under dist/ (did the build run?)');
  process.exit(1);
}

const durations = readJson(join(root, 'test', 'durations.json'))?.[database] ?? {};
const expectedMs = (file) => (durations[sourceOf(file)] ?? unmeasuredMs / 1000) * 1000;
const units = planUnits(files);

const scratch = mkdtempSync(join(tmpdir(), 'portcullis-run-tests-'));
const running = new Set();
const results = [];
const started = Date.now();
let next = 0;

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of running) killGroup(child);
    process.exit(130);
  });
}

console.log(`${files.length} test files on ${database} in ${units.length} processes, ${concurrency} at a time${skipUnitSpecs ? ' (unit specs left out)' : ''}`);
await Promise.all(Array.from({ length: Math.min(concurrency, units.length) }, () => worker()));
rmSync(scratch, { recursive: true, force: true });
report();

/** Own-process files alone, the rest packed first-fit by expected time; the longest units first. */
function planUnits(all) {
  const alone = [];
  const groupable = [];
  for (const file of all) (isolateAll || ownsProcess(file) ? alone : groupable).push(file);
  const groups = [];
  for (const file of [...groupable].sort((a, b) => expectedMs(b) - expectedMs(a) || a.localeCompare(b))) {
    const fit = groups.find((g) => g.expectedMs + expectedMs(file) <= groupMs);
    if (fit) {
      fit.files.push(file);
      fit.expectedMs += expectedMs(file);
    } else groups.push({ files: [file], expectedMs: expectedMs(file) });
  }
  for (const g of groups) g.files.sort();
  return [...alone.map((file) => ({ files: [file], expectedMs: expectedMs(file), alone: true })), ...groups].sort((a, b) => b.expectedMs - a.expectedMs);
}

function ownsProcess(file) {
  return readFileSync(join(root, file), 'utf8').includes('@own-process');
}

async function worker() {
  while (next < units.length) {
    const index = next++;
    const result = await runUnit(units[index], index);
    results.push(result);
    const names = result.files.map((f) => `${f.file} (${f.tests} tests${f.ok ? '' : ', FAILED'})`).join('\n   ');
    process.stdout.write(
      `\n── process ${index + 1} of ${units.length}, ${(result.wallMs / 1000).toFixed(1)} s${result.ok ? '' : ', FAILED'}:\n   ${names}\n${result.output}`,
    );
  }
}

function runUnit(unit, index) {
  const summaryPath = join(scratch, `${index}.json`);
  const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${reporter}`, `--test-reporter-destination=${summaryPath}`];
  // Source maps (tsconfig.json's sourceMap): a failing test's stack names the .ts line, not the compiled one.
  // The async-scope preload keeps the test runner from tracking every promise of the service a test starts in the
  // same process (scripts/test-async-scope.mjs).
  const args = ['--enable-source-maps', '--import', asyncScope, ...reporters, ...(unit.alone ? [unit.files[0]] : [groupRunner, ...unit.files])];
  const begin = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, FORCE_COLOR: '0' } });
    running.add(child);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, unitTimeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      // A test may leave a service process behind; its process group ends with the file.
      killGroup(child);
      const wallMs = Date.now() - begin;
      const summary = readSummary(summaryPath) ?? { files: {}, cpuMs: null, childrenCpuMs: null, maxRssMb: null };
      const reported = Object.fromEntries(Object.entries(summary.files).map(([path, counts]) => [sourceOf(relative(root, path)), counts]));
      if (timedOut) output += `\nstopped after ${unitTimeoutMs / 1000} s (TEST_PROCESS_TIMEOUT_S)\n`;
      const unitOk = code === 0 && !timedOut;
      const perFile = unit.files.map((file) => {
        const counts = reported[sourceOf(file)] ?? { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0, skippedSuites: 0, ms: 0, failures: [] };
        // A file of a failed process that reported no failure of its own (it did not load, it hung, the process
        // crashed) is failed too; a file that reported neither a test nor a skipped suite did not run.
        const ok = counts.tests + counts.skippedSuites > 0 && counts.fail === 0 && (unitOk || unit.files.length > 1);
        return { file: sourceOf(file), ok, ...counts, ms: unit.alone ? wallMs : Math.round(counts.ms) };
      });
      // A failure that no file owns (a group's load failure, a crash between files) fails the process.
      const stray = Object.entries(reported)
        .filter(([f]) => !unit.files.some((x) => sourceOf(x) === f))
        .reduce((n, [, c]) => n + c.fail, 0);
      const ok = unitOk && stray === 0 && perFile.every((f) => f.ok);
      if (!ok && perFile.every((f) => f.ok)) for (const f of perFile) f.ok = false;
      resolve({
        index,
        ok,
        exit: code ?? signal,
        wallMs,
        cpuMs: summary.cpuMs,
        childrenCpuMs: summary.childrenCpuMs,
        maxRssMb: summary.maxRssMb,
        files: perFile,
        output,
      });
    });
  });
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function report() {
  const wallMs = Date.now() - started;
  const allFiles = results.flatMap((r) => r.files);
  const sum = (key) => allFiles.reduce((n, f) => n + (f[key] ?? 0), 0);
  // A file that failed without a failing test of its own (it did not load, or its process crashed or hung)
  // counts as one failure.
  const failed = sum('fail') + allFiles.filter((f) => !f.ok && f.fail === 0).length;
  const artifacts = join(root, 'test-artifacts');
  mkdirSync(artifacts, { recursive: true });
  if (filters.length === 0) {
    const record = {
      database,
      concurrency,
      wallMs,
      processes: results.map(({ output, files: unitFiles, ...rest }) => ({ ...rest, files: unitFiles.map((f) => f.file) })).sort((a, b) => a.index - b.index),
      files: allFiles.map(({ failures, ...counts }) => counts).sort((a, b) => a.file.localeCompare(b.file)),
    };
    writeFileSync(join(artifacts, `test-times-${database}.json`), `${JSON.stringify(record, null, 2)}\n`);
  }
  console.log(`\n── slowest processes on ${database}`);
  for (const r of [...results].sort((a, b) => b.wallMs - a.wallMs).slice(0, 8)) {
    console.log(`${(r.wallMs / 1000).toFixed(1).padStart(7)} s  ${r.files.length === 1 ? r.files[0].file : `${r.files.length} files: ${r.files[0].file}, …`}`);
  }
  for (const f of allFiles.filter((x) => !x.ok)) console.log(`failed: ${f.file}`);
  const cpuMinutes = (key) => (results.reduce((n, r) => n + (r[key] ?? 0), 0) / 60000).toFixed(1);
  console.log(
    `${sum('tests')} tests in ${allFiles.length} files on ${database}: ${results.length} processes, ${concurrency} at a time, ${(wallMs / 60000).toFixed(1)} min; ` +
      `CPU minutes: ${cpuMinutes('cpuMs')} in the test processes, ${cpuMinutes('childrenCpuMs')} in the processes they started`,
  );
  if (sum('skippedSuites') > 0) console.log(`${sum('skippedSuites')} suites skipped whole (their tests are not counted, as in Node's own summary)`);
  console.log(`${database}: ${sum('pass')} passed, ${failed} failed, ${sum('skipped')} skipped`);
  printFailures(allFiles.filter((f) => !f.ok));
  process.exitCode = failed > 0 ? 1 : 0;
}

/**
 * The failed tests' errors once more, last: CI keeps only the tail of its log, and a process's own output (printed
 * when it ended) may be far above. A file that failed without a failing test says to look at its process's output.
 */
function printFailures(failedFiles) {
  const MAX_LINES = 120;
  const lines = [];
  for (const f of failedFiles) {
    lines.push(`✖ ${f.file}`);
    if (f.failures.length === 0) lines.push('  no failing test of its own: it did not load, or its process crashed or hung (see its process above)');
    for (const { name, message } of f.failures) lines.push(`  ✖ ${name}`, ...message.split('\n').map((l) => `    ${l}`));
  }
  if (lines.length === 0) return;
  console.log(`\n── why they failed on ${database}`);
  console.log(lines.slice(0, MAX_LINES).join('\n'));
  if (lines.length > MAX_LINES) console.log(`  … ${lines.length - MAX_LINES} more lines in the processes' output above`);
}

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.spec.js') || name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

function sourceOf(file) {
  return file.replace(/^dist\//, '').replace(/\.js$/, '.ts');
}

/**
 * The reporter's summary of one process, or undefined. Node opens the file when the process starts and writes it when
 * the tests end: a process stopped at its time limit, or one that crashed, leaves it empty. That process is a failure
 * to report with its output, not a reason for the whole run to stop.
 */
function readSummary(path) {
  try {
    return readJson(path);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

function readJson(path) {
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
}
