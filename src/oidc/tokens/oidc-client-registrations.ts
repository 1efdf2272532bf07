import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import type { ClientRegistrations } from '../../common/auth/client-registrations.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { forgetClient } from '../adapter/client.store.js';
import { CHUNK, deleteIssued, revokeIssuedTo } from '../adapter/client-payloads.js';

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

  revokeIssuedTo(manager: EntityManager, clientId: string): Promise<void> {
    return revokeIssuedTo(manager, clientId);
  }

  forget(clientId: string): void {
    forgetClient(this.dataSource, clientId);
  }
}
