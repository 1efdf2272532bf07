import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { WalCheckpointer } from '../../common/database/wal-checkpointer.js';
import { dialectOf } from './sql.js';

/**
 * One purge batch, parameters (expired before, batch size): through the index on expires_at; MySQL/MariaDB
 * take DELETE … LIMIT, SQLite (built without that option) the same rows by rowid.
 */
export function purgeBatchSql(dialect: 'sqlite' | 'mysql'): string {
  return dialect === 'sqlite'
    ? 'DELETE FROM oidc_payloads WHERE rowid IN (SELECT rowid FROM oidc_payloads WHERE expires_at < ? LIMIT ?)'
    : 'DELETE FROM oidc_payloads WHERE expires_at < ? LIMIT ?';
}

/**
 * Rows the first purge statement deletes; later ones are sized by how long the one before took. Small,
 * because the first statement finds the table's pages cold: 200 rows took 93 ms to 2 s at 10,000,000 live
 * rows (BENCHMARKS.md, "First performance goals: closing figures"), 20 rows a few milliseconds.
 */
export const PURGE_BATCH = 20;
/** How long one purge statement should hold SQLite's writer (or MariaDB's row locks): well under the 50 ms bound. */
const PURGE_STATEMENT_MS = 15;

/**
 * The next batch's size: scaled so a statement takes about PURGE_STATEMENT_MS, from 20 to 2,000 rows. With
 * 10,000,000 live rows a deleted row costs ~0.1 ms (random pages of the id index), with few rows ~0.01 ms, so a
 * fixed size is either too slow for a large table or needlessly many statements for a small one.
 */
export function nextPurgeBatch(size: number, deleted: number, elapsedMs: number): number {
  if (deleted === 0) return size;
  const perRow = Math.max(elapsedMs, 0.1) / deleted;
  return Math.min(2000, Math.max(20, Math.floor(PURGE_STATEMENT_MS / perRow)));
}

/**
 * Runs `deleteBatch` until a batch deletes fewer rows than it was asked to, each sized by nextPurgeBatch,
 * and rests after each batch at least as long as it took: the purge holds the writer at most half of the
 * time, so requests are answered between batches. Returns how many rows went.
 */
export async function purgeInBatches(
  deleteBatch: (size: number) => Promise<number>,
  rest: (ms: number) => Promise<unknown> = sleep,
  signal?: AbortSignal,
): Promise<number> {
  let purged = 0;
  for (let size = PURGE_BATCH; ; ) {
    const started = performance.now();
    const deleted = await deleteBatch(size);
    const elapsed = performance.now() - started;
    purged += deleted;
    // Shutdown stops a purge between batches: the rest is for the next run, of any process.
    if (deleted < size || signal?.aborted) return purged;
    await rest(elapsed);
    size = nextPurgeBatch(size, deleted, elapsed);
  }
}

/**
 * Deletes OIDC rows that expired over a minute ago, in batches (purgeInBatches), each its own statement (on
 * SQLite one statement of the group commit); run now and then by one timer per process (any process may do
 * it). On SQLite each rest also waits for a checkpoint on the checkpointer's thread: at 10,000,000 rows a
 * backlog's deletes dirty ≈ 40,000 pages a second, so between the thread's checkpoints (every second) the WAL
 * passed the request thread's own trigger and a batch's COMMIT ran that checkpoint for 300–400 ms; a
 * checkpoint beside the next batch slowed it as much (docs/operations.md, "SQLite checkpoints").
 */
export function purgeExpiredPayloads(
  dataSource: DataSource,
  uow: UnitOfWork,
  options: { now?: number; checkpointer?: WalCheckpointer; signal?: AbortSignal } = {},
): Promise<number> {
  const sql = purgeBatchSql(dialectOf(dataSource));
  const before = (options.now ?? Date.now()) - 60_000;
  return purgeInBatches(
    (size) => uow.write(sql, [before, size]),
    (ms) => Promise.all([sleep(ms), options.checkpointer?.checkpointNow()]),
    options.signal,
  );
}
