#!/usr/bin/env node
// What each area of the suite costs, from the last full run of scripts/run-tests.mjs on each database
// (test-artifacts/test-times-<database>.json): files, tests, the time their tests took added up, the CPU of the
// test processes, and the slowest files. docs/testing.md keeps the table of a clean CI run.
//
//   node scripts/test-times.mjs                  the table, for every database with a record
//   node scripts/test-times.mjs --slowest 20     also the 20 slowest files of each
//   node scripts/test-times.mjs --write          also store each file's time in test/durations.json, which
//                                                scripts/run-tests.mjs reads to start the longest files first
//   node scripts/test-times.mjs --write-doc      also put the 30 slowest files of each pass, with what they spend
//                                                their time on, into docs/testing.md ("The slowest files")
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { slowestTable } from './test-times-slowest.mjs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({
  options: { slowest: { type: 'string', default: '0' }, write: { type: 'boolean', default: false }, 'write-doc': { type: 'boolean', default: false } },
});
const records = ['sqlite', 'mysql']
  .map((database) => join(root, 'test-artifacts', `test-times-${database}.json`))
  .filter((path) => existsSync(path))
  .map((path) => JSON.parse(readFileSync(path, 'utf8')));

if (records.length === 0) {
  console.error('no record yet: run `npm test` (or scripts/run-tests.mjs with TEST_DATABASE_URL) without a filter first');
  process.exit(1);
}

const minutes = (ms) => (ms / 60_000).toFixed(1);
const areaOf = (file) => (file.startsWith('src/') ? 'unit specs (src/)' : file.split('/').slice(0, 2).join('/'));

for (const record of records) {
  const cpuOf = cpuPerFile(record);
  const areas = new Map();
  for (const f of record.files) {
    const area = areas.get(areaOf(f.file)) ?? { files: 0, tests: 0, wallMs: 0, cpuMs: 0, childrenCpuMs: 0 };
    area.files++;
    area.tests += f.tests;
    area.wallMs += f.ms;
    area.cpuMs += cpuOf(f.file).own;
    area.childrenCpuMs += cpuOf(f.file).children;
    areas.set(areaOf(f.file), area);
  }
  const total = { files: 0, tests: 0, wallMs: 0, cpuMs: 0, childrenCpuMs: 0 };
  for (const a of areas.values()) for (const key of Object.keys(total)) total[key] += a[key];
  console.log(
    `\n${record.database}: ${total.tests} tests in ${total.files} files, ${minutes(record.wallMs)} min elapsed with ${record.concurrency} files at a time`,
  );
  console.log('| area | files | tests | minutes of tests | CPU minutes, test processes | CPU minutes, processes they started |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, a] of [...areas].sort((x, y) => y[1].wallMs - x[1].wallMs)) {
    console.log(`| ${name} | ${a.files} | ${a.tests} | ${minutes(a.wallMs)} | ${minutes(a.cpuMs)} | ${minutes(a.childrenCpuMs)} |`);
  }
  console.log(`| total | ${total.files} | ${total.tests} | ${minutes(total.wallMs)} | ${minutes(total.cpuMs)} | ${minutes(total.childrenCpuMs)} |`);
  const slowest = Number(values.slowest);
  if (slowest > 0) {
    console.log(`\nslowest ${slowest} on ${record.database}:`);
    for (const f of [...record.files].sort((a, b) => b.ms - a.ms).slice(0, slowest)) {
      const cpu = cpuOf(f.file);
      console.log(
        `${(f.ms / 1000).toFixed(1).padStart(7)} s  ${(cpu.own / 1000).toFixed(1).padStart(6)} + ${(cpu.children / 1000).toFixed(1).padStart(6)} s CPU  ${f.tests.toString().padStart(4)} tests  ${f.file}`,
      );
    }
  }
}

if (values['write-doc']) {
  const path = join(root, 'docs', 'testing.md');
  const doc = readFileSync(path, 'utf8');
  const start = '<!-- slowest files: scripts/test-times.mjs --write-doc -->';
  const end = '<!-- end of slowest files -->';
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) {
    console.error(`docs/testing.md has no place for the table: add the lines\n${start}\n${end}`);
    process.exit(1);
  }
  const tables = records.map((record) => slowestTable(root, record, cpuPerFile(record), 30)).join('\n');
  writeFileSync(path, `${doc.slice(0, from + start.length)}\n${tables}${doc.slice(to)}`);
  console.log(`\nwrote the slowest files into ${path}`);
}

if (values.write) {
  const path = join(root, 'test', 'durations.json');
  const durations = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  for (const record of records) {
    durations[record.database] = Object.fromEntries(record.files.map((f) => [f.file, Math.round(f.ms / 100) / 10]));
  }
  writeFileSync(path, `${JSON.stringify(durations, null, 2)}\n`);
  console.log(`\nwrote ${path}`);
}

/**
 * CPU of each test process and of the processes it started (services, browsers), shared among the files of the
 * process by the time their tests took (a process of several files reports its CPU as a whole).
 */
function cpuPerFile(record) {
  const share = new Map();
  const byFile = new Map(record.files.map((f) => [f.file, f]));
  for (const p of record.processes) {
    const total = p.files.reduce((n, file) => n + (byFile.get(file)?.ms ?? 0), 0);
    for (const file of p.files) {
      const part = total > 0 ? (byFile.get(file)?.ms ?? 0) / total : 0;
      share.set(file, { own: (p.cpuMs ?? 0) * part, children: (p.childrenCpuMs ?? 0) * part });
    }
  }
  return (file) => share.get(file) ?? { own: 0, children: 0 };
}
