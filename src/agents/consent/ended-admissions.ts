import { In } from 'typeorm';
import type { EntityManager } from 'typeorm';
import type { EventStore } from '../../common/events/event-store.js';
import { hasGrantIn } from '../../users/project-access/grant.queries.js';
import { apiResourceIn } from '../../users/queries/api-resources.js';
import type { EndClientTokens } from '../provider-port.js';
import { AgentConsentEntity } from './agent-consent.entity.js';

/** How many people's consents one statement reads (a group's members may be many). */
const CHUNK = 500;

/**
 * A removed grant ends what it allowed (docs/agents.md, "Consent and connected agents"): after a grant, one of its
 * roles or a group membership that carried it went, in that change's transaction, every consent the people gave an
 * agent client for a resource whose API application (`access: "granted"`) no longer admits them is forgotten, and with
 * it every grant, code and token of that client for the person, as a Revoke does (agent-consents.ts, endConsents):
 * rows shared by every process, so the refresh token, the access token and introspection fail at once everywhere, and
 * the next authorization asks consent again. Each client so ended records `user.agent.revoked` with reason `access`.
 */
export async function endAgentsNoLongerAdmitted(
  manager: EntityManager,
  events: EventStore,
  userIds: readonly string[],
  editorUserId: string | null,
  endTokens: EndClientTokens,
): Promise<void> {
  const people = [...new Set(userIds)];
  for (let i = 0; i < people.length; i += CHUNK) {
    const consents = await manager.find(AgentConsentEntity, { where: { userId: In(people.slice(i, i + CHUNK)) }, order: { id: 'ASC' } });
    const ended = await refusedConsents(manager, consents);
    for (const rows of ended.values()) {
      const { userId, clientId, orgId } = rows[0];
      await manager.delete(AgentConsentEntity, { id: In(rows.map((r) => r.id)) });
      // oidc-provider's grant of a client spans its resources: the client's other tokens for the person go too.
      await endTokens(manager, userId, clientId);
      await events.push(manager, {
        type: 'user.agent.revoked',
        aggregateType: 'user',
        aggregateId: userId,
        resourceOwner: orgId,
        editorUserId,
        payload: { clientId, reason: 'access', resources: rows.map((r) => r.resource) },
      });
    }
  }
}

/** The consents whose resource's API application no longer admits their person, by person and client. */
async function refusedConsents(manager: EntityManager, consents: AgentConsentEntity[]): Promise<Map<string, AgentConsentEntity[]>> {
  const refused = new Map<string, AgentConsentEntity[]>();
  const admitted = new Map<string, boolean>();
  for (const consent of consents) {
    const api = consent.resource ? await apiResourceIn(manager, consent.resource) : undefined;
    if (!api || api.access !== 'granted') continue;
    const decision = `${consent.userId} ${api.project_id}`;
    let enters = admitted.get(decision);
    if (enters === undefined) {
      enters = await hasGrantIn(manager, api.project_id, consent.userId);
      admitted.set(decision, enters);
    }
    if (enters) continue;
    const key = `${consent.userId} ${consent.clientId}`;
    refused.set(key, [...(refused.get(key) ?? []), consent]);
  }
  return refused;
}
