#!/usr/bin/env node
// Fails when the code cites a planning document instead of something a reader of the project has: a
// comment, error text or API description must point to an RFC or to a section of docs/, not to a design
// brief or a tracker's issue number, which are not part of the repository (CONTRIBUTING.md, "Commits").
// Usage: node scripts/check-citations.mjs [directory …] (default: src console/src)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const PLANNING = /DESIGN[ ]§|issue[ ][0-9]+/;
const dirs = process.argv.length > 2 ? process.argv.slice(2) : ['src', 'console/src'];

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|tsx|mjs|js|css|html)$/.test(name)) yield path;
  }
}

const found = [];
for (const dir of dirs) {
  for (const path of files(join(root, dir))) {
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (PLANNING.test(line)) found.push(`${relative(root, path)}:${index + 1}: ${line.trim()}`);
      });
  }
}
if (found.length > 0) {
  console.error(`${found.length} line(s) cite a planning document; cite an RFC or a section of docs/ instead:`);
  for (const line of found) console.error(`  ${line}`);
  process.exit(1);
}
console.log(`no planning-document citations in ${dirs.join(', ')}`);
