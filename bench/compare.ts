/**
 * MariaDB against SQLite: puts a MySQL/MariaDB run's CPU per request next to an SQLite run's, as markdown.
 *
 *   node dist/bench/compare.js bench/results/<sqlite run>.json bench/results/<mysql run>.json
 */
import { readFileSync } from 'node:fs';
import { renderCpuComparison } from './lib/comparison.js';
import type { RunResult } from './lib/measurement.js';

const [sqliteFile, mysqlFile] = process.argv.slice(2);
if (!sqliteFile || !mysqlFile) {
  console.error('usage: node dist/bench/compare.js <sqlite results.json> <mysql results.json>');
  process.exit(2);
}
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as RunResult;
try {
  console.log(renderCpuComparison(read(sqliteFile), read(mysqlFile)));
} catch (error) {
  console.error(`compare: ${(error as Error).message}`);
  process.exit(1);
}
