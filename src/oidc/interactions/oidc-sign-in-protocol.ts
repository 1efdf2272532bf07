import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import type { BoundaryClient } from '../../login/organization-boundary.js';
import type { Interaction, LoginResult, SignInProtocol } from '../../login/sign-in-protocol.js';
import { ProviderHolder } from '../provider/provider.holder.js';
import { clientServing } from '../../agents/agent-organization.js';

/** The login UI's sign-ins as oidc-provider's interactions (its Interaction and Client models). */
@Injectable()
export class OidcSignInProtocol implements SignInProtocol {
  /** Each request's client, by the interaction it loaded (clientOf). */
  private readonly clients = new WeakMap<Interaction, Promise<BoundaryClient | undefined>>();

  constructor(
    private readonly holder: ProviderHolder,
    private readonly dataSource: DataSource,
  ) {}

  interaction(req: Request, res: Response): Promise<Interaction> {
    return this.holder.provider.interactionDetails(req, res);
  }

  /**
   * An agent client of no organization is seen as of its requested resource's organization (docs/agents.md). Found
   * once per request: a page asks for it from its brand, its policy and its identity providers, each with the
   * interaction this request loaded, which is forgotten with the request.
   */
  clientOf(interaction: Interaction): Promise<BoundaryClient | undefined> {
    let found = this.clients.get(interaction);
    if (!found) {
      found = this.findClient(interaction);
      this.clients.set(interaction, found);
    }
    return found;
  }

  private async findClient(interaction: Interaction): Promise<BoundaryClient | undefined> {
    const client = (await this.holder.provider.Client.find(interaction.params.client_id ?? '')) as BoundaryClient | undefined;
    return clientServing(this.dataSource, client, interaction.params.resource);
  }

  /**
   * What provider.interactionFinished does, on the interaction this request already loaded (it would look it up
   * again). Every prompt the login UI answers counts as answered, consent included: the grant the client then holds
   * is decided in one place, loadExistingGrant (provider/interaction-routing.ts), which grants what an administrator's
   * client asks on the user's behalf (docs/product-rules.md, "OpenID Connect and OAuth") and an agent client only what
   * the person allowed (docs/agents.md, "Consent and connected agents"); short of that, the consent prompt follows.
   */
  async complete(interaction: Interaction, login: LoginResult | undefined): Promise<void> {
    interaction.result = { ...(login ? { login } : {}), select_account: {}, create: {}, consent: {} };
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
}
