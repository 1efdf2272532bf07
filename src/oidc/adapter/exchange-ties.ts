import type { DataSource } from 'typeorm';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { statementsOf } from '../../common/database/statements.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { millis } from '../../common/database/column-values.js';

/**
 * Ties between a grant started by token exchange and the grant it was exchanged from (docs/product-rules.md,
 * "OpenID Connect and OAuth", token exchange). An exchanged token is issued to its own grant (its
 * client may differ from the subject's, and oidc-provider checks that a token's grant belongs to its
 * client), and that grant's row records the *root* grant in its `grant_id` column, which a Grant row does
 * not otherwise use. Whatever ends the root grant — refresh-token revocation or reuse, logout, the user's
 * revocation — deletes the tied grants with it, and every place that honours a token checks that its grant
 * still exists (introspection, userinfo, refresh, the API, exchange), so the exchanged tokens die with it.
 */

/** The root of a grant: the grant it was exchanged from, else itself. One level: ties always name a root. */
export async function rootGrantOf(dataSource: DataSource, hasher: SecretHasher, grantId: string): Promise<string> {
  const [row] = await statementsOf(dataSource).rows<{ grant_id: string | null }>("SELECT grant_id FROM oidc_payloads WHERE model = 'Grant' AND id_hash = ?", [
    hasher.hash(grantId),
  ]);
  return row?.grant_id ?? grantId;
}

/** Records that `grantId` (just saved) was exchanged from `rootGrantId`. */
export async function tieGrant(uow: UnitOfWork, hasher: SecretHasher, grantId: string, rootGrantId: string): Promise<void> {
  await uow.write("UPDATE oidc_payloads SET grant_id = ? WHERE model = 'Grant' AND id_hash = ?", [rootGrantId, hasher.hash(grantId)]);
}

/** The statement that deletes the grants tied to any of `rootGrantIds` (see the adapter's revocations). */
export function tiedGrantsDeletion(rootGrantIds: readonly string[]): { sql: string; parameters: string[] } {
  return {
    sql: `DELETE FROM oidc_payloads WHERE model = 'Grant' AND grant_id IN (${rootGrantIds.map(() => '?').join(', ')})`,
    parameters: [...rootGrantIds],
  };
}

/**
 * The users this client holds a live grant of: among them is the one a pairwise `sub` it was given stands for (OIDC
 * Core §8; the `sub` cannot be turned back into a user id, only recomputed). One indexed read by client.
 */
export async function accountsGrantedTo(dataSource: DataSource, clientId: string): Promise<string[]> {
  const rows = await statementsOf(dataSource).rows<{ account_id: string }>(
    "SELECT DISTINCT account_id FROM oidc_payloads WHERE model = 'Grant' AND client_id = ? AND account_id IS NOT NULL AND (expires_at IS NULL OR expires_at > ?)",
    [clientId, Date.now()],
  );
  return rows.map((row) => String(row.account_id));
}

interface StoredSession {
  uid?: string;
  authorizations?: Record<string, { sid?: string; grantId?: string }>;
}

/**
 * The live session an ID token came from: one of the user's sessions whose authorization of the client
 * the token was issued to has the token's `sid` (every ID token carries it: extensions/session-id-claim.ts).
 * None once the user signed out of that client, the session expired, or the user's tokens were revoked
 * (which deletes the user's sessions; a later sign-in has another `sid`).
 */
export async function sessionOfIdToken(
  dataSource: DataSource,
  userId: string,
  clientId: string,
  sid: string,
): Promise<{ uid: string; grantId?: string } | undefined> {
  const rows = await statementsOf(dataSource).rows<{ payload: string; expires_at: unknown }>(
    "SELECT payload, expires_at FROM oidc_payloads WHERE model = 'Session' AND account_id = ?",
    [userId],
  );
  for (const row of rows) {
    const expiresAt = millis(row.expires_at);
    if (expiresAt !== null && expiresAt <= Date.now()) continue;
    const session = JSON.parse(row.payload) as StoredSession;
    const authorization = session.authorizations?.[clientId];
    if (session.uid && authorization?.sid === sid) return { uid: session.uid, grantId: authorization.grantId };
  }
  return undefined;
}
