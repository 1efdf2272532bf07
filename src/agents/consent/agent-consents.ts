import type { EntityManager } from 'typeorm';
import type { Page, Paged } from '../../common/database/page.js';
import { newId } from '../../common/ids.js';
import { personOfOrganization } from '../../users/queries/org-people.js';
import type { EventStore } from '../../common/events/event-store.js';
import type { EndClientTokens } from '../provider-port.js';
import { AgentConsentEntity } from './agent-consent.entity.js';

/** One consent request: who allows which client what at which resource ('' for none). */
export interface ConsentKey {
  orgId: string;
  userId: string;
  clientId: string;
  clientName: string;
  resource: string;
  scopes: string[];
}

/**
 * Whether the person already allowed this client these scopes (or more) at this resource: then nothing is asked
 * again; one scope more asks again (docs/agents.md, "Consent and connected agents").
 */
export async function consentCovers(manager: EntityManager, key: Omit<ConsentKey, 'orgId' | 'clientName'>): Promise<boolean> {
  const row = await manager.findOneBy(AgentConsentEntity, { userId: key.userId, clientId: key.clientId, resource: key.resource });
  if (!row) return false;
  const allowed = new Set(row.scopes);
  return key.scopes.every((scope) => allowed.has(scope));
}

/** Records an allowed consent (the scopes added to those allowed before) and its event, in the caller's transaction. */
export async function rememberConsent(manager: EntityManager, events: EventStore, key: ConsentKey): Promise<void> {
  const now = new Date();
  const row = await manager.findOneBy(AgentConsentEntity, { userId: key.userId, clientId: key.clientId, resource: key.resource });
  const scopes = [...new Set([...(row?.scopes ?? []), ...key.scopes])].sort();
  if (row) await manager.update(AgentConsentEntity, { id: row.id }, { scopes, clientName: key.clientName, changedAt: now });
  else await manager.insert(AgentConsentEntity, { id: newId(), ...key, scopes, createdAt: now, changedAt: now });
  await events.push(manager, {
    type: 'user.agent.connected',
    aggregateType: 'user',
    aggregateId: key.userId,
    resourceOwner: key.orgId,
    editorUserId: key.userId,
    payload: { clientId: key.clientId, resource: key.resource, scopes },
  });
}

/** The person's connected agents, one entry per client and resource, newest change first. */
export function consentsOf(manager: EntityManager, userId: string): Promise<AgentConsentEntity[]> {
  return manager.find(AgentConsentEntity, { where: { userId }, order: { changedAt: 'DESC', id: 'ASC' } });
}

/**
 * The consents of the organization's people (by the person's organization, not the consent's, which names the
 * client's or the resource's), newest change first: the administrators' list (docs/agents.md, "Consent and connected
 * agents").
 */
export async function consentsOfOrgPeople(manager: EntityManager, orgId: string, page: Page): Promise<Paged<AgentConsentEntity>> {
  const [items, total] = await manager
    .createQueryBuilder(AgentConsentEntity, 'consent')
    .where(personOfOrganization('consent.userId', 'orgId'), { orgId })
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
