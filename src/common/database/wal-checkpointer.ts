import { stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/config.js';
import { APP_CONFIG } from '../config/config.token.js';
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
 *
 * The thread runs only while the WAL is written to: every interval the process looks at the WAL file's size
 * and time of change (a `stat`, nothing of SQLite on the event loop), starts the thread at a change and stops
 * it once the WAL has not changed for `SQLITE_CHECKPOINT_IDLE_MS`; a stopping thread checkpoints a last time.
 * An idle process then holds no thread: about 5 MB less resident (BENCHMARKS.md, "Idle: nothing written"). Every process
 * (WORKERS > 1) watches for itself; SQLite lets one checkpoint run at a time and the others skip.
 */
@Injectable()
export class WalCheckpointer implements OnApplicationBootstrap, OnModuleDestroy {
  private thread: CheckpointThread | undefined;
  private watching: { path: string; idleMs: number; timer: NodeJS.Timeout } | undefined;
  /** The WAL file's size and time of change at the last look, and when that last changed. */
  private lastSeen = '';
  private lastChangeAt = 0;
  private looking = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly logger: AppLogger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const sqlite = sqliteStatementsOf(this.dataSource);
    const { database } = this.config;
    const path = this.dataSource.options.database;
    if (!sqlite || database.type !== 'sqlite' || typeof path !== 'string' || path === ':memory:') return;
    await sqlite.rows(`PRAGMA wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`, []);
    // The timer never keeps the process alive; shutdown clears it.
    const timer = setInterval(() => void this.look(), CHECKPOINT_INTERVAL_MS).unref();
    this.watching = { path, idleMs: database.checkpointIdleMs, timer };
    await this.look();
  }

  /**
   * A checkpoint now, on the thread; resolves when it is done (at once on MySQL/MariaDB). Starts the thread if
   * it was stopped. For a writer of many batches that pauses between them (src/oidc/adapter/oidc-purge.ts): the
   * checkpoint's I/O then runs while that writer rests, not beside its next batch, and the WAL starts over before it.
   */
  checkpointNow(): Promise<void> {
    if (!this.watching) return Promise.resolve();
    this.lastChangeAt = Date.now();
    return this.startedThread(this.watching.path).checkpointNow();
  }

  /** One look at the WAL file: a change starts the thread, a long enough quiet stops it. */
  private async look(): Promise<void> {
    const watching = this.watching;
    if (!watching || this.looking) return;
    this.looking = true;
    try {
      const seen = await stat(`${watching.path}-wal`).then(
        (file) => `${file.size}:${file.mtimeMs}`,
        () => 'none',
      );
      if (this.watching !== watching) return;
      const now = Date.now();
      if (seen !== this.lastSeen) {
        this.lastSeen = seen;
        this.lastChangeAt = now;
        this.startedThread(watching.path);
      } else if (this.thread && now - this.lastChangeAt >= watching.idleMs) {
        this.logger.debug(`WAL checkpoint thread stopped: the WAL has not changed for ${watching.idleMs} ms`, 'WalCheckpointer');
        void this.stopThread();
      }
    } finally {
      this.looking = false;
    }
  }

  private startedThread(path: string): CheckpointThread {
    if (this.thread) return this.thread;
    this.thread = new CheckpointThread(path, this.logger);
    this.logger.debug('WAL checkpoint thread started', 'WalCheckpointer');
    return this.thread;
  }

  private async stopThread(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    await thread?.stop();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.watching) clearInterval(this.watching.timer);
    this.watching = undefined;
    await this.stopThread();
  }
}

/** One checkpointer thread with its own connection, and the checkpoints asked of it. */
class CheckpointThread {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private readonly waiting = new Map<number, () => void>();
  private asked = 0;

  constructor(path: string, logger: AppLogger) {
    this.worker = new Worker(new URL('./wal-checkpointer.worker.js', import.meta.url), {
      workerData: { path, intervalMs: CHECKPOINT_INTERVAL_MS } satisfies CheckpointerData,
      resourceLimits: THREAD_LIMITS,
    });
    // The thread never keeps the process alive; shutdown stops it.
    this.worker.unref();
    this.worker.on('message', (message: { error: string } | { checkpointed: number }) => {
      if ('checkpointed' in message) return this.answer(message.checkpointed);
      logger.warn(`WAL checkpoint failed: ${message.error}`, 'WalCheckpointer');
    });
    // A failed thread leaves the fallback above in charge: slower commits, never lost ones.
    this.worker.on('error', (error) => logger.error(`WAL checkpoint thread failed: ${error.message}`, undefined, 'WalCheckpointer'));
    this.exited = new Promise((done) =>
      this.worker.once('exit', () => {
        // A thread that is gone answers nobody: whoever waits for a checkpoint goes on.
        for (const id of [...this.waiting.keys()]) this.answer(id);
        done();
      }),
    );
  }

  checkpointNow(): Promise<void> {
    const id = ++this.asked;
    return new Promise<void>((done) => {
      this.waiting.set(id, done);
      this.worker.postMessage({ checkpoint: id });
    });
  }

  private answer(id: number): void {
    this.waiting.get(id)?.();
    this.waiting.delete(id);
  }

  /** The thread checkpoints a last time and closes its connection; one that does not answer is ended. */
  async stop(): Promise<void> {
    this.worker.postMessage('close');
    const timer = setTimeout(() => void this.worker.terminate(), 2000);
    await this.exited;
    clearTimeout(timer);
  }
}
