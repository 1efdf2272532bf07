import type { EntityManager } from 'typeorm';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import type { EventType } from '../../common/events/event-types.js';
import type { SessionEnds } from '../../common/auth/session-ends.js';
import { organizationOfUser } from '../../users/queries/oidc-accounts.js';
import { signInsOf } from '../logout/ended-sign-ins.js';
import { keptAtEndSession, revokeAccessTokensOfEndedSession } from './logout-revocation.js';
import type { SessionAuthorizations } from './logout-revocation.js';

/** The token models a client may revoke at the revocation endpoint. */
const REVOCABLE = new Set(['AccessToken', 'ClientCredentials', 'RefreshToken']);

interface Removal {
  type: EventType;
  payload(stored: StoredPayload, id: string, route: string): Record<string, string>;
}

interface StoredPayload extends SessionAuthorizations {
  accountId?: string;
  uid?: string;
  clientId?: string;
  kind?: string;
}

/**
 * Removals oidc-provider makes that the audit log must show (docs/product-rules.md, "Domain"): a token revoked at the
 * revocation endpoint, a grant revoked (with it every token of the grant: revocation of a refresh
 * token, code or refresh-token reuse, logout), a session ended at end-session (with the access tokens
 * it ends, logout-revocation.ts). The row's deletion and its event commit in one transaction, like
 * every other change. Payloads name kinds and clients,
 * never a token.
 */
export class AuditedRemoval {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly sessionEnds: SessionEnds,
  ) {}

  /** What removing a row of this model in a request of this route records, if anything. */
  removalFor(model: string, route: string | undefined): Removal | undefined {
    if (model === 'Grant') {
      return { type: 'user.token.revoked', payload: (stored, grantId, via) => ({ grantId, clientId: stored.clientId ?? '', reason: via || 'grant' }) };
    }
    if (REVOCABLE.has(model) && route === 'revocation') {
      return { type: 'user.token.revoked', payload: (stored) => ({ tokenKind: stored.kind ?? model, clientId: stored.clientId ?? '', reason: 'revocation' }) };
    }
    if (model === 'Session' && route === 'end_session_confirm') {
      return { type: 'session.terminated', payload: () => ({ reason: 'end_session' }) };
    }
    return undefined;
  }

  /** Deletes the row and records the removal for its user (machine users: the client) in one transaction. */
  remove(removal: Removal, model: string, key: string, id: string, route: string): Promise<void> {
    return this.uow.run(async (manager) => {
      const rows: { payload: string }[] = await manager.query('SELECT payload FROM oidc_payloads WHERE model = ? AND id_hash = ?', [model, key]);
      await manager.query('DELETE FROM oidc_payloads WHERE model = ? AND id_hash = ?', [model, key]);
      if (rows.length === 0) return;
      const stored = JSON.parse(rows[0].payload) as StoredPayload;
      if (model === 'Session' && route === 'end_session_confirm') {
        await revokeAccessTokensOfEndedSession(manager, stored);
        if (stored.accountId && stored.uid) {
          // A client-only logout (no `logout=yes`) keeps the session for the other clients (logout-revocation.ts).
          const signIns = signInsOf(stored, keptAtEndSession());
          await this.sessionEnds.ended(manager, { userId: stored.accountId, sessionUid: stored.uid, signIns });
        }
      }
      await this.record(manager, removal.type, stored.accountId ?? stored.clientId, removal.payload(stored, id, route));
    });
  }

  private async record(manager: EntityManager, type: EventType, userId: string | undefined, payload: Record<string, string>): Promise<void> {
    if (!userId) return;
    const orgId = await organizationOfUser(manager, userId);
    if (orgId === undefined) return;
    await this.events.push(manager, { type, aggregateType: 'user', aggregateId: userId, resourceOwner: orgId, editorUserId: userId, payload });
  }
}
