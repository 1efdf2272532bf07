import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { whileLeased } from '../../common/database/leases.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { WalCheckpointer } from '../../common/database/wal-checkpointer.js';
import { IntervalTask } from '../../common/operations/interval-task.js';
import { purgeExpiredPayloads } from './oidc-purge.js';

/** The purge of expired rows runs in one process at a time; a process that dies holding the lease loses it after this. */
const PURGE_LEASE = 'oidc.purge';
const PURGE_LEASE_MS = 300_000;

/** Another module's expired rows, deleted by its own statements (docs/architecture.md, "Data"), `now` in ms. */
export type ExtraPurge = (uow: UnitOfWork, now: number) => Promise<unknown>;

/**
 * Deletes expired `oidc_payloads` rows every `OIDC_PURGE_INTERVAL_MS`, then the expired rows other modules register
 * (`alsoPurge`: the SAML IdP's pending requests and assertions), so that no request path pays for them. One purge at a
 * time: a large backlog takes longer than the interval, in batches (purgeExpiredPayloads); and one process at a time,
 * under a lease: two would delete the same rows (on Galera, conflicting through two nodes). At shutdown a purge stops
 * after its current batch.
 */
@Injectable()
export class OidcPurgeSchedule implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('oidc');
  private readonly stopping = new AbortController();
  private readonly extras: ExtraPurge[] = [];
  private readonly task = new IntervalTask(
    () => whileLeased(this.uow, PURGE_LEASE, PURGE_LEASE_MS, () => this.purge()),
    (error) => this.logger.error(`purge failed: ${String(error)}`),
  );

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly checkpointer: WalCheckpointer,
  ) {}

  /** `purge` runs at every purge, after the OIDC rows, under the same lease. */
  alsoPurge(purge: ExtraPurge): void {
    this.extras.push(purge);
  }

  private async purge(): Promise<void> {
    await purgeExpiredPayloads(this.dataSource, this.uow, { checkpointer: this.checkpointer, signal: this.stopping.signal });
    for (const extra of this.extras) {
      if (this.stopping.signal.aborted) return;
      await extra(this.uow, Date.now());
    }
  }

  onApplicationBootstrap(): void {
    this.task.start(this.config.oidcPurgeIntervalMs);
  }

  onModuleDestroy(): Promise<void> {
    this.stopping.abort();
    return this.task.stop();
  }
}
