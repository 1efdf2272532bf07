import type { LoginPolicyService } from '../../users/login-policy.service.js';
import type { ProviderHolder } from '../provider/provider.holder.js';

/** Whether a client's organization offers self-registration and passkeys (its login policy). */
export class RegistrationGate {
  constructor(
    private readonly holder: ProviderHolder,
    private readonly policies: LoginPolicyService,
  ) {}

  /** The organization of the client, and whether its login policy offers registration and passkeys (read on use). */
  async offered(clientId: string): Promise<{ orgId?: string; allowed: boolean; passkeys: boolean }> {
    const client = await this.holder.provider.Client.find(clientId);
    const orgId = client?.portcullis_org_id as string | undefined;
    if (!orgId) return { allowed: false, passkeys: false };
    const policy = await this.policies.get(orgId);
    return { orgId, allowed: policy.allowRegistration, passkeys: policy.passkeys };
  }
}
