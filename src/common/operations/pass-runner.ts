import type { EntityManager } from 'typeorm';

/** What wakes a runner after a commit: the UnitOfWork's listeners of one transaction's commit. */
export interface Commits {
  afterCommit(manager: EntityManager, listener: () => void): unknown;
}

/**
 * The pass loop of an outbox sender (mail, back-channel logout): `wake()` starts a pass, or, while one runs, asks for
 * another when it ends, so that work queued during a pass is never left for the next poll. One pass at a time per
 * process; leases in the rows keep processes apart. A pass also starts once the transaction that `queued()` names
 * commits (the queued rows are visible then; not another transaction's commit, which on MySQL/MariaDB may come
 * first), and every poll interval, for rows queued by other processes and retries come due.
 */
export class PassRunner {
  private pass: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private poller: NodeJS.Timeout | undefined;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly commits: Commits,
  ) {}

  /** Stopping: a pass ends after the item it is on. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Work was queued inside this transaction of this process: its commit starts a pass. */
  queued(manager: EntityManager): void {
    this.commits.afterCommit(manager, () => this.wake());
  }

  /** A pass every `ms` from now on; the timer never keeps the process alive. */
  poll(ms: number): void {
    clearInterval(this.poller);
    this.poller = setInterval(() => this.wake(), ms);
    this.poller.unref();
  }

  wake(): void {
    if (this.stopped) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.run()
      .catch((error: unknown) => this.onError(error))
      .finally(() => {
        this.pass = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** From inside a pass: another one right after it (a full batch: more may be due than one pass takes). */
  runAgain(): void {
    this.again = true;
  }

  /** No pass starts any more (the poll stops too); resolves when the running one has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poller);
    await this.pass;
  }
}
