import { Worker } from 'node:worker_threads';
import { Inject, Injectable } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import { DataSource, QueryFailedError } from 'typeorm';
import type { AppConfig } from '../config/config.js';
import { APP_CONFIG } from '../config/config.token.js';
import { DomainError, ErrorCode } from '../errors/domain-error.js';
import { THREAD_LIMITS } from '../operations/thread-limits.js';
import { statementsOf } from './statements.js';
import type { Statements } from './statements.js';
import type { BoundedReadsData, ReadAnswer, ReadRequest } from './bounded-reads.worker.js';

/** A read stopped at its time limit (config `LIST_READ_TIME_LIMIT_MS`). */
export class ReadTooCostly extends Error {
  constructor(readonly limitMs: number) {
    super(`the read ran longer than ${limitMs} ms and was stopped`);
  }
}

/**
 * Reads waiting for the SQLite read thread, beyond which a new one is refused with 503 and Retry-After rather than
 * queued: at the worst allowed filter (half a second at 100,000 users, BENCHMARKS.md) that is about eight seconds
 * of waiting already.
 */
export const MAX_WAITING_READS = 16;

/** MariaDB's errno for a statement stopped by max_statement_time (ER_STATEMENT_TIMEOUT). */
const STATEMENT_TIMEOUT = 1969;

/**
 * Reads whose cost a client chooses (SCIM list filters: substring matches over every user's e-mails), bounded
 * in time and kept off the thread that serves every other request (docs/product-rules.md,
 * "SCIM"). On MariaDB the statement carries max_statement_time and the server stops it. On SQLite, whose
 * statements run on the calling thread, they run one at a time on a read thread with its own connection; one
 * past the limit is ended by terminating that thread. Either way the caller gets ReadTooCostly. An in-memory
 * SQLite database cannot be opened twice: there reads run as ordinary statements.
 */
@Injectable()
export class BoundedReads implements Statements, OnModuleDestroy {
  private readonly limitMs: number;
  private thread: SqliteReadThread | undefined;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.limitMs = config.listReadTimeLimitMs;
  }

  async rows<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    const path = this.dataSource.options.database;
    if (this.dataSource.options.type !== 'better-sqlite3') return this.mariadbRows<T>(sql, parameters);
    if (typeof path !== 'string' || path === ':memory:') return statementsOf(this.dataSource).rows<T>(sql, parameters);
    this.thread ??= new SqliteReadThread(path, this.limitMs);
    return (await this.thread.rows({ sql, parameters })) as T[];
  }

  async onModuleDestroy(): Promise<void> {
    await this.thread?.close();
  }

  private async mariadbRows<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    // Seconds, fractions allowed; `SET STATEMENT … FOR` scopes it to this one statement (MariaDB 10.1.2+).
    const seconds = (this.limitMs / 1000).toFixed(3);
    try {
      return await statementsOf(this.dataSource).rows<T>(`SET STATEMENT max_statement_time = ${seconds} FOR ${sql}`, parameters);
    } catch (error) {
      if (error instanceof QueryFailedError && (error.driverError as { errno?: number }).errno === STATEMENT_TIMEOUT) throw new ReadTooCostly(this.limitMs);
      throw error;
    }
  }
}

/** One read thread, one read at a time in arrival order; a read's time starts when the thread takes it. */
class SqliteReadThread {
  private thread: { worker: Worker; ready: Promise<void> } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(
    private readonly path: string,
    private readonly limitMs: number,
  ) {}

  rows(request: ReadRequest): Promise<unknown[]> {
    if (this.waiting >= MAX_WAITING_READS) {
      return Promise.reject(new DomainError(ErrorCode.Unavailable, 'too many costly list reads are waiting; narrow the filter or try again shortly'));
    }
    this.waiting++;
    const answer = this.queue.then(() => {
      this.waiting--;
      return this.run(request);
    });
    this.queue = answer.catch(() => undefined);
    return answer;
  }

  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    await thread?.worker.terminate();
  }

  private async run(request: ReadRequest): Promise<unknown[]> {
    const { worker, ready } = (this.thread ??= this.start());
    await ready;
    return new Promise((resolve, reject) => {
      const done = (settle: () => void) => {
        clearTimeout(timer);
        worker.off('message', answered);
        worker.off('error', failed);
        worker.off('exit', exited);
        settle();
      };
      const answered = (answer: ReadAnswer) =>
        done(() => ('rows' in answer ? resolve(answer.rows) : reject(new QueryFailedError(request.sql, request.parameters, new Error(answer.error)))));
      const failed = (error: Error) => done(() => reject(error));
      const exited = () => done(() => reject(new Error('the SQLite read thread exited')));
      const timer = setTimeout(() => {
        // SQLite has no statement timeout reachable from here: the thread, and its statement, end.
        this.forget(worker);
        void worker.terminate();
        done(() => reject(new ReadTooCostly(this.limitMs)));
      }, this.limitMs);
      worker.on('message', answered);
      worker.once('error', failed);
      worker.once('exit', exited);
      worker.postMessage(request);
    });
  }

  private start(): { worker: Worker; ready: Promise<void> } {
    const worker = new Worker(new URL('./bounded-reads.worker.js', import.meta.url), {
      workerData: { path: this.path } satisfies BoundedReadsData,
      resourceLimits: THREAD_LIMITS,
    });
    // An idle thread never keeps the process alive.
    worker.unref();
    const ready = new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
      worker.once('exit', () => reject(new Error('the SQLite read thread exited before it was ready')));
    });
    // A thread that failed to open is forgotten; the next read starts another.
    ready.catch(() => this.forget(worker));
    worker.once('exit', () => this.forget(worker));
    return { worker, ready };
  }

  private forget(worker: Worker): void {
    if (this.thread?.worker === worker) this.thread = undefined;
  }
}
