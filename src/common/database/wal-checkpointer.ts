import { Worker } from 'node:worker_threads';
import { Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppLogger } from '../http/logging.js';
import { THREAD_LIMITS } from '../operations/thread-limits.js';
import { sqliteStatementsOf } from './statements.js';
import type { CheckpointerData } from './wal-checkpointer.worker.js';

/** How often the WAL is checkpointed: with `synchronous = NORMAL`, the most a power loss can take back. */
export const CHECKPOINT_INTERVAL_MS = 1000;
/**
 * The request thread's own automatic checkpoint, kept only as a safety valve should the thread fall
 * behind (4,096-byte pages: a 40 MB WAL). SQLite's default, 1,000 pages, ran a checkpoint with its two
 * `fsync`s inside a request's COMMIT several times a second under load (BENCHMARKS.md, "Missed targets").
 */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * Checkpoints the SQLite WAL on a timer from a worker thread (docs/operations.md, "SQLite checkpoints").
 * With `synchronous = NORMAL` a commit is durable once a checkpoint has synced the WAL; SQLite's own
 * trigger, every 1,000 pages, left a quiet instance's recent changes unsynced for hours and put the
 * checkpoint's I/O on the event loop of a busy one. A timer bounds the window by time instead, on both.
 * Every process (WORKERS > 1) runs one; SQLite lets one checkpoint run at a time and the others skip.
 */
@Injectable()
export class WalCheckpointer implements OnApplicationBootstrap, OnModuleDestroy {
  private running: { worker: Worker; exited: Promise<unknown> } | undefined;
  private readonly waiting = new Map<number, () => void>();
  private asked = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly logger: AppLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const sqlite = sqliteStatementsOf(this.dataSource);
    const path = this.dataSource.options.database;
    if (!sqlite || typeof path !== 'string' || path === ':memory:') return;
    await sqlite.rows(`PRAGMA wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`, []);
    const worker = new Worker(new URL('./wal-checkpointer.worker.js', import.meta.url), {
      workerData: { path, intervalMs: CHECKPOINT_INTERVAL_MS } satisfies CheckpointerData,
      resourceLimits: THREAD_LIMITS,
    });
    // The thread never keeps the process alive; shutdown stops it.
    worker.unref();
    worker.on('message', (message: { error: string } | { checkpointed: number }) => {
      if ('checkpointed' in message) return this.answer(message.checkpointed);
      this.logger.warn(`WAL checkpoint failed: ${message.error}`, 'WalCheckpointer');
    });
    // A failed thread leaves the fallback above in charge: slower commits, never lost ones.
    worker.on('error', (error) => this.logger.error(`WAL checkpoint thread failed: ${error.message}`, undefined, 'WalCheckpointer'));
    const exited = new Promise((done) =>
      worker.once('exit', () => {
        // A thread that is gone answers nobody: whoever waits for a checkpoint goes on.
        for (const id of [...this.waiting.keys()]) this.answer(id);
        done(undefined);
      }),
    );
    this.running = { worker, exited };
  }

  /**
   * A checkpoint now, on the thread; resolves when it is done (at once on MySQL/MariaDB or with no thread).
   * For a writer of many batches that pauses between them (src/oidc/adapter/oidc-purge.ts): the checkpoint's
   * I/O then runs while that writer rests, not beside its next batch, and the WAL starts over before it.
   */
  checkpointNow(): Promise<void> {
    const worker = this.running?.worker;
    if (!worker) return Promise.resolve();
    const id = ++this.asked;
    return new Promise<void>((done) => {
      this.waiting.set(id, done);
      worker.postMessage({ checkpoint: id });
    });
  }

  private answer(id: number): void {
    this.waiting.get(id)?.();
    this.waiting.delete(id);
  }

  async onModuleDestroy(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    if (!running) return;
    const { worker, exited } = running;
    // The thread closes its connection between checkpoints; one that does not answer is ended.
    worker.postMessage('close');
    const timer = setTimeout(() => void worker.terminate(), 2000);
    await exited;
    clearTimeout(timer);
  }
}
