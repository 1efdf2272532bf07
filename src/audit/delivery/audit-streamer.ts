import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventSearchService } from '../../admin/events/event-search.service.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { DatabaseAvailability } from '../../common/database/database-availability.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { AppLogger } from '../../common/http/logging.js';
import { reportBackgroundError } from '../../common/operations/background-errors.js';
import { LeasedWorkers } from '../../common/operations/leased-workers.js';
import { streamIds } from '../audit-stream.queries.js';
import { SYSLOG_TIMEOUT_MS } from './syslog-sender.js';
import { StreamWorker } from './stream-worker.js';

/**
 * Runs in every process, as the outbound SCIM pusher does (src/provisioning/pusher/provisioning-pusher.ts): one
 * StreamWorker per stream this process holds the lease of (`audit-stream:<id>` in the `leases` table), through
 * LeasedWorkers (src/common/operations/leased-workers.ts), which takes the leases no live process holds and renews its
 * own. A process that dies stops renewing; another takes the stream over when the lease runs out. A batch starts only
 * while the lease outlasts its timeout, and its progress is recorded only under a renewed lease (`fenced`), so two
 * processes never deliver one stream at once.
 */
@Injectable()
export class AuditStreamer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly workers: LeasedWorkers<StreamWorker>;

  constructor(
    @Inject(APP_CONFIG) readonly config: AppConfig,
    readonly uow: UnitOfWork,
    readonly events: EventSearchService,
    readonly encryptor: Encryptor,
    private readonly logger: AppLogger,
    private readonly availability: DatabaseAvailability,
  ) {
    this.workers = new LeasedWorkers(uow, {
      prefix: 'audit-stream',
      ids: () => streamIds(this.uow.manager),
      leaseMs: () => config.auditStreams.leaseMs,
      create: (id) => new StreamWorker(this, id),
      onError: (error) => this.logError('audit streamer', error),
    });
  }

  onApplicationBootstrap(): void {
    this.workers.start();
  }

  /** Stops the workers (a batch in flight is abandoned: it is sent again, by whoever takes over) and hands the leases back. */
  async onModuleDestroy(): Promise<void> {
    await this.workers.stop();
  }

  /** Whether a batch of the stream may start now: the lease outlasts the batch's timeout. */
  sendable(streamId: string): boolean {
    return this.workers.sendable(streamId, SYSLOG_TIMEOUT_MS + 1000);
  }

  /** A transaction that records a stream's progress, only while this process still holds the stream's lease. */
  fenced(streamId: string, work: (manager: EntityManager) => Promise<void>): Promise<void> {
    return this.workers.fenced(streamId, work);
  }

  /** The stream's deletion committed in this process: its worker stops before the deleting call returns. */
  removed(streamId: string): Promise<void> {
    return this.workers.removed(streamId);
  }

  forget(streamId: string, worker: StreamWorker): void {
    this.workers.forget(streamId, worker);
  }

  logError(what: string, error: unknown): void {
    reportBackgroundError({ logger: this.logger, availability: this.availability }, what, error);
  }
}
