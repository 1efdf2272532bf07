import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import { FOLD_SQL_FUNCTION, foldCase } from '../text/case-fold.js';

/** What the read thread is started with (bounded-reads.ts). */
export interface BoundedReadsData {
  path: string;
}

/** A read asked of the thread, and its answer. */
export interface ReadRequest {
  sql: string;
  parameters: unknown[];
}
export type ReadAnswer = { rows: unknown[] } | { error: string };

/**
 * The read thread of bounded-reads.ts: its own connection to the service's SQLite file (WAL: it reads the
 * last committed state beside the request thread's writer), never writing (`query_only`). A read that
 * outlives its limit is ended by terminating this thread; the next read starts another.
 */
const { path } = workerData as BoundedReadsData;
const db = new Database(path, { fileMustExist: true });
db.pragma('query_only = ON');
// The filter SQL folds case with the application's rule, as on the request thread (data-source.ts).
db.function(FOLD_SQL_FUNCTION, { deterministic: true }, (value: unknown) => (typeof value === 'string' ? foldCase(value) : value));

// Filters compile to a few shapes per attribute set: a small cache of prepared statements pays off.
const prepared = new Map<string, Statement>();
function statement(sql: string): Statement {
  let found = prepared.get(sql);
  if (!found) {
    if (prepared.size >= 200) prepared.delete(prepared.keys().next().value!);
    prepared.set(sql, (found = db.prepare(sql)));
  }
  return found;
}

// Open: reads may be timed from now on (a thread's start is not the read's cost).
parentPort!.postMessage('ready');

parentPort!.on('message', ({ sql, parameters }: ReadRequest) => {
  let answer: ReadAnswer;
  try {
    answer = { rows: statement(sql).all(...parameters) };
  } catch (error) {
    answer = { error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(answer);
});
