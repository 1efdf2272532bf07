import type { EntityManager } from 'typeorm';
import type { OutboxStatements } from '../../common/operations/row-outbox.js';

/**
 * The outbox of logout tokens (table `backchannel_logouts`, owned here; migration 1763703400000). A row is `pending`
 * until it is delivered (`sent`) or given up on (`failed`); a process holds one it is sending under a lease.
 */

export interface OwedLogout {
  id: string;
  appId: string;
  userId: string;
  sid: string | null;
  attempts: number;
  createdAt: number;
}

const INSERT_SQL = `INSERT INTO backchannel_logouts (id, app_id, user_id, sid, status, attempts, created_at, next_attempt_at)
  VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`;

/** How many due rows one pass takes; a full batch is followed by another pass at once. */
export const DUE_BATCH = 20;

/** The oldest due rows nobody holds: pending, their time come, their lease (if any) run out. */
const DUE_SQL = `SELECT id FROM backchannel_logouts WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_owner IS NULL OR leased_until < ?)
  ORDER BY next_attempt_at LIMIT ${DUE_BATCH}`;

/** Takes one row for this process; 1 row changed means it is ours until the lease ends. */
const CLAIM_SQL = `UPDATE backchannel_logouts SET lease_owner = ?, leased_until = ? WHERE id = ? AND status = 'pending' AND (lease_owner IS NULL OR leased_until < ?)`;

const SENT_SQL = `UPDATE backchannel_logouts SET status = 'sent', sent_at = ?, attempts = attempts + 1, last_error = NULL,
  lease_owner = NULL, leased_until = NULL WHERE id = ? AND lease_owner = ?`;

const DEFER_SQL = `UPDATE backchannel_logouts SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, lease_owner = NULL, leased_until = NULL
  WHERE id = ? AND lease_owner = ?`;

const FAIL_SQL = `UPDATE backchannel_logouts SET status = 'failed', attempts = attempts + 1, last_error = ?, lease_owner = NULL, leased_until = NULL
  WHERE id = ? AND lease_owner = ?`;

/** An application that no longer wants logout tokens (its URI removed) is owed none: the row goes. */
const DROP_SQL = `DELETE FROM backchannel_logouts WHERE id = ? AND lease_owner = ?`;

/** What a stopping process still holds goes back at once, not after the lease. */
const RELEASE_SQL = `UPDATE backchannel_logouts SET lease_owner = NULL, leased_until = NULL WHERE lease_owner = ? AND status = 'pending'`;

/** Sent and failed rows are kept a week for operators, then deleted. */
const PURGE_SQL = `DELETE FROM backchannel_logouts WHERE status <> 'pending' AND created_at < ?`;

/** The outbox's statements on `backchannel_logouts` (src/common/operations/row-outbox.ts). */
export const LOGOUT_STATEMENTS: OutboxStatements = {
  due: DUE_SQL,
  claim: CLAIM_SQL,
  sent: SENT_SQL,
  defer: DEFER_SQL,
  fail: FAIL_SQL,
  drop: DROP_SQL,
  release: RELEASE_SQL,
  purge: PURGE_SQL,
};

export async function insertLogout(manager: EntityManager, row: { id: string; appId: string; userId: string; sid: string | null }, now: number): Promise<void> {
  await manager.query(INSERT_SQL, [row.id, row.appId, row.userId, row.sid, now, now]);
}

export async function owedLogout(manager: EntityManager, id: string): Promise<OwedLogout | undefined> {
  const [row] = (await manager.query('SELECT id, app_id, user_id, sid, attempts, created_at FROM backchannel_logouts WHERE id = ?', [id])) as Record<
    string,
    unknown
  >[];
  if (!row) return undefined;
  return {
    id: String(row.id),
    appId: String(row.app_id),
    userId: String(row.user_id),
    sid: row.sid == null ? null : String(row.sid),
    attempts: Number(row.attempts),
    createdAt: Number(row.created_at),
  };
}
