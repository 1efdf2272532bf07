import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { EventSearchService } from '../admin/events/event-search.service.js';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { Encryptor } from '../common/crypto/encryptor.js';
import { DatabaseAvailability } from '../common/database/database-availability.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { AppLogger } from '../common/http/logging.js';
import { lastEventPosition } from '../common/events/event-log.js';
import { newId } from '../common/ids.js';
import { reportBackgroundError } from '../common/operations/background-errors.js';
import { LeaseTicker } from '../common/operations/lease-ticker.js';
import { DELIVERY_TIMEOUT_MS } from './webhook-sender.js';
import { DeliveryThread } from './delivery-thread.js';
import { SubscriptionWorker } from './subscription-worker.js';
import {
  CLAIM_SQL,
  FORGET_DEAD_SQL,
  HEARTBEAT_SQL,
  JOIN_SQL,
  LEAVE_SQL,
  leaseStates,
  liveDispatchers,
  purgeDeliveries,
  RELEASE_ONE_SQL,
  RELEASE_SQL,
  RENEW_SQL,
} from './webhook.queries.js';

/** How often a process with subscriptions looks at the newest event position, to wake its idle workers. */
const WATCH_MS = 100;
/** How long delivered and given-up log rows are kept. */
const LOG_RETENTION_MS = 7 * 86_400_000;
const PURGE_EVERY_MS = 3_600_000;

