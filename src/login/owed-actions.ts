import { Injectable } from '@nestjs/common';
import { AccountLinksService } from '../users/self-service/account-links.service.js';
import { LoginPolicies } from './login-policies.js';
import type { Interaction } from './login-interactions.js';
import { InstanceSettings } from '../settings/instance-settings.service.js';
import { LoginUsers } from './login-users.js';
import type { LoginUser } from './login-users.js';
import type { Messages } from './messages.js';
import type { PendingSignIn } from './pending-sign-in.js';

/** What the account owes: the step to keep pending, a refusal (its text), or nothing. */
export type Owed = PendingSignIn | { refused: (t: Messages) => string } | undefined;

/**
 * What an account must do after its factors and before the application gets a code (docs/account.md): choose a new
 * password when an administrator or an import asked for one, or when it is older than the policy's maximum age
 * (`[data-password-change]`), and verify its address where the login policy requires it (`[data-verify-email]`). Each
 * is a pending step of the sign-in, shown by SecondFactorPages and answered by OwedActionsUi; completing one asks
 * again, so no step can be skipped by posting to another.
 */
@Injectable()
export class OwedActions {
  constructor(
    private readonly policies: LoginPolicies,
    private readonly links: AccountLinksService,
    private readonly loginUsers: LoginUsers,
    private readonly settings: InstanceSettings,
  ) {}

  /** The step the account owes; a refusal when it cannot be done (an address to verify that the account lacks). */
  async of(interaction: Interaction, pending: PendingSignIn): Promise<Owed> {
    const user = await this.loginUsers.findById(pending.userId);
    if (!user) return undefined;
    const step = { ...pending, enrol: false, required: false, totpFactorId: undefined, recoveryShown: false, changePassword: false, verifyEmail: undefined };
    // A password the administrator marked for change, or older than the policy allows (Keycloak's "Expire
    // Password"), used in this sign-in: the new one first. Read on use: a shorter maximum age applies at once.
    if (pending.methods.includes('pwd') && (user.passwordChangeRequired || (await this.expired(user)))) return { ...step, changePassword: true };
    if (user.emailVerified || !(await this.policies.of(interaction, pending.orgId)).requireVerifiedEmail) return undefined;
    if (!user.email || !(await this.links.sendVerification(user.id))) return { refused: (t) => t.verifyEmailMissing };
    return { ...step, verifyEmail: user.email };
  }

  /** Whether the password is older than the policy's maximum age (docs/operations.md, "Settings"; 0: never). */
  private async expired(user: LoginUser): Promise<boolean> {
    const { maxAgeDays } = (await this.settings.get()).passwordPolicy;
    return maxAgeDays > 0 && Date.now() - user.passwordSetAt.getTime() > maxAgeDays * 86_400_000;
  }
}
