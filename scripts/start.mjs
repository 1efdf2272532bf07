#!/usr/bin/env node
// `npm start`: serves from the compiled output, compiling first only when a source file is newer than
// the last build (a fresh clone, or after an edit). Compiling takes about 20 s; starting about one.
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const stamp = join(root, 'dist', '.build-stamp');
const SOURCES = ['src', 'bin', 'console', 'scripts/build-console.mjs', 'scripts/generate-console-types.mjs', 'tsconfig.json', 'package.json', 'package-lock.json', 'ormconfig.ts'];

// Written by the build itself (scripts/generate-console-types.mjs): it follows src, it is no source of its own.
const GENERATED = join(root, 'console', 'src', 'api', 'schema.d.ts');

function newestChange(path) {
  if (path === GENERATED || !existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
if (Math.max(...SOURCES.map((source) => newestChange(join(root, source)))) > built) {
  process.stderr.write('compiling (a source file changed since the last build)…\n');
  const started = Date.now();
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  // The stamp's time is the build's start: an edit made while it compiled counts as newer.
  writeFileSync(stamp, '');
  utimesSync(stamp, new Date(started), new Date(started));
}
await import(pathToFileURL(join(root, 'dist', 'src', 'main.js')).href);
