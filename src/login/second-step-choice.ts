import { Injectable } from '@nestjs/common';
import { FactorsService } from '../users/factors/factors.service.js';
import { ACR_MFA, authenticationOf, isPasskeyMethod } from './authentication-methods.js';
import type { Interaction } from './login-interactions.js';
import { LoginPolicies } from './login-policies.js';
import type { LoginUser } from './login-users.js';
import { requestsMfa } from './pending-sign-in.js';
import type { PendingSignIn } from './pending-sign-in.js';

/**
 * What follows a first factor (docs/product-rules.md, "Multi-factor sign-in"): nothing when the organization's
 * policy and the methods used need no second factor; else the second step, or enrolment in one when the user has
 * none (required when the policy or the request asks for it, or the account owes one; offered once otherwise).
 */
@Injectable()
export class SecondStepChoice {
  constructor(
    private readonly policies: LoginPolicies,
    private readonly factors: FactorsService,
  ) {}

  /** The pending sign-in with its next step, or undefined when the sign-in is complete as it stands. */
  async after(interaction: Interaction, user: LoginUser, methods: string[], pending: PendingSignIn): Promise<PendingSignIn | undefined> {
    const policy = await this.policies.of(interaction, user.orgId);
    if (authenticationOf(methods).acr === ACR_MFA) return undefined;
    // An account that owes a factor (a moved-in CONFIGURE_TOTP, docs/migrating.md) enrols one whatever the policy.
    if (policy.mfa === 'off' && !user.mfaEnrolmentRequired) return undefined;
    const factors = await this.factors.summary(user.id);
    const hasFactor = factors.totp || factors.recoveryCodes || factors.passkeys.length > 0;
    if (user.mfaEnrolmentRequired && !hasFactor) return { ...pending, enrol: true, required: true };
    if (policy.mfa === 'off') return undefined;
    const usable = factors.totp || factors.recoveryCodes || (policy.passkeys && !methods.some(isPasskeyMethod) && factors.passkeys.length > 0);
    const wanted = policy.mfa === 'required' || requestsMfa(interaction);
    if (usable) return pending;
    if (wanted) return { ...pending, enrol: true, required: true };
    if (factors.offerSkipped) return undefined;
    return { ...pending, enrol: true };
  }
}
