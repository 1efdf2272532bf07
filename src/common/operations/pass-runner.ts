/**
 * The pass loop of an outbox sender (mail, back-channel logout): `wake()` starts a pass, or, while one runs, asks for
 * another when it ends, so that work queued during a pass is never left for the next poll. One pass at a time per
 * process; leases in the rows keep processes apart.
 */
export class PassRunner {
  private pass: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Stopping: a pass ends after the item it is on. */
  get isStopped(): boolean {
    return this.stopped;
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

  /** No pass starts any more; resolves when the running one has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.pass;
  }
}
