import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import type { ConsentProtocol, ConsentRequest } from '../../login/consent-protocol.js';
import type { BoundaryClient } from '../../login/organization-boundary.js';
import type { Interaction } from '../../login/sign-in-protocol.js';
import { ApplicationAccess } from '../../users/project-access/application-access.service.js';
import { apiResourceByUri } from '../../users/queries/api-resources.js';
import { agentKindOf } from './agent-consent-gate.js';
import { consentCovers, rememberConsent } from './agent-consents.js';
import { consentRequestOf } from './consent-request.js';

type AgentClient = BoundaryClient & { clientId: string; clientName?: string; portcullis_org_id?: string };

/** The consent step of an agent client's authorization (docs/agents.md, "Consent and connected agents"). */
@Injectable()
export class AgentConsentProtocol implements ConsentProtocol {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly access: ApplicationAccess,
  ) {}

  async asked(interaction: Interaction, found: BoundaryClient | undefined): Promise<ConsentRequest | undefined> {
    const client = found as AgentClient | undefined;
    const kind = agentKindOf(client);
    const accountId = interaction.session?.accountId;
    if (!client || !kind || !accountId || (await consentRemembered(this.uow, interaction, accountId))) return undefined;
    return consentRequestOf(this.dataSource, this.access, { client, kind, accountId, params: interaction.params, device: Boolean(interaction.deviceCode) });
  }

  async allow(interaction: Interaction, found: BoundaryClient): Promise<void> {
    const client = found as AgentClient;
    const orgId = client.portcullis_org_id ?? (await this.resourceOrganization(interaction));
    await this.uow.run((manager) =>
      rememberConsent(manager, this.events, {
        orgId,
        userId: interaction.session?.accountId ?? '',
        clientId: client.clientId,
        clientName: client.clientName ?? client.clientId,
        resource: interaction.params.resource ?? '',
        scopes: (interaction.params.scope ?? '').split(' ').filter(Boolean),
      }),
    );
  }

  /** An agent client may belong to no organization: its consent then belongs to the resource's (docs/agents.md). */
  private async resourceOrganization(interaction: Interaction): Promise<string> {
    const resource = interaction.params.resource;
    return (resource ? (await apiResourceByUri(this.dataSource, resource))?.org_id : undefined) ?? '';
  }
}

/** Whether the person already allowed the agent client what this interaction asks. */
export function consentRemembered(uow: UnitOfWork, interaction: Interaction, userId: string): Promise<boolean> {
  return consentCovers(uow.manager, {
    userId,
    clientId: interaction.params.client_id ?? '',
    resource: interaction.params.resource ?? '',
    scopes: (interaction.params.scope ?? '').split(' ').filter(Boolean),
  });
}
