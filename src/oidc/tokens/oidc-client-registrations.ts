import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import type { ClientRegistrations } from '../../common/auth/client-registrations.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { forgetClient } from '../adapter/client.store.js';
import { changedRows } from '../../common/database/changed-rows.js';

/** Deletes this many rows per statement, so no single statement holds its locks for long. */
const CHUNK = 1000;

/**
 * CLIENT_REGISTRATIONS for the users domain. Every stored object oidc-provider issues to a client (grant,
 * code, access and refresh token, pushed request) carries it in the indexed `client_id` column
 * (oidc-payload.adapter.ts); sessions name their clients only as keys of `authorizations`, whose grants
 * go here, so a session keeps nothing the removed client could use (its id is never reused). Deleted by
 * index in statements of CHUNK rows, each in a transaction of its own before the removal and the rest in the
 * removal's transaction: no payload is read.
 */
@Injectable()
export class OidcClientRegistrations implements ClientRegistrations {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
  ) {}

  async revokeIssuedInBatches(clientId: string): Promise<void> {
    while ((await this.uow.run((manager) => deleteIssued(manager, clientId))) === CHUNK);
  }

  async revokeIssuedTo(manager: EntityManager, clientId: string): Promise<void> {
    while ((await deleteIssued(manager, clientId)) === CHUNK);
  }

  forget(clientId: string): void {
    forgetClient(this.dataSource, clientId);
  }
}

/** Deletes up to CHUNK rows issued to the client in the manager's transaction; how many it deleted. */
function deleteIssued(manager: EntityManager, clientId: string): Promise<number> {
  const sql =
    manager.connection.options.type === 'mysql'
      ? 'DELETE FROM oidc_payloads WHERE client_id = ? LIMIT ?'
      : 'DELETE FROM oidc_payloads WHERE rowid IN (SELECT rowid FROM oidc_payloads WHERE client_id = ? LIMIT ?)';
  return changedRows(manager, sql, [clientId, CHUNK]);
}
