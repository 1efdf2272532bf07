import type { EntityManager } from 'typeorm';
import type { EndClientTokens } from '../../agents/provider-port.js';
import { tiedGrantsDeletion } from './exchange-ties.js';

/** Which of a user's stored OIDC objects end: those of one client, or every one but a kept session (its public uid). */
export type EndedPayloads = { clientId: string } | { keepSession?: string };

/**
 * Deletes a user's stored OIDC objects in the caller's transaction, with the grants exchanged from their grants
 * (exchange-ties.ts), whose tokens are then refused wherever they are used. JWT access tokens are stored too
 * (jwt-access-tokens.ts), so they stop being honoured at once like opaque ones.
 * - Of one client: its grants and every code, access and refresh token of them; the user's sessions stay (a Session
 *   row names no client), and the client's next authorization starts a grant anew.
 * - Otherwise: sessions, grants, codes and tokens of every client, but the kept session's row.
 */
export async function deleteUserPayloads(manager: EntityManager, userId: string, ended: EndedPayloads = {}): Promise<void> {
  const ofClient = 'clientId' in ended;
  const where = ofClient ? 'account_id = ? AND client_id = ?' : 'account_id = ?';
  const parameters = ofClient ? [userId, ended.clientId] : [userId];
  const roots: { grant_id: string }[] = await manager.query(`SELECT DISTINCT grant_id FROM oidc_payloads WHERE ${where} AND grant_id IS NOT NULL`, parameters);
  if (roots.length > 0) {
    const tied = tiedGrantsDeletion(roots.map((row) => row.grant_id));
    await manager.query(tied.sql, tied.parameters);
  }
  const keepSession = ofClient ? undefined : ended.keepSession;
  if (keepSession === undefined) await manager.query(`DELETE FROM oidc_payloads WHERE ${where}`, parameters);
  else await manager.query(`DELETE FROM oidc_payloads WHERE ${where} AND NOT (model = 'Session' AND uid = ?)`, [...parameters, keepSession]);
}

/** What the agents feature ends when a consent goes: the client's objects for the person (src/agents/provider-port.ts). */
export const endClientTokens: EndClientTokens = (manager, userId, clientId) => deleteUserPayloads(manager, userId, { clientId });
