import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { DatabaseAvailability } from '../../common/database/database-availability.js';
import { releaseLease, takeLease } from '../../common/database/leases.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { AppLogger } from '../../common/http/logging.js';
import { newId } from '../../common/ids.js';
import { reportBackgroundError } from '../../common/operations/background-errors.js';
import { LeaseTicker } from '../../common/operations/lease-ticker.js';
import { REQUEST_TIMEOUT_MS } from '../provisioning-settings.js';
import { enabledTargetIds } from './pusher.queries.js';
import { LostLease, TargetWorker } from './target-worker.js';
import { ProvisionedGroups } from './provisioned-groups.js';
import { ProvisionedUsers } from './provisioned-users.js';

/**
 * Runs in every process: takes the lease of each enabled target no live process holds (`provisioning:<id>` in the
 * `leases` table, src/common/database/leases.ts — one holder at a time, also across Galera nodes), renews the ones
 * it holds, and runs one TargetWorker per target it holds. A process that dies stops renewing; another takes the
 * target over when the lease runs out. A request starts only while the lease outlasts its timeout (the target's
 * `requestTimeoutMs`; a target that allows more than the configured lease leaves room for it), and every
 * write of progress first renews the lease in its own transaction (`fenced`), so two processes never push a
 * target's objects at once and a process that lost the lease records nothing.
 */
@Injectable()
export class ProvisioningPusher implements OnApplicationBootstrap, OnModuleDestroy {
  readonly holder = newId();
  private readonly workers = new Map<string, TargetWorker>();
  /** Renews the leases and looks for targets nobody pushes, every second. */
  private readonly ticker: LeaseTicker;
  /** Each target's request timeout, as its worker last read the target. */
  private readonly timeouts = new Map<string, number>();

  constructor(
    @Inject(APP_CONFIG) readonly config: AppConfig,
    readonly uow: UnitOfWork,
    readonly encryptor: Encryptor,
    readonly users: ProvisionedUsers,
    readonly groups: ProvisionedGroups,
    private readonly logger: AppLogger,
    private readonly availability: DatabaseAvailability,
  ) {
    this.ticker = new LeaseTicker(
      () => this.tick(),
      (error) => this.logError('provisioning pusher', error),
    );
  }

  onApplicationBootstrap(): void {
    this.ticker.start();
  }

  /** Stops the workers (a request in flight is abandoned: it is retried, by whoever takes over) and hands the leases back. */
  async onModuleDestroy(): Promise<void> {
    await this.ticker.stop();
    await Promise.all([...this.workers.values()].map((w) => w.stop()));
    for (const id of this.ticker.heldIds()) await this.uow.run((m) => releaseLease(m.queryRunner!, leaseName(id), this.holder)).catch(() => undefined);
  }

  /** Whether a request for the target may start now: the lease outlasts the request's timeout. */
  sendable(targetId: string): boolean {
    return this.ticker.outlasts(targetId, this.requestTimeoutOf(targetId) + 500);
  }

  /** A worker read its target's request timeout: the lease is taken long enough for it from the next renewal on. */
  timeoutRead(targetId: string, timeoutMs: number): void {
    this.timeouts.set(targetId, timeoutMs);
  }

  /** A transaction that records a target's progress, only while this process still holds the target's lease. */
  async fenced(targetId: string, work: (manager: EntityManager) => Promise<void>): Promise<void> {
    const leaseMs = this.leaseMsOf(targetId);
    await this.uow.run(async (manager) => {
      const at = Date.now();
      if (this.ticker.isStopped || !(await takeLease(manager.queryRunner!, leaseName(targetId), leaseMs, this.holder, at))) throw new LostLease();
      this.ticker.held(targetId, at + leaseMs);
      await work(manager);
    });
  }

  forget(targetId: string, worker: TargetWorker): void {
    if (this.workers.get(targetId) !== worker) return;
    this.workers.delete(targetId);
    this.timeouts.delete(targetId);
  }

  private requestTimeoutOf(targetId: string): number {
    return this.timeouts.get(targetId) ?? REQUEST_TIMEOUT_MS.default;
  }

  /**
   * How long a lease on the target is taken: `PROVISIONING_LEASE_MS`, or longer for a target whose requests may take
   * more (a request must be able to start, and end, under the lease; renewals come every second).
   */
  private leaseMsOf(targetId: string): number {
    return Math.max(this.config.provisioning.leaseMs, this.requestTimeoutOf(targetId) + LEASE_BEYOND_REQUEST_MS);
  }

  logError(what: string, error: unknown): void {
    reportBackgroundError({ logger: this.logger, availability: this.availability }, what, error);
  }

  private async tick(): Promise<void> {
    const ids = new Set(await enabledTargetIds(this.uow.manager));
    for (const [id, worker] of this.workers) {
      if (!ids.has(id)) {
        await worker.stop();
        this.ticker.released(id);
        await this.uow.run((m) => releaseLease(m.queryRunner!, leaseName(id), this.holder));
      }
    }
    for (const id of ids) {
      if (this.ticker.isStopped) return;
      const leaseMs = this.leaseMsOf(id);
      const at = Date.now();
      const held = await this.uow.run((m) => takeLease(m.queryRunner!, leaseName(id), leaseMs, this.holder, at));
      if (held) {
        this.ticker.held(id, at + leaseMs);
        if (!this.workers.has(id)) {
          const worker = new TargetWorker(this, id);
          this.workers.set(id, worker);
          worker.start();
        }
      } else {
        this.ticker.released(id);
        await this.workers.get(id)?.stop();
      }
    }
  }
}

/** What a lease on a target outlasts its request timeout by, at least: a few renewals' worth of ticks. */
const LEASE_BEYOND_REQUEST_MS = 5000;

function leaseName(targetId: string): string {
  return `provisioning:${targetId}`;
}
