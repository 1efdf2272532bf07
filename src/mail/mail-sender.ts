import { Inject, Injectable } from '@nestjs/common';
import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { Encryptor } from '../common/crypto/encryptor.js';
import { DatabaseAvailability } from '../common/database/database-availability.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { EventStore } from '../common/events/event-store.js';
import { AppLogger } from '../common/http/logging.js';
import { mailMessages } from '../common/metrics/metrics.js';
import { RowOutbox } from '../common/operations/row-outbox.js';
import type { OutboxAdapter, OutboxOutcome } from '../common/operations/row-outbox.js';
import { MailOutbox } from './mail-outbox.js';
import { DUE_BATCH, heldMessage, MAIL_STATEMENTS } from './mail.queries.js';
import type { HeldMessage } from './mail.queries.js';
import { mailTransport } from './mail-transport.js';
import type { MailTransport } from './mail-transport.js';
import type { RenderedMail } from './mail-templates.js';

/** A held message with its content opened. */
interface SendableMessage extends HeldMessage {
  rendered: RenderedMail;
}

/**
 * Sends the outbox (docs/mail.md), in every process, through a RowOutbox: one message at a time under a lease in its
 * row, so two processes never send one message at once and a message held by a process that died is sent by another
 * once its lease ends. A refused or failed attempt is retried on the schedule of webhooks (first after about 5 s,
 * doubling); a message still unsent 24 h after it was queued is `failed`, with an event. Its content is erased
 * either way.
 */
@Injectable()
export class MailSender implements OnApplicationBootstrap, OnModuleDestroy, OutboxAdapter<SendableMessage> {
  readonly name = 'mail sender';
  readonly statements = MAIL_STATEMENTS;
  readonly batch = DUE_BATCH;
  readonly settings: AppConfig['mail'];
  /** A retry waits for the next poll (MAIL_POLL_MS). */
  readonly wakesForRetries = false;
  private readonly transport: MailTransport;
  private readonly outbox: RowOutbox<SendableMessage>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly encryptor: Encryptor,
    private readonly logger: AppLogger,
    availability: DatabaseAvailability,
    mailOutbox: MailOutbox,
  ) {
    this.settings = config.mail;
    this.transport = mailTransport(config.mail, config.dataDir);
    this.outbox = new RowOutbox(this, { uow, logger, availability });
    mailOutbox.onQueued((manager) => this.outbox.queued(manager));
  }

  onApplicationBootstrap(): void {
    const where = this.config.mail.smtpUrl ? `through ${this.transport.describe}` : `as .eml ${this.transport.describe} (no SMTP_URL is set)`;
    this.logger.root.info(`mail is sent ${where}`);
    this.outbox.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.outbox.stop();
    this.transport.close();
  }

  async held(manager: EntityManager, id: string): Promise<SendableMessage | undefined> {
    const message = await heldMessage(manager, id);
    if (!message?.content) return undefined;
    return { ...message, rendered: JSON.parse(this.encryptor.decrypt(message.content)) as RenderedMail };
  }

  async send(message: SendableMessage): Promise<'sent'> {
    await this.transport.send({ ...message.rendered, id: message.id, to: message.recipient, domain: this.config.instanceDomain });
    return 'sent';
  }

  notSent(message: SendableMessage): string {
    return `mail ${message.id} (${message.purpose}) not sent`;
  }

  async gaveUp(manager: EntityManager, message: SendableMessage, error: string): Promise<void> {
    await this.events.push(manager, {
      type: 'user.human.mail.failed',
      aggregateType: 'user',
      aggregateId: message.userId ?? message.id,
      resourceOwner: message.orgId,
      editorUserId: null,
      payload: { messageId: message.id, purpose: message.purpose, attempts: message.attempts + 1, error },
    });
  }

  counted(outcome: OutboxOutcome): void {
    mailMessages.inc({ result: outcome });
  }
}
