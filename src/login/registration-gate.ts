import { Inject, Injectable } from '@nestjs/common';
import type { Interaction } from './sign-in-protocol.js';
import { SIGN_IN_PROTOCOL } from './sign-in-protocol.js';
import type { SignInProtocol } from './sign-in-protocol.js';
import { LoginPolicies } from './login-policies.js';

/** Whether a client's organization offers self-registration and passkeys, or passkeys only (its login policy). */
@Injectable()
export class RegistrationGate {
  constructor(
    @Inject(SIGN_IN_PROTOCOL) private readonly protocol: SignInProtocol,
    private readonly policies: LoginPolicies,
  ) {}

  /** The organization of the interaction's client, and whether its login policy offers registration and passkeys. */
  async offered(interaction: Interaction): Promise<{ orgId?: string; allowed: boolean; passkeys: boolean; passkeysOnly: boolean }> {
    const orgId = (await this.protocol.clientOf(interaction))?.portcullis_org_id;
    if (!orgId) return { allowed: false, passkeys: false, passkeysOnly: false };
    const policy = await this.policies.of(interaction, orgId);
    // The registration form asks for a password: a passkeys-only organization takes its people by invitation (docs/passwordless.md).
    const passkeysOnly = policy.passwordless === 'required';
    return { orgId, allowed: policy.allowRegistration && !passkeysOnly, passkeys: policy.passkeys, passkeysOnly };
  }
}
