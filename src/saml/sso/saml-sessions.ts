import type { EntityManager } from 'typeorm';
import { changedRows } from '../../common/database/changed-rows.js';
import { flag } from '../../common/database/column-values.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';

/** An assertion a service provider holds (docs/saml.md, "Single logout"): found again by a logout, by session, user or SessionIndex. */
export interface SamlSession {
  /** Its SessionIndex. */
  id: string;
  appId: string;
  userId: string;
  /** The OIDC session it was issued in (its public id). */
  sessionUid: string;
  nameId: string;
  nameIdFormat: string;
  nameIdQualified: boolean;
}

/** Kept as long as the OIDC session can be: a logout may come at any time within it. */
export async function recordSamlSession(manager: EntityManager, session: SamlSession, now: Date, lifetimeMs: number): Promise<void> {
  await manager.query(
    'INSERT INTO saml_sessions (id, app_id, user_id, session_uid, name_id, name_id_format, name_id_qualified, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [
      session.id,
      session.appId,
      session.userId,
      session.sessionUid,
      session.nameId,
      session.nameIdFormat,
      session.nameIdQualified,
      now.getTime(),
      now.getTime() + lifetimeMs,
    ],
  );
}

/** The assertion an SP's LogoutRequest names by SessionIndex, if it is that SP's. */
export async function samlSessionById(manager: EntityManager, appId: string, id: string): Promise<SamlSession | undefined> {
  const rows = (await manager.query('SELECT * FROM saml_sessions WHERE id = ? AND app_id = ?', [id, appId])) as Record<string, unknown>[];
  return rows[0] && sessionOf(rows[0]);
}

/** Assertions past their session's longest life, by the purge job: no logout can name them any more. Answers how many went. */
export function removeExpiredSamlSessions(uow: UnitOfWork, now: number): Promise<number> {
  return uow.write('DELETE FROM saml_sessions WHERE expires_at < ?', [now]);
}

export async function removeSamlSessions(manager: EntityManager, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await manager.query(`DELETE FROM saml_sessions WHERE id IN (${ids.map(() => '?').join(', ')})`, ids);
}

function sessionOf(row: Record<string, unknown>): SamlSession {
  return {
    id: String(row.id),
    appId: String(row.app_id),
    userId: String(row.user_id),
    sessionUid: String(row.session_uid),
    nameId: String(row.name_id),
    nameIdFormat: String(row.name_id_format),
    nameIdQualified: flag(row.name_id_qualified),
  };
}

/**
 * Marks the assertions of sessions that just ended for a LogoutRequest to their SPs, in the transaction that ended them.
 * Answers how many were marked.
 */
export function markLogoutDue(manager: EntityManager, ended: { userId: string; sessionUid?: string; keepSession?: string }, now: Date): Promise<number> {
  const where = ['user_id = ?', 'logout_due_at IS NULL'];
  const parameters: unknown[] = [now.getTime(), ended.userId];
  if (ended.sessionUid !== undefined) {
    where.push('session_uid = ?');
    parameters.push(ended.sessionUid);
  }
  if (ended.keepSession !== undefined) {
    where.push('session_uid <> ?');
    parameters.push(ended.keepSession);
  }
  return changedRows(manager, `UPDATE saml_sessions SET logout_due_at = ? WHERE ${where.join(' AND ')}`, parameters);
}

/** Assertions whose logout is due now, oldest first. */
export async function dueLogouts(manager: EntityManager, now: Date, limit: number): Promise<(SamlSession & { dueAt: number; attempts: number })[]> {
  const rows = (await manager.query(
    `SELECT * FROM saml_sessions WHERE logout_due_at IS NOT NULL AND logout_due_at <= ? ORDER BY logout_due_at LIMIT ${Number(limit)}`,
    [now.getTime()],
  )) as Record<string, unknown>[];
  return rows.map((row) => ({ ...sessionOf(row), dueAt: Number(row.logout_due_at), attempts: Number(row.logout_attempts) }));
}

/**
 * Takes a due logout for one attempt: its next attempt moves to `retryAt` in the same statement, so that another
 * process (or node) that read the same row finds it changed and leaves it. True when this caller took it.
 */
export async function claimLogout(manager: EntityManager, id: string, dueAt: number, retryAt: number): Promise<boolean> {
  return (
    (await changedRows(manager, 'UPDATE saml_sessions SET logout_due_at = ?, logout_attempts = logout_attempts + 1 WHERE id = ? AND logout_due_at = ?', [
      retryAt,
      id,
      dueAt,
    ])) === 1
  );
}