/**
 * Runs in every process (each worker with WORKERS > 1): takes the leases of subscriptions no live
 * process holds, up to an even share of them (the live processes count themselves in
 * `webhook_dispatchers`), renews its own, hands back what exceeds its share when another process joins,
 * and runs one SubscriptionWorker per subscription it holds. A lease
 * lives in the subscription's row (`lease_owner`, `leased_until`): a process that dies stops renewing,
 * and another takes the subscription over when the lease runs out. A worker sends an attempt only while
 * its lease outlasts the attempt's timeout, and records progress only while it still holds the lease
 * (webhook.queries.ts, `recordAttempts`), so two processes never send a subscription's events at once.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  /** This process's name in `lease_owner`. */
  readonly leaseOwner = newId();
  readonly delivery: DeliveryThread;
  private readonly workers = new Map<string, SubscriptionWorker>();
  /** Renews the leases and looks for subscriptions nobody delivers, every second. */
  private readonly ticker: LeaseTicker;
  private watcher: NodeJS.Timeout | undefined;
  private watching: Promise<void> | undefined;
  /** The newest event position seen, and the idle workers to wake when it moves. */
  private latest = 0;
  private readonly waiting = new Set<() => void>();
  private lastPurge = 0;
  /** Until when this process's row counts it among the live dispatchers, as it last wrote it. */
  private aliveUntil = 0;

  constructor(
    @Inject(APP_CONFIG) readonly config: AppConfig,
    readonly uow: UnitOfWork,
    readonly events: EventSearchService,
    readonly encryptor: Encryptor,
    private readonly logger: AppLogger,
    private readonly availability: DatabaseAvailability,
  ) {
    this.delivery = new DeliveryThread(config.webhooks.allowPrivateNetworks);
    this.ticker = new LeaseTicker(
      () => this.tick(),
      (error) => this.logError('webhook dispatcher', error),
    );
  }

  onApplicationBootstrap(): void {
    this.ticker.start();
    this.watcher = setInterval(() => {
      if (this.workers.size === 0 || this.watching) return;
      this.watching = this.watchLog()
        .catch(() => undefined) // a database outage shows in the tick's log line
        .finally(() => (this.watching = undefined));
    }, WATCH_MS);
    this.watcher.unref();
  }

  /** The newest event position this process has seen; a worker notes it before it reads. */
  get latestPosition(): number {
    return this.latest;
  }

  /**
   * Resolves when an event past `seen` is known to exist, or after `maxMs` (a worker then reads anyway:
   * a position below the newest can still commit late, and the read decides what is visible).
   */
  waitForEvents(seen: number, maxMs: number, signal: AbortSignal): Promise<void> {
    if (this.latest > seen || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      this.waiting.add(done);
      signal.addEventListener('abort', done);
    });
  }

  private async watchLog(): Promise<void> {
    const latest = await lastEventPosition(this.uow.manager);
    if (latest === this.latest) return;
    this.latest = latest;
    for (const wake of [...this.waiting]) wake();
  }

  /** Stops the workers (an attempt in flight is abandoned: it is sent again, by whoever takes over) and hands the leases back. */
  async onModuleDestroy(): Promise<void> {
    clearInterval(this.watcher);
    await Promise.all([this.ticker.stop(), this.watching]);
    await Promise.all([...this.workers.values()].map((w) => w.stop()));
    await this.delivery.close();
    await this.uow.write(RELEASE_SQL, [this.leaseOwner]).catch(() => undefined);
    await this.uow.write(LEAVE_SQL, [this.leaseOwner]).catch(() => undefined);
  }

  /** Whether this process may start an attempt for the subscription now: its lease outlasts the attempt. */
  holds(subscriptionId: string): boolean {
    return this.ticker.outlasts(subscriptionId, DELIVERY_TIMEOUT_MS + 1000);
  }

  /** Until when an attempt for the subscription may start: its lease must outlast the attempt. */
  sendableUntil(subscriptionId: string): number {
    return this.ticker.until(subscriptionId) - DELIVERY_TIMEOUT_MS - 1000;
  }

  /**
   * The subscription's deletion committed in this process: its worker stops before the deleting call
   * returns (an attempt in flight is abandoned), so no delivery starts after it.
   */
  async removed(subscriptionId: string): Promise<void> {
    await this.workers.get(subscriptionId)?.stop();
    this.forget(subscriptionId);
  }

  /** A worker that lost its subscription (deleted, or taken over) leaves. */
  forget(subscriptionId: string): void {
    this.workers.delete(subscriptionId);
    this.ticker.released(subscriptionId);
  }

  private async claim(id: string, leaseMs: number): Promise<void> {
    const claimedAt = Date.now();
    if ((await this.uow.write(CLAIM_SQL, [this.leaseOwner, claimedAt + leaseMs, id, claimedAt, this.leaseOwner])) !== 1) return;
    this.ticker.held(id, claimedAt + leaseMs);
    const worker = new SubscriptionWorker(this, id);
    this.workers.set(id, worker);
    worker.start();
  }

  /**
   * This process's row in `webhook_dispatchers`, which counts it among the live ones until `alive_until`. Renewed
   * once a third of the lease has passed, not at every tick: a live process always has two thirds of it left, and
   * one that died drops out of the count no later than before.
   */
  private async heartbeat(now: number, leaseMs: number): Promise<void> {
    if (this.aliveUntil - now > (leaseMs * 2) / 3) return;
    const aliveUntil = now + leaseMs;
    if ((await this.uow.write(HEARTBEAT_SQL, [aliveUntil, this.leaseOwner])) === 0) await this.uow.write(JOIN_SQL, [this.leaseOwner, aliveUntil]);
    this.aliveUntil = aliveUntil;
  }

  /** A database outage is reported once, as requests report it (DatabaseAvailability); anything else is logged. */
  logError(what: string, error: unknown): void {
    reportBackgroundError({ logger: this.logger, availability: this.availability }, what, error);
  }

  private async tick(): Promise<void> {
    const leaseMs = this.config.webhooks.leaseMs;
    const renewedAt = Date.now();
    if (this.workers.size > 0) await this.uow.write(RENEW_SQL, [renewedAt + leaseMs, this.leaseOwner]);
    const states = await leaseStates(this.uow.manager);
    // A process counts itself among the live ones only while there are subscriptions to share; with none, an idle
    // instance writes nothing (it wrote this row every second). A process that starts counting again joins as a
    // newly started one does: the share shrinks as the others count themselves in, and the surplus is handed back.
    if (states.length > 0) await this.heartbeat(renewedAt, leaseMs);
    const now = Date.now();
    // An even share: every live process holds at most this many, so together they hold them all.
    const share = Math.ceil(states.length / Math.max(1, await liveDispatchers(this.uow.manager, now)));
    const present = new Set<string>();
    const free: { id: string; leaseOwner: string | null }[] = [];
    for (const state of states) {
      present.add(state.id);
      if (state.leaseOwner === this.leaseOwner && this.workers.has(state.id)) {
        this.ticker.held(state.id, renewedAt + leaseMs);
      } else if (this.workers.has(state.id)) {
        void this.workers.get(state.id)!.stop();
        this.forget(state.id);
      } else if (state.leaseOwner === null || state.leasedUntil < now || state.leaseOwner === this.leaseOwner) {
        free.push(state);
      }
    }
    for (const [id, worker] of this.workers) {
      if (!present.has(id)) {
        void worker.stop();
        this.forget(id);
      }
    }
    for (const { id, leaseOwner } of free) {
      if (this.ticker.isStopped) return;
      if (this.workers.size < share) await this.claim(id, leaseMs);
      // Still ours from before (its worker left) but beyond the share: someone else's to take.
      else if (leaseOwner === this.leaseOwner) await this.uow.write(RELEASE_ONE_SQL, [id, this.leaseOwner]);
    }
    // More than a share (another process joined): hand the surplus back, each after its worker has stopped.
    for (const [id, worker] of [...this.workers].slice(share)) {
      if (this.ticker.isStopped) return;
      await worker.stop();
      this.forget(id);
      await this.uow.write(RELEASE_ONE_SQL, [id, this.leaseOwner]);
    }
    if (now - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = now;
      await this.uow.run((manager) => purgeDeliveries(manager, now - LOG_RETENTION_MS));
      await this.uow.write(FORGET_DEAD_SQL, [now - leaseMs]);
    }
  }
}
