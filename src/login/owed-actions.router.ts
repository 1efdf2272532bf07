import { Injectable } from '@nestjs/common';
import type { Request, Response, Router } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { AccountLinksService } from '../users/self-service/account-links.service.js';
import { UserLifecycleService } from '../users/user-lifecycle.service.js';
import { LoginInteractions } from './login-interactions.js';
import type { Interaction } from './login-interactions.js';
import { LoginUsers } from './login-users.js';
import { pendingOf } from './pending-sign-in.js';
import { SecondFactorPages } from './second-factor.pages.js';
import { SignInAttempts } from './sign-in-attempts.js';
import { SignInFlow } from './sign-in-flow.js';

/** The form posts of the steps an account owes (OwedActions): a new password, a verified address. */
@Injectable()
export class OwedActionsUi {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly pages: SecondFactorPages,
    private readonly flow: SignInFlow,
    private readonly attempts: SignInAttempts,
    private readonly lifecycle: UserLifecycleService,
    private readonly links: AccountLinksService,
    private readonly loginUsers: LoginUsers,
  ) {}

  routes(router: Router): void {
    this.interactions.postSteps(router, {
      'password-change': (req, res, i) => this.changePassword(req, res, i),
      'verify-email': (req, res, i) => this.continueVerified(req, res, i),
      'verify-email/resend': (req, res, i) => this.resendVerification(req, res, i),
    });
  }

  /** Twice the same new password, under the instance's policy, set as the user's own change. */
  private async changePassword(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.changePassword) return this.interactions.showError(req, res, 400, 'invalid_request', 'no password change is pending in this sign-in');
    const t = (await this.interactions.formContext(req, interaction, 'password-change')).t;
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
    return this.flow.complete(req, res, interaction, { ...pending, changePassword: false });
  }

  /** "Continue" on the verify-email page: the sign-in completes once the address is verified. */
  private async continueVerified(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.verifyEmail) return this.interactions.showError(req, res, 400, 'invalid_request', 'no e-mail verification is pending in this sign-in');
    if (!(await this.loginUsers.findById(pending.userId))?.emailVerified) {
      return this.pages.render(req, res, interaction, pending, (await this.interactions.formContext(req, interaction, 'verify-email')).t.verifyEmailNotYet);
    }
    return this.flow.complete(req, res, interaction, { ...pending, verifyEmail: undefined });
  }

  /** "Send again": a new link (the earlier one dies), counted against the rate limits like a password attempt. */
  private async resendVerification(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.verifyEmail) return this.interactions.showError(req, res, 400, 'invalid_request', 'no e-mail verification is pending in this sign-in');
    if (!(await this.attempts.counted(req, res, interaction, pending))) return;
    await this.links.sendVerification(pending.userId);
    return this.pages.render(req, res, interaction, pending, (await this.interactions.formContext(req, interaction, 'verify-email')).t.verifyEmailResent);
  }
}
