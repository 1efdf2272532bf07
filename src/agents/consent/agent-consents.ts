import type { EntityManager } from 'typeorm';
import type { Page, Paged } from '../../common/database/page.js';
import { personOfOrganization, personOfOrganizationNamed } from '../../users/queries/org-people.js';
import { foldedColumn, likeContains } from '../../common/database/name-search.js';
import type { EventStore } from '../../common/events/event-store.js';
import type { EndClientTokens } from '../provider-port.js';
import { AgentConsentEntity } from './agent-consent.entity.js';

/** The person's connected agents, one entry per client and resource, newest change first. */
export function consentsOf(manager: EntityManager, userId: string): Promise<AgentConsentEntity[]> {
  return manager.find(AgentConsentEntity, { where: { userId }, order: { changedAt: 'DESC', id: 'ASC' } });
}

/**
 * The consents of the organization's people (by the person's organization, not the consent's, which names the
 * client's or the resource's), newest change first: the administrators' list (docs/agents.md, "Consent and connected
 * agents"). With `query`, those whose client name, client id or resource contains it, or whose person's user name does.
 */
export async function consentsOfOrgPeople(manager: EntityManager, orgId: string, page: Page, query?: string): Promise<Paged<AgentConsentEntity>> {
  const builder = manager.createQueryBuilder(AgentConsentEntity, 'consent').where(personOfOrganization('consent.userId', 'orgId'), { orgId });
  if (query) {
    const texts = ['consent.client_name', 'consent.client_id', 'consent.resource'].map((column) => `${foldedColumn(manager, column)} LIKE :pattern ESCAPE '!'`);
    const person = personOfOrganizationNamed(manager, 'consent.user_id', 'orgId', 'pattern');
    builder.andWhere(`(${[...texts, person].join(' OR ')})`, { pattern: likeContains(query) });
  }
  const [items, total] = await builder
    .orderBy('consent.changedAt', 'DESC')
    .addOrderBy('consent.id', 'ASC')
    .skip(page.offset)
    .take(page.limit)
    .getManyAndCount();
  return { items, total };
}

/**
 * Forgets the consents given to a client that is removed (a registration deleted or lapsed, an application removed):
 * no list shows an agent that no longer exists, and a client registered later is asked anew.
 */
export async function forgetConsentsTo(manager: EntityManager, clientId: string): Promise<void> {
  await manager.delete(AgentConsentEntity, { clientId });
}

/** Forgets the consents of a person who is removed, with the person's other rows. */
export async function forgetConsentsOf(manager: EntityManager, userId: string): Promise<void> {
  await manager.delete(AgentConsentEntity, { userId });
}

/**
 * Ends every consent of the person to this client and, at once, every grant, code and token the client holds for
 * the person (docs/agents.md, "Consent and connected agents"), as the user's revocation ends them for every client
 * (`endTokens`, the provider's): a refresh token is refused at its next use, a token exchanged from the client's grants too.
 * No back-channel logout is owed: it goes to applications registered for it, and an agent client is none (a
 * dynamic registration may not name a `backchannel_logout_uri`, registration-metadata.ts). Returns whether there was
 * anything to end.
 */
export async function endConsents(
  manager: EntityManager,
  events: EventStore,
  target: { orgId: string; userId: string; clientId: string },
  editorUserId: string | null,
  endTokens: EndClientTokens,
): Promise<boolean> {
  const removed = await manager.delete(AgentConsentEntity, { userId: target.userId, clientId: target.clientId });
  await endTokens(manager, target.userId, target.clientId);
  if (!removed.affected) return false;
  await events.push(manager, {
    type: 'user.agent.revoked',
    aggregateType: 'user',
    aggregateId: target.userId,
    resourceOwner: target.orgId,
    editorUserId,
    payload: { clientId: target.clientId },
  });
  return true;
}
