import type { EntityManager } from 'typeorm';
import type { OutboxStatements } from '../common/operations/row-outbox.js';
import type { MailPurpose } from './mail-message.entity.js';

/** How many due messages one pass takes; a full batch is followed by another pass at once. */
export const DUE_BATCH = 20;

/** The oldest due messages nobody holds: pending, their time come, their lease (if any) run out. */
const DUE_SQL = `SELECT id FROM mail_messages WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_owner IS NULL OR leased_until < ?)
  ORDER BY next_attempt_at LIMIT ${DUE_BATCH}`;

/** Takes one message for this process; 1 row changed means it is ours until the lease ends. */
const CLAIM_SQL = `UPDATE mail_messages SET lease_owner = ?, leased_until = ? WHERE id = ? AND status = 'pending' AND (lease_owner IS NULL OR leased_until < ?)`;

const SENT_SQL = `UPDATE mail_messages SET status = 'sent', content = NULL, sent_at = ?, attempts = attempts + 1, last_error = NULL,
  lease_owner = NULL, leased_until = NULL WHERE id = ? AND lease_owner = ?`;

const DEFER_SQL = `UPDATE mail_messages SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, lease_owner = NULL, leased_until = NULL
  WHERE id = ? AND lease_owner = ?`;

/** A message given up on: its content is erased as when it is sent. */
const FAIL_SQL = `UPDATE mail_messages SET status = 'failed', content = NULL, attempts = attempts + 1, last_error = ?, lease_owner = NULL, leased_until = NULL
  WHERE id = ? AND lease_owner = ?`;

/** What a stopping process still holds goes back at once, not after the lease. */
const RELEASE_SQL = `UPDATE mail_messages SET lease_owner = NULL, leased_until = NULL WHERE lease_owner = ? AND status = 'pending'`;

/** Sent and failed messages are kept a week (their content is already gone), then deleted. */
const PURGE_SQL = `DELETE FROM mail_messages WHERE status <> 'pending' AND created_at < ?`;

/** The outbox's statements on `mail_messages` (src/common/operations/row-outbox.ts). */
export const MAIL_STATEMENTS: OutboxStatements = {
  due: DUE_SQL,
  claim: CLAIM_SQL,
  sent: SENT_SQL,
  defer: DEFER_SQL,
  fail: FAIL_SQL,
  release: RELEASE_SQL,
  purge: PURGE_SQL,
};

export interface HeldMessage {
  id: string;
  orgId: string;
  userId: string | null;
  purpose: MailPurpose;
  recipient: string;
  content: string | null;
  attempts: number;
  createdAt: number;
}

export async function heldMessage(manager: EntityManager, id: string): Promise<HeldMessage | undefined> {
  const [row] = (await manager.query('SELECT id, org_id, user_id, purpose, recipient, content, attempts, created_at FROM mail_messages WHERE id = ?', [
    id,
  ])) as Record<string, unknown>[];
  if (!row) return undefined;
  return {
    id: String(row.id),
    orgId: String(row.org_id),
    userId: row.user_id === null ? null : String(row.user_id),
    purpose: row.purpose as MailPurpose,
    recipient: String(row.recipient),
    content: row.content === null ? null : String(row.content),
    attempts: Number(row.attempts),
    createdAt: Number(row.created_at),
  };
}
