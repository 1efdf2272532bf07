import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { BoundaryClient } from '../../login/organization-boundary.js';
import type { Interaction, LoginResult, SignInProtocol } from '../../login/sign-in-protocol.js';
import { agentKindOf } from '../../agents/consent/agent-consent-gate.js';
import { consentRemembered } from '../../agents/consent/agent-consent-protocol.js';
import { ProviderHolder } from '../provider/provider.holder.js';
import { clientServing } from '../../agents/agent-organization.js';

/** The login UI's sign-ins as oidc-provider's interactions (its Interaction, Client and Grant models). */
@Injectable()
export class OidcSignInProtocol implements SignInProtocol {
  constructor(
    private readonly holder: ProviderHolder,
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
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
  async complete(interaction: Interaction, login: LoginResult | undefined, client?: BoundaryClient): Promise<void> {
    const accountId = login?.accountId ?? interaction.session?.accountId;
    const agent = agentKindOf(client ?? (await this.clientOf(interaction)));
    const consented = accountId && (!agent || (await consentRemembered(this.uow, interaction, accountId)));
    const grantId = consented ? await this.grantFor(interaction, accountId) : undefined;
    interaction.result = { ...(login ? { login } : {}), select_account: {}, create: {}, ...(grantId ? { consent: { grantId } } : {}) };
    await interaction.persist();
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
