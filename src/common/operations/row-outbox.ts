import type { EntityManager } from 'typeorm';
import { changedRows } from '../database/changed-rows.js';
import type { UnitOfWork } from '../database/unit-of-work.js';
import { errorMessage } from '../http/failure-causes.js';
import { newId } from '../ids.js';
import { reportBackgroundError } from './background-errors.js';
import type { BackgroundReports } from './background-errors.js';
import { PassRunner } from './pass-runner.js';
import { nextRetryAt } from './retry-schedule.js';

/** Sent and given-up rows are kept a week for operators, then deleted. */
const RETENTION_MS = 7 * 86_400_000;
const PURGE_EVERY_MS = 3_600_000;
/** The longest error kept in a row (`last_error`), in the log line and in the give-up event. */
const ERROR_LENGTH = 500;

/** What the outbox reads of every row: the retry schedule counts from its creation. */
export interface OutboxRow {
  id: string;
  attempts: number;
  createdAt: number;
}

/**
 * The statements of one outbox table, written by the module that owns the table (docs/architecture.md, "Data").
 * Their `?` take, in order: `due` (now, now) → the ids of at most `batch` due rows nobody holds, oldest first;
 * `claim` (owner, leased until, id, now); `sent` (now, id, owner); `defer` (error, next attempt at, id, owner);
 * `fail` (error, id, owner); `drop` (id, owner); `release` (owner); `purge` (created before).
 */
export interface OutboxStatements {
  due: string;
  claim: string;
  sent: string;
  defer: string;
  fail: string;
  /** Deletes a held row that is owed to nobody any more; only for tables whose sender answers `dropped`. */
  drop?: string;
  release: string;
  purge: string;
}

export interface OutboxSettings {
  leaseMs: number;
  pollMs: number;
  retryBaseMs: number;
  retryWindowMs: number;
}

export type OutboxOutcome = 'sent' | 'deferred' | 'failed';

/** What one kind of outbox (mail, logout tokens) adds to the loop: its table, its sending, its event and its log line. */
export interface OutboxAdapter<R extends OutboxRow> {
  /** Names the sender in the error log. */
  readonly name: string;
  readonly statements: OutboxStatements;
  readonly batch: number;
  readonly settings: OutboxSettings;
  /** A retry due before the next poll is looked for then, in this process (others find it at their poll). */
  readonly wakesForRetries: boolean;
  /** The claimed row as the attempt needs it; undefined: nothing to send (the row stays held until its lease ends). */
  held(manager: EntityManager, id: string): Promise<R | undefined>;
  /** One attempt: resolves once delivered, or `dropped` when nothing is owed any more; throws when not delivered. */
  send(row: R): Promise<'sent' | 'dropped'>;
  /** The start of the warning for a failed attempt (which row, to whom), never its content. */
  notSent(row: R): string;
  /** The event of a row given up on, in the transaction that marks it `failed`. */
  gaveUp(manager: EntityManager, row: R, error: string): Promise<void>;
  counted?(outcome: OutboxOutcome): void;
}

export interface OutboxServices extends BackgroundReports {
  uow: UnitOfWork;
}

/** Thrown by `send` when no retry can help (an address refused by the outbound rules): the row is given up at once. */
export class Undeliverable extends Error {}

/**
 * An outbox whose rows are sent by every process (docs/mail.md; docs/oauth-profiles.md, back-channel logout): each
 * pass takes the due rows no live process holds, one at a time, under a lease in the row (`lease_owner`,
 * `leased_until`), so two processes never send one row at once, and a row held by a process that died is sent by
 * another once its lease ends. A failed attempt is retried on the webhooks' schedule (retry-schedule.ts); a row whose
 * retries run out is `failed`, with the adapter's event in the same transaction — only while this process still
 * holds it. Rows queued by this process are looked for once their transaction commits (PassRunner).
 */
export class RowOutbox<R extends OutboxRow> {
  private readonly owner = newId();
  private readonly passes: PassRunner;
  private readonly retries = new Set<NodeJS.Timeout>();
  private lastPurge = 0;

