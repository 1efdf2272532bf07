import type { EntityManager } from 'typeorm';
import type { EndedSignIn } from '../../common/auth/session-ends.js';

/** What a stored Session payload of oidc-provider says about its clients: per client, its `sid` (OIDC BCL §2.1). */
interface StoredSignIns {
  uid?: string;
  authorizations?: Record<string, { sid?: string }>;
}

/**
 * The clients a stored session had signed in to (oidc-provider's `Session#authorizations`, keyed by client id), but
 * those in `kept`: a client-only logout at end-session keeps the session for the others.
 */
export function signInsOf(stored: StoredSignIns, kept: Record<string, unknown> = {}): EndedSignIn[] {
  if (!stored.uid) return [];
  const sessionUid = stored.uid;
  return Object.entries(stored.authorizations ?? {})
    .filter(([clientId]) => !(clientId in kept))
    .map(([clientId, authorization]) => ({ sessionUid, clientId, ...(authorization.sid ? { sid: authorization.sid } : {}) }));
}

/** The sign-ins of a user's live sessions, but `keepSession`'s: read before revokeAll removes them, in its transaction. */
export async function liveSignInsOf(manager: EntityManager, userId: string, keepSession: string | undefined, now = Date.now()): Promise<EndedSignIn[]> {
  const rows = (await manager.query(`SELECT uid, payload, expires_at FROM oidc_payloads WHERE model = 'Session' AND account_id = ?`, [userId])) as {
    uid: string | null;
    payload: string;
    expires_at: unknown;
  }[];
  return rows
    .filter((row) => row.uid !== keepSession && (row.expires_at == null || Number(row.expires_at) > now))
    .flatMap((row) => signInsOf(JSON.parse(row.payload) as StoredSignIns));
}
