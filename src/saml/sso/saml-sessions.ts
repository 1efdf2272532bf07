import type { EntityManager } from 'typeorm';
import { flag } from '../../common/database/column-values.js';

/** An assertion a service provider holds (DESIGN §15): found again by a logout, by session, user or SessionIndex. */
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
  await manager.query('DELETE FROM saml_sessions WHERE user_id = ? AND expires_at < ?', [session.userId, now.getTime()]);
  await manager.query(
    'INSERT INTO saml_sessions (id, app_id, user_id, session_uid, name_id, name_id_format, name_id_qualified, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [session.id, session.appId, session.userId, session.sessionUid, session.nameId, session.nameIdFormat, session.nameIdQualified, now.getTime(), now.getTime() + lifetimeMs],
  );
}

/** The assertions of one OIDC session, or of one user (every session), that a logout must reach. */
export async function samlSessionsOf(manager: EntityManager, of: { sessionUid: string } | { userId: string }): Promise<SamlSession[]> {
  const [column, value] = 'sessionUid' in of ? ['session_uid', of.sessionUid] : ['user_id', of.userId];
  const rows = (await manager.query(`SELECT * FROM saml_sessions WHERE ${column} = ?`, [value])) as Record<string, unknown>[];
  return rows.map(sessionOf);
}

/** The assertion an SP's LogoutRequest names by SessionIndex, if it is that SP's. */
export async function samlSessionById(manager: EntityManager, appId: string, id: string): Promise<SamlSession | undefined> {
  const rows = (await manager.query('SELECT * FROM saml_sessions WHERE id = ? AND app_id = ?', [id, appId])) as Record<string, unknown>[];
  return rows[0] && sessionOf(rows[0]);
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
