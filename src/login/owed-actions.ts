import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { AccountLinksService } from '../users/self-service/account-links.service.js';
import { UserLifecycleService } from '../users/user-lifecycle.service.js';
import { LoginInteractions } from './login-interactions.js';
import { LoginPolicies } from './login-policies.js';
import type { Interaction } from './login-interactions.js';
import { LoginUsers } from './login-users.js';
import { pendingOf } from './pending-sign-in.js';
import type { PendingSignIn } from './pending-sign-in.js';
import { SecondFactorPages } from './second-factor.pages.js';

type Step = (req: Request, res: Response, interaction: Interaction) => Promise<void>;

/** How the sign-in goes on from an action's step: to completion (which asks again), or counted against the limits. */
export interface SignInSteps {
  complete(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn): Promise<void>;
  counted(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn): Promise<boolean>;
}

/**
 * What an account must do after its factors and before the application gets a code (DESIGN §13): choose a new
 * password when an administrator or an import asked for one (`[data-password-change]`), and verify its address
 * where the login policy requires it (`[data-verify-email]`). Each is a pending step of the sign-in, shown by
 * SecondFactorPages; completing one asks again, so no step can be skipped by posting to another.
 */
@Injectable()
export class AccountActions {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly pages: SecondFactorPages,
    private readonly policies: LoginPolicies,
    private readonly lifecycle: UserLifecycleService,
    private readonly links: AccountLinksService,
    private readonly loginUsers: LoginUsers,
  ) {}

  /**
   * The step the account owes, as the pending sign-in to keep; `refused` when it cannot be done (an address to verify
   * that the account lacks: the refusal page is sent); undefined when nothing is owed.
   */
  async owed(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn): Promise<PendingSignIn | 'refused' | undefined> {
    const user = await this.loginUsers.findById(pending.userId);
    if (!user) return undefined;
    const step = { ...pending, enrol: false, required: false, totpFactorId: undefined, recoveryShown: false, changePassword: false, verifyEmail: undefined };
    // A password the administrator marked for change, used in this sign-in: the new one first.
    if (pending.methods.includes('pwd') && user.passwordChangeRequired) return { ...step, changePassword: true };
    if (user.emailVerified || !(await this.policies.of(interaction, pending.orgId)).requireVerifiedEmail) return undefined;
    if (!user.email || !(await this.links.sendVerification(user.id))) {
      this.interactions.refuse(req, res, 403, 'access_denied', this.interactions.formContext(req, interaction, 'verify-email').t.verifyEmailMissing);
      return 'refused';
    }
    return { ...step, verifyEmail: user.email };
  }

  /** The form posts of the steps, by path under `/ui/login/{uid}/`. */
  steps(signIn: SignInSteps): Record<string, Step> {
    return {
      'password-change': (req, res, i) => this.changePassword(req, res, i, signIn),
      'verify-email': (req, res, i) => this.continueVerified(req, res, i, signIn),
      'verify-email/resend': (req, res, i) => this.resendVerification(req, res, i, signIn),
    };
  }

  /** Twice the same new password, under the instance's policy, set as the user's own change. */
  private async changePassword(req: Request, res: Response, interaction: Interaction, signIn: SignInSteps): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.changePassword) return this.interactions.refuse(req, res, 400, 'invalid_request', 'no password change is pending in this sign-in');
    const t = this.interactions.formContext(req, interaction, 'password-change').t;
    const password = String(req.body.password ?? '');
    const again = (error: string) => {
      res.status(400);
      return this.pages.render(req, res, interaction, pending, error);
    };
    if (password !== String(req.body.passwordConfirm ?? '')) return again(t.passwordMismatch);
    try {
      await this.lifecycle.setPassword(pending.userId, pending.orgId, pending.userId, password, { method: 'change' });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return again([error.message, ...error.details.map((d) => d.message)].join(' '));
    }
    return signIn.complete(req, res, interaction, { ...pending, changePassword: false });
  }

  /** "Continue" on the verify-email page: the sign-in completes once the address is verified. */
  private async continueVerified(req: Request, res: Response, interaction: Interaction, signIn: SignInSteps): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.verifyEmail) return this.interactions.refuse(req, res, 400, 'invalid_request', 'no e-mail verification is pending in this sign-in');
    if (!(await this.loginUsers.findById(pending.userId))?.emailVerified) {
      return this.pages.render(req, res, interaction, pending, this.interactions.formContext(req, interaction, 'verify-email').t.verifyEmailNotYet);
    }
    return signIn.complete(req, res, interaction, { ...pending, verifyEmail: undefined });
  }

  /** "Send again": a new link (the earlier one dies), counted against the rate limits like a password attempt. */
  private async resendVerification(req: Request, res: Response, interaction: Interaction, signIn: SignInSteps): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.verifyEmail) return this.interactions.refuse(req, res, 400, 'invalid_request', 'no e-mail verification is pending in this sign-in');
    if (!(await signIn.counted(req, res, interaction, pending))) return;
    await this.links.sendVerification(pending.userId);
    return this.pages.render(req, res, interaction, pending, this.interactions.formContext(req, interaction, 'verify-email').t.verifyEmailResent);
  }
}
