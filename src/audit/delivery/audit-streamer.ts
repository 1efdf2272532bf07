import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventSearchService } from '../../admin/events/event-search.service.js';
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
import { streamIds } from '../audit-stream.queries.js';
import { SYSLOG_TIMEOUT_MS } from './syslog-sender.js';
import { LostLease, StreamWorker } from './stream-worker.js';

/**
 * Runs in every process, as the outbound SCIM pusher does (src/provisioning/pusher/provisioning-pusher.ts): takes the
 * lease of each stream no live process holds (`audit-stream:<id>` in the `leases` table), renews the ones it holds,
 * and runs one StreamWorker per stream it holds. A process that dies stops renewing; another takes the stream over
 * when the lease runs out. A batch starts only while the lease outlasts its timeout, and its progress is recorded
 * only under a renewed lease (`fenced`), so two processes never deliver one stream at once.
 */
@Injectable()
export class AuditStreamer implements OnApplicationBootstrap, OnModuleDestroy {
  readonly holder = newId();
  private readonly workers = new Map<string, StreamWorker>();
  private readonly ticker: LeaseTicker;

  constructor(
    @Inject(APP_CONFIG) readonly config: AppConfig,
    readonly uow: UnitOfWork,
    readonly events: EventSearchService,
    readonly encryptor: Encryptor,
    private readonly logger: AppLogger,
    private readonly availability: DatabaseAvailability,
  ) {
    this.ticker = new LeaseTicker(
      () => this.tick(),
      (error) => this.logError('audit streamer', error),
    );
  }

  onApplicationBootstrap(): void {
    this.ticker.start();
  }

  /** Stops the workers (a batch in flight is abandoned: it is sent again, by whoever takes over) and hands the leases back. */
  async onModuleDestroy(): Promise<void> {
    await this.ticker.stop();
    await Promise.all([...this.workers.values()].map((w) => w.stop()));
    for (const id of this.ticker.heldIds()) await this.uow.run((m) => releaseLease(m.queryRunner!, leaseName(id), this.holder)).catch(() => undefined);
  }

  /** Whether a batch of the stream may start now: the lease outlasts the batch's timeout. */
  sendable(streamId: string): boolean {
    return this.ticker.outlasts(streamId, SYSLOG_TIMEOUT_MS + 1000);
  }

  /** A transaction that records a stream's progress, only while this process still holds the stream's lease. */
  async fenced(streamId: string, work: (manager: EntityManager) => Promise<void>): Promise<void> {
    const leaseMs = this.config.auditStreams.leaseMs;
    await this.uow.run(async (manager) => {
      const at = Date.now();
      if (this.ticker.isStopped || !(await takeLease(manager.queryRunner!, leaseName(streamId), leaseMs, this.holder, at))) throw new LostLease();
      this.ticker.held(streamId, at + leaseMs);
      await work(manager);
    });
  }

  /** The stream's deletion committed in this process: its worker stops before the deleting call returns. */
  async removed(streamId: string): Promise<void> {
    await this.workers.get(streamId)?.stop();
    this.workers.delete(streamId);
  }

  forget(streamId: string, worker: StreamWorker): void {
    if (this.workers.get(streamId) === worker) this.workers.delete(streamId);
  }

  logError(what: string, error: unknown): void {
    reportBackgroundError({ logger: this.logger, availability: this.availability }, what, error);
  }

  private async tick(): Promise<void> {
    const ids = new Set(await streamIds(this.uow.manager));
    for (const [id, worker] of this.workers) {
      if (ids.has(id)) continue;
      await worker.stop();
      this.workers.delete(id);
      this.ticker.released(id);
      await this.uow.run((m) => releaseLease(m.queryRunner!, leaseName(id), this.holder));
    }
    const leaseMs = this.config.auditStreams.leaseMs;
    for (const id of ids) {
      if (this.ticker.isStopped) return;
      const at = Date.now();
      const held = await this.uow.run((m) => takeLease(m.queryRunner!, leaseName(id), leaseMs, this.holder, at));
      if (held) {
        this.ticker.held(id, at + leaseMs);
        if (!this.workers.has(id)) {
          const worker = new StreamWorker(this, id);
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

function leaseName(streamId: string): string {
  return `audit-stream:${streamId}`;
}
