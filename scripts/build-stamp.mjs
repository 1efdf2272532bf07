#!/usr/bin/env node
// Whether dist/ is older than the code it was compiled from, and a build when it is. `npm start` and
// scripts/run-tests.mjs both ask before using dist/: a test file edited and run without a build would otherwise run
// its old compiled copy and report a pass it has not earned.
//
// The stamp (dist/.build-stamp) is written by `npm run build` itself (its prebuild and postbuild steps run this file
// with `started` and `finished`), so `npm test`, whose pretest builds, finds it fresh and does not compile twice.
// Its time is the build's start: an edit made while tsc ran counts as newer. A failed build leaves no new stamp.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const stamp = join(root, 'dist', '.build-stamp');
const pending = join(root, 'dist', '.build-started');
// Everything `npm run build` reads: the TypeScript of tsconfig.json's `include`, the console and its bundler, and
// what decides how they compile.
const SOURCES = [
  'src',
  'test',
  'bench',
  'bin',
  'console',
  'scripts/build-console.mjs',
  'scripts/copy-design.mjs',
  'scripts/generate-console-types.mjs',
  'tsconfig.json',
  'package.json',
  'package-lock.json',
  'ormconfig.ts',
];
// Written by the build itself (scripts/generate-console-types.mjs): it follows src, it is no source of its own.
const GENERATED = join(root, 'console', 'src', 'api', 'schema.d.ts');

function newestChange(path) {
  if (path === GENERATED || !existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  // A folder's own time counts a file removed from it, except the generated file's folder, which the build's first
  // run changes by writing that file.
  const own = path === dirname(GENERATED) ? 0 : stats.mtimeMs;
  return Math.max(own, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

export function distIsStale() {
  const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  return Math.max(...SOURCES.map((source) => newestChange(join(root, source)))) > built;
}

/** Runs `npm run build` when a source is newer than the last build; exits with the build's status if it fails. */
export function buildIfStale() {
  if (!distIsStale()) return;
  process.stderr.write('compiling (a source or test file changed since the last build)…\n');
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function markStarted() {
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(pending, '');
}

function markFinished() {
  // Renaming keeps the file's time, which is when the build started.
  if (existsSync(pending)) renameSync(pending, stamp);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const steps = { started: markStarted, finished: markFinished };
  const step = steps[process.argv[2]];
  if (!step) {
    process.stderr.write('usage: node scripts/build-stamp.mjs started|finished\n');
    process.exit(2);
  }
  step();
}
