import type { EntityManager } from 'typeorm';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import { removeDynamicClient } from '../../users/queries/dynamic-clients.js';
import { revokeIssuedTo } from '../adapter/client-payloads.js';

/**
 * Removes a client that registered itself (RFC 7592 §2.3 delete, or a lapse after 30 unused days) with everything
 * issued to it (grants, codes, tokens, its registration access token: the `client_id` column of oidc_payloads), and
 * the consents people gave it, and its `agent.client.removed` event, in one transaction.
 */
export function removeAgentClient(uow: UnitOfWork, events: EventStore, clientId: string, reason: 'deleted' | 'lapsed'): Promise<boolean> {
  return removeDynamicClient(uow, events, { clientId, reason }, (manager: EntityManager) => revokeIssuedTo(manager, clientId));
}
