import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { json } from '../../common/database/column-values.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { newId } from '../../common/ids.js';
import type { ConsentAnswer, ConsentProtocol, ConsentRequest } from '../../login/consent-protocol.js';
import type { BoundaryClient } from '../../login/organization-boundary.js';
import type { Interaction } from '../../login/sign-in-protocol.js';
import type { ResourceScope } from '../../users/entities/application.entity.js';
import { apiResourceAdmitting } from '../../users/project-access/grant.queries.js';
import type { ApiResourceRow } from '../../users/queries/api-resources.js';
import { clientKindOf, isSelfRegisteredKind } from '../../login/client-kind.js';
import type { ClientKind } from '../../login/client-kind.js';
import { AgentConsentEntity } from './agent-consent.entity.js';

type AgentClient = BoundaryClient & { clientId: string; clientName?: string; portcullis_org_id?: string };

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

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
 * The consent step of an agent client's authorization (docs/agents.md, "Consent and connected agents"): what the
 * client asks, whether the person allowed it before, whether the resource admits the person, and the person's answer
 * remembered. The people's connected agents, listed and ended, are agent-consents.ts.
 */
@Injectable()
export class AgentConsentProtocol implements ConsentProtocol {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  async asked(interaction: Interaction, found: BoundaryClient | undefined): Promise<ConsentRequest | undefined> {
    const client = found as AgentClient | undefined;
    const kind = clientKindOf(client);
    const accountId = interaction.session?.accountId;
    if (!client || !isSelfRegisteredKind(kind) || !accountId || (await consentCovers(this.uow.manager, consentAsked(interaction, accountId)))) return undefined;
    return this.requestOf({ client, kind, accountId, params: interaction.params, device: Boolean(interaction.deviceCode) });
  }

  /** Checked as the page was (asked): the person may have lost the resource's grant since it was shown. */
  async allow(interaction: Interaction, found: BoundaryClient | undefined): Promise<ConsentAnswer> {
    const client = found as AgentClient | undefined;
    const accountId = interaction.session?.accountId;
    const key = consentAsked(interaction, accountId ?? '');
    if (!client || !accountId || !isSelfRegisteredKind(clientKindOf(client)) || (await consentCovers(this.uow.manager, key))) return 'not-asked';
    const { api, refused } = await this.resourceAsked(interaction.params, accountId);
    if (refused) return 'refused';
    // An agent client may belong to no organization: its consent then belongs to the resource's (docs/agents.md).
    const orgId = client.portcullis_org_id ?? api?.org_id ?? '';
    await this.uow.run((manager) => rememberConsent(manager, this.events, { ...key, orgId, clientName: client.clientName ?? client.clientId }));
    return 'allowed';
  }

  /**
   * What the consent page shows: who asks (the host of a metadata document's client_id, since that is what the person
   * can check; a dynamic registration is nobody's word), where the answer goes, for which resource and each scope's
   * description as the resource's API application defines it.
   */
  private async requestOf(asked: Asked): Promise<ConsentRequest> {
    const { client, kind, params } = asked;
    const redirect = safeUrl(params.redirect_uri);
    const { api, refused } = await this.resourceAsked(params, asked.accountId);
    const described = new Map(json<ResourceScope[]>(api?.resource_scopes, []).map((s) => [s.name, s.description]));
    const scopes = (params.scope ?? '')
      .split(' ')
      .filter(Boolean)
      .map((name) => ({ name, description: described.get(name) }));
    return {
      clientName: client.clientName ?? client.clientId,
      // The hostname the document was fetched from is what was proven; a port says nothing a person can check.
      ...(kind === 'metadata-document' ? { clientHost: safeUrl(client.clientId)?.hostname ?? client.clientId } : {}),
      redirectHost: redirect?.host ?? '',
      loopback: redirect ? LOOPBACK_HOSTS.has(redirect.hostname) : false,
      ...(asked.device ? { device: true } : {}),
      ...(api ? { resourceName: api.name } : {}),
      scopes,
      refused,
    };
  }

  /**
   * The API application whose resource the request names (RFC 8707), if it names one of this instance's, and whether
   * it refuses the person: it decides who may connect an agent (docs/product-rules.md, "Application access").
   */
  private async resourceAsked(params: { resource?: string }, accountId: string): Promise<{ api?: ApiResourceRow; refused: boolean }> {
    const api = params.resource ? await apiResourceAdmitting(this.uow.manager, params.resource, accountId) : undefined;
    return { api, refused: api ? !api.admitted : false };
  }
}

interface Asked {
  client: AgentClient;
  kind: ClientKind;
  accountId: string;
  params: Record<string, string | undefined>;
  /** The interaction approves a device code (RFC 8628 §3.3): it has no redirect URI. */
  device?: boolean;
}

/** What the interaction asks the person to allow: its client, its resource ('' for none) and its scopes. */
function consentAsked(interaction: Interaction, userId: string): Omit<ConsentKey, 'orgId' | 'clientName'> {
  return {
    userId,
    clientId: interaction.params.client_id ?? '',
    resource: interaction.params.resource ?? '',
    scopes: (interaction.params.scope ?? '').split(' ').filter(Boolean),
  };
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
async function rememberConsent(manager: EntityManager, events: EventStore, key: ConsentKey): Promise<void> {
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

function safeUrl(value: string | undefined): URL | undefined {
  try {
    return value ? new URL(value) : undefined;
  } catch {
    return undefined;
  }
}
