import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { EventStore } from '../../common/events/event-store.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { BoundaryClient } from '../../login/organization-boundary.js';
import type { ConsentRequest, Interaction, LoginResult, SignInProtocol } from '../../login/sign-in-protocol.js';
import { ApplicationAccess } from '../../users/project-access/application-access.service.js';
import { agentKindOf } from '../../agents/consent/agent-consent-gate.js';
import { consentRequestOf } from '../../agents/consent/consent-request.js';
import { consentCovers, rememberConsent } from '../../agents/consent/agent-consents.js';
import { ProviderHolder } from '../provider/provider.holder.js';
import { clientServing } from '../../agents/agent-organization.js';
import { apiResourceByUri } from '../../users/queries/api-resources.js';

type AgentClient = BoundaryClient & { clientId: string; clientName?: string; portcullis_org_id?: string };

/** The login UI's sign-ins as oidc-provider's interactions (its Interaction, Client and Grant models). */
@Injectable()
export class OidcSignInProtocol implements SignInProtocol {
  constructor(
    private readonly holder: ProviderHolder,
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly access: ApplicationAccess,
  ) {}

  interaction(req: Request, res: Response): Promise<Interaction> {
    return this.holder.provider.interactionDetails(req, res) as Promise<Interaction>;
  }

  /** An agent client of no organization is seen as of its requested resource's organization (docs/agents.md). */
  async clientOf(interaction: Interaction): Promise<BoundaryClient | undefined> {
    const client = (await this.holder.provider.Client.find(interaction.params.client_id ?? '')) as BoundaryClient | undefined;
    return clientServing(this.dataSource, client, interaction.params.resource);
  }

  /**
   * What provider.interactionFinished does, on the interaction this request already loaded (it would look it up
   * again). Every custom prompt counts as answered, and consent is given on the user's behalf to clients registered
   * by this instance's administrators (docs/product-rules.md, "OpenID Connect and OAuth"); an agent client's grant
   * comes only from the person's own consent (loadExistingGrant, docs/agents.md "Consent and connected agents").
   */
  async complete(interaction: Interaction, login: LoginResult | undefined): Promise<void> {
    const accountId = login?.accountId ?? interaction.session?.accountId;
    const agent = agentKindOf(await this.clientOf(interaction));
    const consented = accountId && (!agent || (await this.remembered(interaction, accountId)));
    const grantId = consented ? await this.grantFor(interaction, accountId) : undefined;
    interaction.result = { ...(login ? { login } : {}), select_account: {}, create: {}, ...(grantId ? { consent: { grantId } } : {}) };
    await interaction.persist();
  }

  async consentRequest(interaction: Interaction): Promise<ConsentRequest | undefined> {
    const client = (await this.clientOf(interaction)) as AgentClient | undefined;
    const kind = agentKindOf(client);
    const accountId = interaction.session?.accountId;
    if (!client || !kind || !accountId || (await this.remembered(interaction, accountId))) return undefined;
    return consentRequestOf(this.dataSource, this.access, { client, kind, accountId, params: interaction.params, device: Boolean(interaction.deviceCode) });
  }

  async allowConsent(interaction: Interaction): Promise<void> {
    const client = (await this.clientOf(interaction)) as AgentClient;
    const userId = interaction.session?.accountId ?? '';
    const orgId = client.portcullis_org_id ?? (await this.resourceOrganization(interaction));
    await this.uow.run((manager) =>
      rememberConsent(manager, this.events, {
        orgId,
        userId,
        clientId: client.clientId,
        clientName: client.clientName ?? client.clientId,
        resource: interaction.params.resource ?? '',
        scopes: (interaction.params.scope ?? '').split(' ').filter(Boolean),
      }),
    );
    await this.complete(interaction, undefined);
  }

  /**
   * oidc-provider turns this result into the error at the interaction's return URL. For a device flow that denies
   * the device code, so the device hears access_denied at its next poll (RFC 8628 §3.5) instead of polling until
   * the code expires, and the user sees the device's denied page (src/oidc/device/device-flow.ts).
   */
  async deny(interaction: Interaction, description: string): Promise<void> {
    interaction.result = { error: 'access_denied', error_description: description };
    await interaction.persist();
  }

  /** An agent client may belong to no organization: its consent then belongs to the resource's (docs/agents.md). */
  private async resourceOrganization(interaction: Interaction): Promise<string> {
    const resource = interaction.params.resource;
    return (resource ? (await apiResourceByUri(this.dataSource, resource))?.org_id : undefined) ?? '';
  }

  /** Whether the person already allowed the agent client what this interaction asks. */
  private remembered(interaction: Interaction, userId: string): Promise<boolean> {
    return consentCovers(this.uow.manager, {
      userId,
      clientId: interaction.params.client_id ?? '',
      resource: interaction.params.resource ?? '',
      scopes: (interaction.params.scope ?? '').split(' ').filter(Boolean),
    });
  }

  /** The grant of what the client requested (the same rule as loadExistingGrant in provider.factory.ts). */
  private async grantFor(interaction: Interaction, accountId: string): Promise<string> {
    const { Grant } = this.holder.provider;
    const sameAccount = interaction.session?.accountId === accountId;
    const existing = sameAccount && interaction.grantId ? await Grant.find(interaction.grantId) : undefined;
    const grant = existing ?? new Grant({ clientId: interaction.params.client_id, accountId });
    grant.addOIDCScope(interaction.params.scope ?? 'openid');
    return grant.save();
  }
}
