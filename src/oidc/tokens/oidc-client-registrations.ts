import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import type { ClientRegistrations } from '../../common/auth/client-registrations.js';
import { forgetClient } from '../adapter/client.store.js';

/** Deletes by primary key this many rows per statement. */
const CHUNK = 500;

/**
 * CLIENT_REGISTRATIONS for the users domain. Every stored object oidc-provider issues to a client (grant,
 * code, access and refresh token, pushed request) names it as `clientId` in its payload; sessions name
 * their clients only as keys of `authorizations`, whose grants go here, so a session keeps nothing the
 * removed client could use (its id is never reused). The look-up reads the payloads without an index: it
 * runs only when an application is removed, and a plain read takes no row locks (InnoDB consistent read),
 * so sign-ins of other clients are not held up; the deletions then go by primary key.
 */
@Injectable()
export class OidcClientRegistrations implements ClientRegistrations {
  constructor(private readonly dataSource: DataSource) {}

  async revokeIssuedTo(manager: EntityManager, clientId: string): Promise<void> {
    const field = manager.connection.options.type === 'mysql' ? "JSON_VALUE(payload, '$.clientId')" : "json_extract(payload, '$.clientId')";
    const rows: { model: string; id_hash: string }[] = await manager.query(`SELECT model, id_hash FROM oidc_payloads WHERE ${field} = ?`, [clientId]);
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      await manager.query(
        `DELETE FROM oidc_payloads WHERE ${chunk.map(() => '(model = ? AND id_hash = ?)').join(' OR ')}`,
        chunk.flatMap((r) => [r.model, r.id_hash]),
      );
    }
  }

  forget(clientId: string): void {
    forgetClient(this.dataSource, clientId);
  }
}
