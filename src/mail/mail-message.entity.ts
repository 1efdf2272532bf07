import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { counterColumn } from '../common/database/columns.js';

/** Where a message stands: waiting for (another) attempt, handed to the SMTP server, or given up on. */
export type MailStatus = 'pending' | 'sent' | 'failed';

/** What a message is for; its template and the code it carries follow from it (docs/mail.md, "Codes"). */
export type MailPurpose =
  | 'invitation'
  | 'password_reset'
  | 'email_verification'
  | 'email_changed'
  | 'passkey_invitation'
  | 'passkey_recovery'
  | 'passkeys_replaced';

/**
 * One message in the outbox (docs/mail.md). Its content holds a one-time link, so it is stored encrypted with
 * the master key and erased once the message is sent or given up on; what stays is who, what for and how it went.
 */
@Entity({ name: 'mail_messages' })
@Index('ix_mail_messages_due', ['status', 'nextAttemptAt'])
export class MailMessageEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  /** The organization whose user it is for, or `instance`. */
  @Column({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  @Column({ name: 'user_id', type: 'varchar', length: 64, nullable: true })
  userId: string | null;

  @Column({ type: 'varchar', length: 32 })
  purpose: MailPurpose;

  @Column({ type: 'varchar', length: 320 })
  recipient: string;

  /** `{subject, text, html}` sealed by the Encryptor; null once sent or failed. */
  @Column({ type: 'text', nullable: true })
  content: string | null;

  @Column({ type: 'varchar', length: 16 })
  status: MailStatus;

  @Column({ type: 'int' })
  attempts: number;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  @Column({ name: 'created_at', ...counterColumn })
  createdAt: number;

  @Column({ name: 'next_attempt_at', ...counterColumn })
  nextAttemptAt: number;

  @Column({ name: 'sent_at', ...counterColumn, nullable: true })
  sentAt: number | null;

  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true })
  leaseOwner: string | null;

  @Column({ name: 'leased_until', ...counterColumn, nullable: true })
  leasedUntil: number | null;
}
