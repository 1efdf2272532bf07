/** How often a process renews its leases and looks for work nobody holds. */
const TICK_MS = 1000;

/**
 * The lease side of a pool of workers that each follow a cursor for one item (a webhook subscription's deliveries,
 * docs/webhooks.md; an outbound SCIM target's pushes, docs/provisioning.md): a tick every second, one at a time, that
 * takes and renews this process's leases, and until when each lease it holds is certainly its own, so that a request
 * starts only while its lease outlasts it. Where a lease is stored and how items are shared out between processes
 * stay with each module: webhooks keep theirs in the subscription's row and share subscriptions evenly, provisioning
 * keeps its in the `leases` table and takes every target it can.
 */
export class LeaseTicker {
  private readonly heldUntil = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly tick: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** A tick every second from now on (none while the last still runs); the timer never keeps the process alive. */
  start(): void {
    this.timer = setInterval(() => {
      this.ticking ??= this.tick()
        .catch((error: unknown) => this.onError(error))
        .finally(() => (this.ticking = undefined));
    }, TICK_MS);
    this.timer.unref();
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** No tick starts any more; resolves when the running one has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking;
  }

  /** The lease on `id` is this process's until `until` (the start of the statement that took or renewed it, plus the lease). */
  held(id: string, until: number): void {
    this.heldUntil.set(id, until);
  }

  released(id: string): void {
    this.heldUntil.delete(id);
  }

  heldIds(): string[] {
    return [...this.heldUntil.keys()];
  }

  /** Until when the lease on `id` is certainly this process's (0: not held). */
  until(id: string): number {
    return this.heldUntil.get(id) ?? 0;
  }

  /** Whether a request that may take `ms` can start now on `id`: not stopping, and its lease outlasts the request. */
  outlasts(id: string, ms: number): boolean {
    return !this.stopped && this.until(id) - Date.now() > ms;
  }
}
