import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Encryptor } from '../common/crypto/encryptor.js';
import { newId } from '../common/ids.js';
import { mailMessages } from '../common/metrics/metrics.js';
import type { MailPurpose } from './mail-message.entity.js';
import { renderMail } from './mail-templates.js';
import type { MailContext } from './mail-templates.js';

export interface OutgoingMail extends Omit<MailContext, 'purpose'> {
  purpose: MailPurpose;
  orgId: string;
  userId: string;
  recipient: string;
}

const INSERT_SQL = `INSERT INTO mail_messages (id, org_id, user_id, purpose, recipient, content, status, attempts, created_at, next_attempt_at)
  VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`;

/**
 * Puts a message in the outbox inside the caller's transaction (docs/mail.md, "The outbox"): it is sent only if the change that
 * asked for it commits, and it is not lost if the process dies before sending (docs/mail.md). The senders of every
 * process are woken after the commit.
 */
@Injectable()
export class MailOutbox {
  private readonly listeners = new Set<(manager: EntityManager) => void>();

  constructor(private readonly encryptor: Encryptor) {}

  async enqueueIn(manager: EntityManager, mail: OutgoingMail): Promise<string> {
    const id = newId();
    const now = Date.now();
    const content = this.encryptor.encrypt(JSON.stringify(renderMail(mail)));
    await manager.query(INSERT_SQL, [id, mail.orgId, mail.userId, mail.purpose, mail.recipient, content, now, now]);
    mailMessages.inc({ result: 'queued' });
    for (const listener of this.listeners) listener(manager);
    return id;
  }

  /** `listener` runs when this process queues a message in the transaction of `manager` (the sender looks once it commits). */
  onQueued(listener: (manager: EntityManager) => void): void {
    this.listeners.add(listener);
  }
}
