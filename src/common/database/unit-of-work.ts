import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { takeEventPositions } from '../events/event-positions.js';
import { transactionRetries } from '../metrics/metrics.js';
import { contentionOf } from './database-unavailable.js';
import { RowBatches, statementFor } from './row-batches.js';
import type { RowStatement } from './row-batches.js';
import { pooledStatementsOf, sqliteStatementsOf } from './statements.js';
import type { PooledStatements, SqliteStatements } from './statements.js';

/** A unit of work, or a single write statement (see `write`). */
type QueuedWork = ({ work: (manager: EntityManager) => Promise<unknown> } | { sql: string; parameters: unknown[] }) & {
  resolve(value: unknown): void;
  reject(error: unknown): void;
};

/** How often a unit of work runs at most when the server rolls it back (a deadlock, a Galera certification conflict, a lock wait timeout). */
const RETRY_ATTEMPTS = 12;
/** The first pause is up to 2 × this; each next one up to twice the last, never above RETRY_CAP_MS. */
const RETRY_BASE_MS = 5;
const RETRY_CAP_MS = 250;

/** Most units of work that share one SQLite commit (the bench's 10 concurrent writers queue up to 10). */
const MAX_GROUP = 32;

/**
 * Runs a state change and its events in one transaction (docs/product-rules.md, "Consistency").
 * TypeORM drives better-sqlite3 through a single shared connection, so two interleaved transactions
 * would silently nest; SQLite transactions are therefore queued one at a time. MySQL uses its pool.
 *
 * SQLite group commit: the units queued while a transaction runs commit together in the next one,
 * each inside its own savepoint. A unit that fails rolls back to its savepoint and rejects alone; the
 * others commit. Every caller hears back only after the COMMIT (or its failure, which rejects them all),
 * so nothing is answered that is not stored. A COMMIT writes the changed pages to the WAL; one per
 * group instead of one per unit was the largest single cost of a SCIM create, and of a token grant
 * (`write`: oidc-provider's rows, which carry no events, queue as bare statements).
 */
@Injectable()
export class UnitOfWork {
  private readonly queued: QueuedWork[] = [];
  private draining = false;
  /** Set on SQLite, where transactions are queued and committed in groups. */
  private readonly sqlite: SqliteStatements | undefined;
  /** Set on MySQL/MariaDB, where a single statement commits on its own (autocommit). */
  private readonly pooled: PooledStatements | undefined;
  /** On MySQL/MariaDB: the rows of `writeRow` in flight, one statement and commit for each batch. */
  private readonly rowBatches: RowBatches | undefined;
  /** Called after every COMMIT of this process (the event feed wakes its waiters). */
  private readonly commitListeners = new Set<() => void>();
  /** Called once after the COMMIT of one transaction, by its manager (see `afterCommit`); dropped with a rollback. */
  private readonly transactionListeners = new WeakMap<EntityManager, (() => void)[]>();
  /** Called once after the next COMMIT of this process, whichever transaction it ends. */
  private nextCommitListeners: (() => void)[] = [];

  constructor(private readonly dataSource: DataSource) {
    this.sqlite = sqliteStatementsOf(dataSource);
    this.pooled = pooledStatementsOf(dataSource);
    this.rowBatches = this.pooled && new RowBatches((sql, parameters) => this.autocommit(sql, parameters));
  }

