import Provider from 'oidc-provider';
import type { EntityManager } from 'typeorm';
import { tiedGrantsDeletion } from './exchange-ties.js';

/** What a stored Session payload says about the clients it signed in to. */
export interface SessionAuthorizations {
  authorizations?: Record<string, { grantId?: string; sid?: string }>;
}

/**
 * Models of a grant that logout ends even when the grant outlives it: access tokens (and codes not yet
 * exchanged for one). The refresh token and the grant stay.
 */
const ENDED_BY_LOGOUT = ['AccessToken', 'AuthorizationCode'];

/**
 * Logout revokes the session's access tokens (SECURITY.md, "Logout and revocation"). oidc-provider
 * revokes a client's whole grant at end-session, except a grant with `offline_access` (OpenID Connect
 * Core §11: its refresh token is meant to outlive the session), whose access tokens it would leave
 * active. Called in the transaction that removes the
 * ended session's row at end-session confirmation: the access tokens and codes of every grant the
 * session ends go with it — all of them when the user signs out, else (a client-only logout) those of
 * the clients the session no longer holds.
 */
export async function revokeAccessTokensOfEndedSession(manager: EntityManager, ended: SessionAuthorizations): Promise<void> {
  const kept = keptAtEndSession();
  const grantIds = Object.entries(ended.authorizations ?? {})
    .filter(([clientId, authorization]) => authorization.grantId && !(clientId in kept))
    .map(([, authorization]) => authorization.grantId!);
  if (grantIds.length === 0) return;
  const marks = grantIds.map(() => '?').join(', ');
  await manager.query(`DELETE FROM oidc_payloads WHERE model IN (${ENDED_BY_LOGOUT.map(() => '?').join(', ')}) AND grant_id IN (${marks})`, [
    ...ENDED_BY_LOGOUT,
    ...grantIds,
  ]);
  // Tokens exchanged from the session's grants end with the session (exchange-ties.ts).
  const tied = tiedGrantsDeletion(grantIds);
  await manager.query(tied.sql, tied.parameters);
}

/**
 * The clients whose sign-ins outlive this end-session request: none when the user signs out (`logout=yes`), else (a
 * client-only logout) those the session still holds.
 */
export function keptAtEndSession(): Record<string, unknown> {
  const ctx = Provider.ctx;
  if (ctx?.oidc?.params?.logout) return {};
  return ctx?.oidc?.session?.authorizations ?? {};
}
