import type { EntityManager } from 'typeorm';
import { changedRows } from '../../common/database/changed-rows.js';
import { forgetConsentsTo } from '../../agents/consent/agent-consents.js';

/** Deletes this many rows per statement, so no single statement holds its locks for long. */
export const CHUNK = 1000;

/**
 * Deletes every stored object issued to the client, and the consents people gave it, in the manager's transaction:
 * the client is being removed.
 */
export async function revokeIssuedTo(manager: EntityManager, clientId: string): Promise<void> {
  while ((await deleteIssued(manager, clientId)) === CHUNK);
  await forgetConsentsTo(manager, clientId);
}

/** Deletes up to CHUNK rows issued to the client in the manager's transaction; how many it deleted. */
export function deleteIssued(manager: EntityManager, clientId: string): Promise<number> {
  const sql =
    manager.connection.options.type === 'mysql'
      ? 'DELETE FROM oidc_payloads WHERE client_id = ? LIMIT ?'
      : 'DELETE FROM oidc_payloads WHERE rowid IN (SELECT rowid FROM oidc_payloads WHERE client_id = ? LIMIT ?)';
  return changedRows(manager, sql, [clientId, CHUNK]);
}