  /** For reads outside a transaction. */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!this.sqlite) return this.retryingDeadlocks(work);
    return this.enqueue({ work }) as Promise<T>;
  }

  /**
   * Many small units of one caller (a directory sync's page of people) in one transaction, each inside a savepoint
   * of its own: one that fails is rolled back alone and answered as rejected, the others commit together. One
   * transaction instead of one per item spares a commit, and its garbage, per item. A deadlock or lock wait timeout
   * ends the whole transaction on MySQL/MariaDB, so it is not one item's failure: the whole batch runs again.
   */
  runEach<I, T>(items: readonly I[], work: (manager: EntityManager, item: I) => Promise<T>): Promise<PromiseSettledResult<T>[]> {
    return this.run(async (manager) => {
      const runner = manager.queryRunner;
      if (!runner) throw new Error('UnitOfWork.runEach needs a transaction of its own');
      const outcomes: PromiseSettledResult<T>[] = [];
      for (const item of items) {
        await runner.startTransaction(); // a savepoint inside the open transaction
        try {
          const value = await work(manager, item);
          await runner.commitTransaction();
          outcomes.push({ status: 'fulfilled', value });
        } catch (error) {
          if (contentionOf(error)) throw error;
          await runner.rollbackTransaction();
          outcomes.push({ status: 'rejected', reason: error });
        }
      }
      return outcomes;
    });
  }

  /** `listener` runs after each transaction of this process commits; returns its removal. */
  onCommit(listener: () => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /**
   * `listener` runs once, after the transaction `manager` belongs to has committed: what it wrote is visible to
   * every connection then. Nothing runs if it rolls back (a retried unit registers again in its new transaction).
   * On MySQL/MariaDB transactions run side by side, so another one's commit says nothing about this one's rows.
   */
  afterCommit(manager: EntityManager, listener: () => void): void {
    const listeners = this.transactionListeners.get(manager);
    if (listeners) listeners.push(listener);
    // Not a transaction of this unit of work: the next commit of this process, the best there is to go by.
    else this.nextCommitListeners.push(listener);
  }

  /**
   * One write statement that needs no events (oidc-provider's tokens, codes and sessions). On SQLite it
   * joins the next group commit like a unit of work, without a savepoint (a failed statement undoes only
   * itself) and without TypeORM's query runner; the caller hears back after the COMMIT, with the number
   * of rows the statement changed.
   */
  write(sql: string, parameters: unknown[]): Promise<number> {
    // On MySQL/MariaDB one statement is atomic in autocommit: a transaction around it would add two round trips.
    if (this.pooled) return this.autocommit(sql, parameters).then(affectedRows);
    return this.enqueue({ sql, parameters }) as Promise<number>;
  }

  /**
   * MySQL/MariaDB only: one statement in autocommit, answered with its result's `insertId`. A statement that sets
   * `LAST_INSERT_ID(expr)` hands back `expr` there: a counter's upsert returns its new count in the same round trip.
   */
  insertId(sql: string, parameters: unknown[]): Promise<number> {
    if (!this.pooled) return Promise.reject(new Error('UnitOfWork.insertId is for MySQL/MariaDB'));
    return this.autocommit(sql, parameters).then((result) => Number((result as { insertId?: number } | undefined)?.insertId ?? 0));
  }

  /** MySQL/MariaDB: one statement in autocommit, run again when the server rolled it back for contention. */
  private autocommit(sql: string, parameters: unknown[]): Promise<unknown> {
    return this.againOnDeadlock(() => this.pooled!.query(sql, parameters));
  }

  /**
   * One row's `INSERT`, or one row's `UPDATE` by key, that needs no events (oidc-provider's tokens and codes, and
   * their consumption), as `write` would write it. On MySQL/MariaDB the rows of concurrent requests go as one
   * multi-row statement and one commit (row-batches.ts): the server's parse and commit work, and a round trip,
   * once per batch instead of once per row. On SQLite the row joins the next group commit.
   */
  writeRow(statement: RowStatement, parameters: unknown[]): Promise<void> {
    if (this.rowBatches) return this.rowBatches.add(statement, parameters);
    const one = statementFor(statement, [parameters]);
    return this.write(one.sql, one.parameters).then(() => undefined);
  }

  /**
   * `write` for a statement that inserts events (an `INSERT … SELECT` of user-events.ts): on MySQL/MariaDB its
   * transaction takes the event positions first (src/common/events/event-positions.ts); on SQLite the
   * single writer already assigns them in commit order, so it joins the group commit as any statement.
   */
  writeEvents(sql: string, parameters: unknown[]): Promise<number> {
    if (!this.sqlite) {
      return this.retryingDeadlocks(async (manager) => {
        await takeEventPositions(manager);
        return manager.query(sql, parameters);
      }).then(affectedRows);
    }
    return this.enqueue({ sql, parameters }) as Promise<number>;
  }

  private enqueue(unit: { work: (manager: EntityManager) => Promise<unknown> } | { sql: string; parameters: unknown[] }): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queued.push({ ...unit, resolve, reject });
      if (this.draining) return;
      this.draining = true;
      // better-sqlite3 answers synchronously, so a unit runs start to end without yielding to I/O:
      // waiting for the requests already read in this event-loop turn is what lets them queue up.
      setImmediate(() => void this.drain());
    });
  }

  /**
   * MySQL/MariaDB: InnoDB resolves a deadlock by rolling one transaction back (gap locks of concurrent
   * inserts and deletes in one organization's index ranges are enough to cause one); the server's own
   * advice is to run it again. The whole unit is retried, a few times, after a short random pause.
   */
  private retryingDeadlocks<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.againOnDeadlock(() => this.transaction(work));
  }

  /** One transaction of the data source; its `afterCommit` listeners run once it has committed. */
  private async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    let used: EntityManager | undefined;
    try {
      const value = await this.dataSource.transaction((manager) => {
        used = manager;
        this.transactionListeners.set(manager, []);
        return work(manager);
      });
      this.committedTransaction(used);
      return value;
    } finally {
      if (used) this.transactionListeners.delete(used);
    }
  }

  /**
   * Runs `commit` (a transaction, or one statement in autocommit) again when the server rolled it back for a
   * deadlock — on Galera also a certification conflict with a write committed on another node (docs/high-availability.md) — or a
   * lock wait timeout. Up to RETRY_ATTEMPTS, after a pause drawn at random up to a doubling cap ("full jitter"),
   * so units that collided do not collide again in step.
   */
  private async againOnDeadlock<T>(commit: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const value = await commit();
        this.committed();
        return value;
      } catch (error) {
        const reason = contentionOf(error);
        if (!reason) throw error;
        if (attempt >= RETRY_ATTEMPTS) {
          transactionRetries.inc({ reason, outcome: 'given_up' });
          throw error;
        }
        transactionRetries.inc({ reason, outcome: 'retried' });
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** attempt)));
      }
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.queued.length > 0) await this.commitTogether(this.queued.splice(0, MAX_GROUP));
    } finally {
      this.draining = false;
    }
  }

  private async commitTogether(group: QueuedWork[]): Promise<void> {
    if (group.every((unit) => 'sql' in unit)) return this.commitStatements(group as StatementUnit[]);
    // Alone, a unit runs as a plain transaction, exactly as without grouping.
    if (group.length === 1) {
      const [unit] = group as WorkUnit[];
      await this.transaction((manager) => unit.work(manager)).then((value) => (this.committed(), unit.resolve(value)), unit.reject);
      return;
    }
    const runner = this.dataSource.createQueryRunner();
    const outcomes: Outcome[] = [];
    this.transactionListeners.set(runner.manager, []);
    try {
      await runner.startTransaction();
      for (const unit of group) {
        if ('sql' in unit) {
          outcomes.push(this.runStatement(unit));
          continue;
        }
        await runner.startTransaction(); // a savepoint inside the open transaction
        try {
          const value = await unit.work(runner.manager);
          await runner.commitTransaction();
          outcomes.push({ ok: true, value });
        } catch (error) {
          await runner.rollbackTransaction();
          outcomes.push({ ok: false, value: error });
        }
      }
      await runner.commitTransaction();
      // The units share the runner's manager: a unit rolled back to its savepoint may have registered a listener
      // too, which then wakes a reader that finds nothing new.
      this.committedTransaction(runner.manager);
      this.committed();
    } catch (error) {
      // BEGIN, a savepoint or the COMMIT failed: nothing of the group is stored.
      if (runner.isTransactionActive) await rollBackAll(runner);
      for (const unit of group) unit.reject(error);
      return;
    } finally {
      this.transactionListeners.delete(runner.manager);
      await runner.release();
    }
    group.forEach((unit, i) => (outcomes[i].ok ? unit.resolve(outcomes[i].value) : unit.reject(outcomes[i].value)));
  }

  /** Write statements only: the whole group is synchronous, one BEGIN IMMEDIATE … COMMIT (or autocommit alone). */
  private commitStatements(group: StatementUnit[]): void {
    const sqlite = this.sqlite!;
    let outcomes: Outcome[];
    try {
      if (group.length > 1) sqlite.run('BEGIN IMMEDIATE', []);
      outcomes = group.map((unit) => this.runStatement(unit));
      if (group.length > 1) sqlite.run('COMMIT', []);
      this.committed();
    } catch (error) {
      if (sqlite.inTransaction) sqlite.run('ROLLBACK', []);
      for (const unit of group) unit.reject(error);
      return;
    }
    group.forEach((unit, i) => (outcomes[i].ok ? unit.resolve(outcomes[i].value) : unit.reject(outcomes[i].value)));
  }

  private committedTransaction(manager: EntityManager | undefined): void {
    const listeners = manager && this.transactionListeners.get(manager);
    if (!listeners) return;
    this.transactionListeners.delete(manager);
    callEach(listeners);
  }

  private committed(): void {
    const once = this.nextCommitListeners;
    this.nextCommitListeners = [];
    callEach([...this.commitListeners, ...once]);
  }

  /**
   * A failed statement inside a transaction undoes only its own changes and rejects alone; an error that
   * ended the transaction itself (I/O, disk full) fails the group.
   */
  private runStatement(unit: StatementUnit): Outcome {
    const inTransaction = this.sqlite!.inTransaction;
    try {
      return { ok: true, value: this.sqlite!.run(unit.sql, unit.parameters) };
    } catch (error) {
      if (inTransaction && !this.sqlite!.inTransaction) throw error;
      return { ok: false, value: error };
    }
  }
}

type WorkUnit = Extract<QueuedWork, { work: unknown }>;
type StatementUnit = Extract<QueuedWork, { sql: string }>;
type Outcome = { ok: boolean; value: unknown };

async function rollBackAll(runner: ReturnType<DataSource['createQueryRunner']>): Promise<void> {
  try {
    while (runner.isTransactionActive) await runner.rollbackTransaction();
  } catch {
    // The connection refused the rollback too; SQLite rolls back an unfinished transaction itself.
  }
}

/** The rows a write changed, from mysql2's result header. */
function affectedRows(result: unknown): number {
  return Number((result as { affectedRows?: number } | undefined)?.affectedRows ?? 0);
}

function callEach(listeners: Iterable<() => void>): void {
  for (const listener of listeners) {
    try {
      listener();
    } catch {
      // A listener's failure is its own; the commit stands.
    }
  }
}
