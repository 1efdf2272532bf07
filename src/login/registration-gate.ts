import { Injectable } from '@nestjs/common';
import { ProviderHolder } from '../oidc/provider/provider.holder.js';
import type { Interaction } from './login-interactions.js';
import { LoginPolicies } from './login-policies.js';

/** Whether a client's organization offers self-registration and passkeys (its login policy). */
@Injectable()
export class RegistrationGate {
  constructor(
    private readonly holder: ProviderHolder,
    private readonly policies: LoginPolicies,
  ) {}

  /** The organization of the interaction's client, and whether its login policy offers registration and passkeys. */
  async offered(interaction: Interaction): Promise<{ orgId?: string; allowed: boolean; passkeys: boolean }> {
    const client = await this.holder.provider.Client.find(interaction.params.client_id ?? '');
    const orgId = client?.portcullis_org_id as string | undefined;
    if (!orgId) return { allowed: false, passkeys: false };
    const policy = await this.policies.of(interaction, orgId);
    return { orgId, allowed: policy.allowRegistration, passkeys: policy.passkeys };
  }
}