  constructor(
    private readonly adapter: OutboxAdapter<R>,
    private readonly services: OutboxServices,
  ) {
    this.passes = new PassRunner(
      () => this.sendDue(),
      (error) => reportBackgroundError(services, adapter.name, error),
      services.uow,
    );
  }

  /** Rows were queued inside this transaction of this process: a pass starts once it commits. */
  queued(manager: EntityManager): void {
    this.passes.queued(manager);
  }

  start(): void {
    this.passes.poll(this.adapter.settings.pollMs);
  }

  /** The pass ends after the row it is on; what this process still holds goes back at once, not after the lease. */
  async stop(): Promise<void> {
    for (const retry of this.retries) clearTimeout(retry);
    await this.passes.stop();
    await this.services.uow.write(this.adapter.statements.release, [this.owner]).catch(() => undefined);
  }

  private async sendDue(): Promise<void> {
    const { uow } = this.services;
    const now = Date.now();
    const due = ((await uow.manager.query(this.adapter.statements.due, [now, now])) as { id: string }[]).map((row) => row.id);
    let attempted = 0;
    for (const id of due) {
      if (this.passes.isStopped) return;
      const claimedAt = Date.now();
      if ((await uow.write(this.adapter.statements.claim, [this.owner, claimedAt + this.adapter.settings.leaseMs, id, claimedAt])) !== 1) continue;
      const row = await this.adapter.held(uow.manager, id);
      if (!row) continue;
      await this.attempt(row);
      attempted++;
    }
    // A full batch this process worked on means more may be due (a backlog): the next pass starts when this one
    // ends, not at the next poll (BENCHMARKS.md "Mail outbox").
    if (due.length === this.adapter.batch && attempted > 0) this.passes.runAgain();
    if (now - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = now;
      await uow.write(this.adapter.statements.purge, [now - RETENTION_MS]);
    }
  }

  private async attempt(row: R): Promise<void> {
    const { uow } = this.services;
    let result: 'sent' | 'dropped';
    try {
      result = await this.adapter.send(row);
    } catch (error) {
      return this.failed(row, errorMessage(error).slice(0, ERROR_LENGTH), error instanceof Undeliverable);
    }
    if (result === 'dropped') return void (await uow.write(this.adapter.statements.drop!, [row.id, this.owner]));
    await uow.write(this.adapter.statements.sent, [Date.now(), row.id, this.owner]);
    this.adapter.counted?.('sent');
  }

  private async failed(row: R, error: string, permanent: boolean): Promise<void> {
    const now = Date.now();
    const { retryBaseMs, retryWindowMs } = this.adapter.settings;
    const next = permanent ? undefined : nextRetryAt(row.attempts + 1, row.createdAt, now, retryBaseMs, retryWindowMs);
    this.services.logger.root.warn(`${this.adapter.notSent(row)}: ${error}${next ? `; retried at ${new Date(next).toISOString()}` : '; given up'}`);
    if (next !== undefined) {
      await this.services.uow.write(this.adapter.statements.defer, [error, next, row.id, this.owner]);
      this.adapter.counted?.('deferred');
      if (this.adapter.wakesForRetries) this.wakeAt(next - now);
      return;
    }
    await this.services.uow.run(async (manager) => {
      // Still ours (a lease that ran out may have passed the row to another process): only then the event.
      if ((await changedRows(manager, this.adapter.statements.fail, [error, row.id, this.owner])) !== 1) return;
      await this.adapter.gaveUp(manager, row, error);
    });
    this.adapter.counted?.('failed');
  }

  private wakeAt(delayMs: number): void {
    if (this.passes.isStopped || delayMs >= this.adapter.settings.pollMs) return;
    const retry = setTimeout(
      () => {
        this.retries.delete(retry);
        this.passes.wake();
      },
      Math.max(0, delayMs),
    );
    retry.unref();
    this.retries.add(retry);
  }
}
