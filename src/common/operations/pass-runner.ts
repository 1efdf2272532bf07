/** What wakes a runner after a commit: the UnitOfWork's commit listeners. */
export interface Commits {
  onCommit(listener: () => void): unknown;
}

/**
 * The pass loop of an outbox sender (mail, back-channel logout): `wake()` starts a pass, or, while one runs, asks for
 * another when it ends, so that work queued during a pass is never left for the next poll. One pass at a time per
 * process; leases in the rows keep processes apart. A pass also starts after a commit that follows `queued()` (the
 * queued rows are visible then), and every poll interval, for rows queued by other processes and retries come due.
 */
export class PassRunner {
  private pass: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private queuedHere = false;
  private poller: NodeJS.Timeout | undefined;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    commits: Commits,
  ) {
    commits.onCommit(() => {
      if (!this.queuedHere) return;
      this.queuedHere = false;
      this.wake();
    });
  }

  /** Stopping: a pass ends after the item it is on. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Work was queued inside a transaction of this process: the next commit starts a pass. */
  queued(): void {
    this.queuedHere = true;
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
