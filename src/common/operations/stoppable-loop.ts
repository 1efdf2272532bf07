import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A background worker's loop (a webhook subscription's deliveries, an outbound SCIM target's pushes): `start()` runs
 * it; `stop()` marks it stopping, aborts what it waits on through `abort.signal` (a pause, a request, a wait for
 * events) and resolves once the loop has returned. A loop ends itself by setting `stopping`.
 */
export abstract class StoppableLoop {
  protected stopping = false;
  protected readonly abort = new AbortController();
  private running: Promise<void> | undefined;

  start(): void {
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    await this.running;
  }

  /** Returns when the worker has nothing more to do or is stopping; never throws. */
  protected abstract run(): Promise<void>;

  /** Waits `ms`, or less when the loop is stopped meanwhile. */
  protected async pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.abort.signal }).catch(() => undefined);
  }
}
