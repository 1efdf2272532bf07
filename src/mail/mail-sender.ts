import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { Encryptor } from '../common/crypto/encryptor.js';
import { DatabaseAvailability } from '../common/database/database-availability.js';
import { isDatabaseUnavailable } from '../common/database/database-unavailable.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { EventStore } from '../common/events/event-store.js';
import { errorMessage } from '../common/http/failure-causes.js';
import { AppLogger } from '../common/http/logging.js';
import { newId } from '../common/ids.js';
import { mailMessages } from '../common/metrics/metrics.js';
import { PassRunner } from '../common/operations/pass-runner.js';
import { nextRetryAt } from '../common/operations/retry-schedule.js';
import { MailMessageEntity } from './mail-message.entity.js';
import { MailOutbox } from './mail-outbox.js';
import { CLAIM_SQL, DEFER_SQL, DUE_BATCH, dueMessages, heldMessage, PURGE_SQL, RELEASE_SQL, SENT_SQL } from './mail.queries.js';
import type { HeldMessage } from './mail.queries.js';
import { mailTransport } from './mail-transport.js';
import type { MailTransport } from './mail-transport.js';
import type { RenderedMail } from './mail-templates.js';

const RETENTION_MS = 7 * 86_400_000;
const PURGE_EVERY_MS = 3_600_000;

/**
 * Sends the outbox (docs/mail.md), in every process: each pass takes the due messages no live process holds,
 * one at a time, under a lease in the message's row (`lease_owner`, `leased_until`), so two processes never
 * send one message at once and a message held by a process that died is sent by another once its lease ends.
 * A refused or failed attempt is retried on the schedule of webhooks (first after about 5 s, doubling); a
 * message still unsent 24 h after it was queued is `failed`, with an event. Its content is erased either way.
 */
@Injectable()
export class MailSender implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly owner = newId();
  private readonly transport: MailTransport;
  private lastPurge = 0;
  private readonly passes: PassRunner;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly encryptor: Encryptor,
    private readonly logger: AppLogger,
    private readonly availability: DatabaseAvailability,
    outbox: MailOutbox,
  ) {
    this.transport = mailTransport(config.mail, config.dataDir);
    this.passes = new PassRunner(() => this.sendDue(), (error) => this.logError(error), uow);
    outbox.onQueued(() => this.passes.queued());
  }

  onApplicationBootstrap(): void {
    const where = this.config.mail.smtpUrl ? `through ${this.transport.describe}` : `as .eml ${this.transport.describe} (no SMTP_URL is set)`;
    this.logger.root.info(`mail is sent ${where}`);
    this.passes.poll(this.config.mail.pollMs);
  }

  async onModuleDestroy(): Promise<void> {
    await this.passes.stop();
    await this.uow.write(RELEASE_SQL, [this.owner]).catch(() => undefined);
    this.transport.close();
  }

  private async sendDue(): Promise<void> {
    const now = Date.now();
    const due = await dueMessages(this.uow.manager, now);
    let attempted = 0;
    for (const id of due) {
      if (this.passes.isStopped) return;
      const claimedAt = Date.now();
      if ((await this.uow.write(CLAIM_SQL, [this.owner, claimedAt + this.config.mail.leaseMs, id, claimedAt])) !== 1) continue;
      const message = await heldMessage(this.uow.manager, id);
      if (!message?.content) continue;
      await this.attempt(message, message.content);
      attempted++;
    }
    // A full batch that this process worked on means more may be due: the next pass starts when this one ends, not
    // at the next poll (a backlog went out at DUE_BATCH per MAIL_POLL_MS, BENCHMARKS.md "Mail outbox").
    if (due.length === DUE_BATCH && attempted > 0) this.passes.runAgain();
    if (now - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = now;
      await this.uow.write(PURGE_SQL, [now - RETENTION_MS]);
    }
  }

  private async attempt(message: HeldMessage, content: string): Promise<void> {
    const rendered = JSON.parse(this.encryptor.decrypt(content)) as RenderedMail;
    try {
      await this.transport.send({ ...rendered, id: message.id, to: message.recipient, domain: this.config.instanceDomain });
    } catch (error) {
      return this.failed(message, errorMessage(error).slice(0, 500));
    }
    await this.uow.write(SENT_SQL, [Date.now(), message.id, this.owner]);
    mailMessages.inc({ result: 'sent' });
  }

  private async failed(message: HeldMessage, error: string): Promise<void> {
    const now = Date.now();
    const { retryBaseMs, retryWindowMs } = this.config.mail;
    const next = nextRetryAt(message.attempts + 1, message.createdAt, now, retryBaseMs, retryWindowMs);
    this.logger.root.warn(`mail ${message.id} (${message.purpose}) not sent: ${error}${next ? `; retried at ${new Date(next).toISOString()}` : '; given up'}`);
    if (next !== undefined) {
      await this.uow.write(DEFER_SQL, [error, next, message.id, this.owner]);
      mailMessages.inc({ result: 'deferred' });
      return;
    }
    await this.uow.run(async (manager) => {
      const changes = { status: 'failed' as const, content: null, attempts: message.attempts + 1, lastError: error, leaseOwner: null, leasedUntil: null };
      const { affected } = await manager.update(MailMessageEntity, { id: message.id, leaseOwner: this.owner }, changes);
      if (affected !== 1) return;
      await this.events.push(manager, {
        type: 'user.human.mail.failed',
        aggregateType: 'user',
        aggregateId: message.userId ?? message.id,
        resourceOwner: message.orgId,
        editorUserId: null,
        payload: { messageId: message.id, purpose: message.purpose, attempts: message.attempts + 1, error },
      });
    });
    mailMessages.inc({ result: 'failed' });
  }

  private logError(error: unknown): void {
    if (isDatabaseUnavailable(error)) this.availability.reportUnavailable(error);
    else this.logger.root.error(`mail sender: ${errorMessage(error)}`);
  }
}
