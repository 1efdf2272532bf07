import { Injectable } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '../database/unit-of-work.js';

/** How often a process looks for events other processes committed, while anyone waits for one. */
export const FEED_POLL_MS = 10;

/** A wait for the next event commit; `cancel` when no longer waiting. */
export interface NextCommit {
  changed: Promise<void>;
  cancel(): void;
}

/**
 * Tells waiters that events may have committed (docs/product-rules.md, "Import and event search": the feed). While anyone waits, the process
 * reads `MAX(position)` every FEED_POLL_MS and at once after each of its own commits; a new maximum
 * wakes every waiter, who then searches again with its own filters. Positions are handed out in
 * commit order (event-positions.ts), so a commit always raises the maximum: comparing it is enough to
 * notice any event, from any process. The process's first reading has nothing to compare with and
 * wakes everyone (one extra search), so an event committed just before it is not missed.
 */
@Injectable()
export class EventFeed implements OnModuleDestroy {
  private readonly waiters = new Set<() => void>();
  /**
   * MAX(position) at the last reading; undefined before the first. An old value is still a sound
   * baseline: any commit since that reading raised the maximum above it.
   */
  private last: string | undefined;
  private reading = false;
  /** A commit arrived during a reading, which may not include it: read again at once. */
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly unlisten: () => void;
  /** Shutting down: waits end at once, so a waiting request does not hold the process up to its deadline. */
  private closedFlag = false;

  constructor(
    private readonly dataSource: DataSource,
    uow: UnitOfWork,
  ) {
    this.unlisten = uow.onCommit(() => this.read());
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Subscribe before searching: a commit after this call resolves `changed` (as does shutting down). */
  nextCommit(): NextCommit {
    if (this.closedFlag) return { changed: Promise.resolve(), cancel: () => undefined };
    let wake!: () => void;
    const changed = new Promise<void>((resolve) => (wake = resolve));
    this.waiters.add(wake);
    if (this.waiters.size === 1) this.read();
    return {
      changed,
      cancel: () => {
        this.waiters.delete(wake);
        if (this.waiters.size === 0) this.idle();
      },
    };
  }

  onModuleDestroy(): void {
    this.closedFlag = true;
    this.unlisten();
    this.wakeAll();
    this.idle();
  }

  private read(): void {
    if (this.waiters.size === 0 || this.closedFlag) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.maxPosition()
      .then(
        (max) => {
          const changed = this.last === undefined || max !== this.last;
          this.last = max;
          if (changed) this.wakeAll();
        },
        () => {
          // The database did not answer: the waiters' own deadlines still end their waits; read again later.
        },
      )
      .finally(() => {
        this.reading = false;
        if (this.again) {
          this.again = false;
          this.read();
        } else if (this.waiters.size > 0 && !this.closedFlag) {
          this.timer ??= setTimeout(() => ((this.timer = undefined), this.read()), FEED_POLL_MS);
        }
      });
  }

  private wakeAll(): void {
    const woken = [...this.waiters];
    this.waiters.clear();
    for (const wake of woken) wake();
  }

  private idle(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async maxPosition(): Promise<string> {
    const [row] = await this.dataSource.query('SELECT MAX(position) AS max FROM events');
    return String(row?.max ?? 0);
  }
}
