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
import { scimFetch, SCIM_TIMEOUT_MS } from '../scim-client.js';
import type { Fetch } from '../scim-client.js';
import { enabledTargetIds } from './pusher.queries.js';
import { LostLease, TargetWorker } from './target-worker.js';
import { ProvisionedGroups } from './provisioned-groups.js';
import { ProvisionedUsers } from './provisioned-users.js';

/**
 * Runs in every process: takes the lease of each enabled target no live process holds (`provisioning:<id>` in the
 * `leases` table, src/common/database/leases.ts — one holder at a time, also across Galera nodes), renews the ones
 * it holds, and runs one TargetWorker per target it holds. A process that dies stops renewing; another takes the
 * target over when the lease runs out. A request starts only while the lease outlasts its timeout, and every
 * write of progress first renews the lease in its own transaction (`fenced`), so two processes never push a
 * target's objects at once and a process that lost the lease records nothing.
 */
@Injectable()
export class ProvisioningPusher implements OnApplicationBootstrap, OnModuleDestroy {
  readonly holder = newId();
  readonly fetch: Fetch;
  private readonly workers = new Map<string, TargetWorker>();
  /** Renews the leases and looks for targets nobody pushes, every second. */
  private readonly ticker: LeaseTicker;

  constructor(
    @Inject(APP_CONFIG) readonly config: AppConfig,
    readonly uow: UnitOfWork,
    readonly encryptor: Encryptor,
    readonly users: ProvisionedUsers,
    readonly groups: ProvisionedGroups,
    private readonly logger: AppLogger,
    private readonly availability: DatabaseAvailability,
  ) {
    this.fetch = scimFetch(config.outboundAllowPrivateNetworks);
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
    return this.ticker.outlasts(targetId, SCIM_TIMEOUT_MS + 500);
  }

  /** A transaction that records a target's progress, only while this process still holds the target's lease. */
  async fenced(targetId: string, work: (manager: EntityManager) => Promise<void>): Promise<void> {
    const leaseMs = this.config.provisioning.leaseMs;
    await this.uow.run(async (manager) => {
      const at = Date.now();
      if (this.ticker.isStopped || !(await takeLease(manager.queryRunner!, leaseName(targetId), leaseMs, this.holder, at))) throw new LostLease();
      this.ticker.held(targetId, at + leaseMs);
      await work(manager);
    });
  }

  forget(targetId: string, worker: TargetWorker): void {
    if (this.workers.get(targetId) === worker) this.workers.delete(targetId);
  }

  logError(what: string, error: unknown): void {
    reportBackgroundError({ logger: this.logger, availability: this.availability }, what, error);
  }

  private async tick(): Promise<void> {
    const leaseMs = this.config.provisioning.leaseMs;
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

function leaseName(targetId: string): string {
  return `provisioning:${targetId}`;
}
