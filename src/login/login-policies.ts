import { Injectable } from '@nestjs/common';
import { LoginPolicyService } from '../users/login-policy.service.js';
import type { LoginPolicy } from '../users/login-policy.service.js';
import type { Interaction } from './login-interactions.js';

/**
 * The login policy as one request of the login UI reads it. Several steps of a request ask for it — the login page's
 * registration link and its password field; the password check, the second factor and the account's owed steps —
 * and the first one's read answers them all. Nothing outlives the request: answers are kept by the request's
 * Interaction, which LoginInteractions.details loads afresh for every request, so a changed policy holds from the
 * next request in every process, as LoginPolicyService reads it on use.
 */
@Injectable()
export class LoginPolicies {
  private readonly read = new WeakMap<Interaction, Map<string, Promise<LoginPolicy>>>();

  constructor(private readonly policies: LoginPolicyService) {}

  of(interaction: Interaction, orgId: string): Promise<LoginPolicy> {
    let byOrg = this.read.get(interaction);
    if (!byOrg) this.read.set(interaction, (byOrg = new Map()));
    let policy = byOrg.get(orgId);
    if (!policy) byOrg.set(orgId, (policy = this.policies.get(orgId)));
    return policy;
  }
}
