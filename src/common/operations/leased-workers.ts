import type { EntityManager } from 'typeorm';
import { releaseLease, takeLease } from '../database/leases.js';
import type { UnitOfWork } from '../database/unit-of-work.js';
import { newId } from '../ids.js';
import { LeaseTicker } from './lease-ticker.js';

/** The process lost an item's lease (it expired, another process took it): the item's worker stops at once. */
export class LostLease extends Error {}

/** A worker of one item: started when this process takes the item's lease, stopped when it loses it. */
export interface LeasedWorker {
  start(): void;
  stop(): Promise<void>;
}

export interface LeasedWorkersOptions<W extends LeasedWorker> {
  /** The lease's name is `<prefix>:<id>` in the `leases` table. */
  prefix: string;
  /** The items that should have a worker somewhere, read every tick. */
  ids(): Promise<string[]>;
  leaseMs(id: string): number;
  create(id: string): W;
  onError(error: unknown): void;
}

/**
 * A pool of workers, one per item, each item worked by one process at a time (docs/architecture.md, "Data": the
 * `leases` table): every second it takes the lease of each item no live process holds, renews the ones it holds, and
 * starts or stops the items' workers accordingly. A process that dies stops renewing; another takes the item over
 * when the lease runs out. A worker starts a request only while its lease outlasts the request (`sendable`) and
 * records progress only under a renewed lease (`fenced`), so two processes never deliver one item at once. Used by
 * the Shared Signals transmitter (src/signals) and the audit streamer (src/audit).
 */
export class LeasedWorkers<W extends LeasedWorker> {
  readonly holder = newId();
  private readonly workers = new Map<string, W>();
  private readonly ticker: LeaseTicker;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly options: LeasedWorkersOptions<W>,
  ) {
    this.ticker = new LeaseTicker(() => this.tick(), options.onError);
  }

  start(): void {
    this.ticker.start();
  }

  /** Stops the workers (what is in flight is done again by whoever takes over) and hands the leases back. */
  async stop(): Promise<void> {
    await this.ticker.stop();
    await Promise.all([...this.workers.values()].map((w) => w.stop()));
    for (const id of this.ticker.heldIds()) await this.uow.run((m) => releaseLease(m.queryRunner!, this.leaseName(id), this.holder)).catch(() => undefined);
  }

  /** Whether a request that may take `ms` may start now on the item. */
  sendable(id: string, ms: number): boolean {
    return this.ticker.outlasts(id, ms);
  }

  /** A transaction that records an item's progress, only while this process still holds the item's lease. */
  async fenced<T>(id: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const leaseMs = this.options.leaseMs(id);
    return this.uow.run(async (manager) => {
      const at = Date.now();
      if (this.ticker.isStopped || !(await takeLease(manager.queryRunner!, this.leaseName(id), leaseMs, this.holder, at))) throw new LostLease();
      this.ticker.held(id, at + leaseMs);
      return work(manager);
    });
  }

  /** The item's removal committed in this process: its worker stops before the removing call returns. */
  async removed(id: string): Promise<void> {
    await this.workers.get(id)?.stop();
    this.workers.delete(id);
  }

  /** A worker that ended by itself (its item gone, its lease lost) is forgotten, unless already replaced. */
  forget(id: string, worker: W): void {
    if (this.workers.get(id) === worker) this.workers.delete(id);
  }

  private leaseName(id: string): string {
    return `${this.options.prefix}:${id}`;
  }

  private async tick(): Promise<void> {
    const ids = new Set(await this.options.ids());
    for (const [id, worker] of this.workers) {
      if (ids.has(id)) continue;
      await worker.stop();
      this.workers.delete(id);
      this.ticker.released(id);
      await this.uow.run((m) => releaseLease(m.queryRunner!, this.leaseName(id), this.holder));
    }
    for (const id of ids) {
      if (this.ticker.isStopped) return;
      const at = Date.now();
      const leaseMs = this.options.leaseMs(id);
      const held = await this.uow.run((m) => takeLease(m.queryRunner!, this.leaseName(id), leaseMs, this.holder, at));
      if (held) {
        this.ticker.held(id, at + leaseMs);
        if (!this.workers.has(id)) {
          const worker = this.options.create(id);
          this.workers.set(id, worker);
          worker.start();
        }
      } else {
        this.ticker.released(id);
        await this.workers.get(id)?.stop();
        this.workers.delete(id);
      }
    }
  }
}
