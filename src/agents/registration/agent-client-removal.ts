import type { EntityManager } from 'typeorm';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import { removeDynamicClient } from './dynamic-clients.queries.js';

/**
 * Removes a client that registered itself (RFC 7592 §2.3 delete, or a lapse after 30 unused days) with everything
 * issued to it (`revokeIssued`, the provider's: grants, codes, tokens, its registration access token, and the consents
 * people gave it), and its `agent.client.removed` event, in one transaction.
 */
export function removeAgentClient(
  uow: UnitOfWork,
  events: EventStore,
  clientId: string,
  reason: 'deleted' | 'lapsed',
  revokeIssued: (manager: EntityManager) => Promise<void>,
): Promise<boolean> {
  return removeDynamicClient(uow, events, { clientId, reason }, revokeIssued);
}
