/**
 * A task run every `ms` in this process, one run at a time: a tick that comes while a run is still going is skipped
 * (a large backlog may take longer than the interval). The timer never keeps the process alive. `stop()` clears it
 * and resolves once the running run has ended, so that none meets the database pool Nest closes next.
 */
export class IntervalTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(ms: number): void {
    this.timer = setInterval(() => this.tick(), ms);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    this.running ??= this.run()
      .then(() => undefined)
      .catch((error: unknown) => this.onError(error))
      .finally(() => (this.running = undefined));
  }
}
