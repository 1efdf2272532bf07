import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AccountLinksService } from '../users/self-service/account-links.service.js';
import { OwnAccountService } from '../users/self-service/own-account.service.js';
import { UserLifecycleService } from '../users/user-lifecycle.service.js';
import { PasswordLoginService } from '../login/password-login.service.js';
import { AccountLimits } from './account-limits.js';
import { AccountPageRenderer, done } from './account-page.renderer.js';
import { AccountSessions } from './account-session.js';
import type { AccountForm, Visit } from './account-visits.js';

/** The account page's profile, e-mail and password forms. */
@Injectable()
export class ProfileChanges {
  constructor(
    private readonly renderer: AccountPageRenderer,
    private readonly limits: AccountLimits,
    private readonly sessions: AccountSessions,
    private readonly own: OwnAccountService,
    private readonly links: AccountLinksService,
    private readonly passwords: PasswordLoginService,
    private readonly lifecycle: UserLifecycleService,
  ) {}

  forms(): AccountForm[] {
    return [
      ['profile', false, (req, res, v) => this.changeProfile(req, res, v)],
      ['email', true, (req, res, v) => this.changeEmail(req, res, v)],
      ['email/verify', false, (req, res, v) => this.resendVerification(req, res, v)],
      ['password', false, (req, res, v) => this.changePassword(req, res, v)],
    ];
  }

  private async changeProfile(req: Request, res: Response, { user }: Visit): Promise<void> {
    const text = (name: string) => String(req.body[name] ?? '').trim();
    await this.own.changeProfile(user.id, user.orgId, {
      firstName: text('firstName'),
      lastName: text('lastName'),
      displayName: text('displayName'),
      preferredLanguage: text('preferredLanguage'),
    });
    done(res, 'profile');
  }

  /** Counted against the rate limits like "send again": every change mails a link to the address typed. */
  private async changeEmail(req: Request, res: Response, visit: Visit): Promise<void> {
    if (!(await this.limits.within(req, res, visit, 'email'))) return;
    const { user } = visit;
    await this.own.changeEmail(user.id, user.orgId, String(req.body.email ?? '').trim());
    done(res, 'email');
  }

  /** Counted against the rate limits like a password attempt: every one sends a mail. */
  private async resendVerification(req: Request, res: Response, visit: Visit): Promise<void> {
    if (!(await this.limits.within(req, res, visit, 'email'))) return;
    await this.links.sendVerification(visit.user.id);
    done(res, 'verification');
  }

  /**
   * The current password (counted like a sign-in's, so the page is no way around the lockout), then the new one
   * under the instance's policy. Every other session of the user ends; this one stays (docs/account.md). A person
   * without a password (federated only) sets a first one after a recent sign-in instead.
   */
  private async changePassword(req: Request, res: Response, visit: Visit): Promise<void> {
    const { user, session, t } = visit;
    const problem = (message: string, status = 400) => this.renderer.render(res, visit, { status, problem: { section: 'password', message } });
    const password = String(req.body.password ?? '');
    if (password !== String(req.body.passwordConfirm ?? '')) return problem(t.passwordMismatch);
    if (user.passwordHash === null) {
      if (!this.sessions.fresh(session))
        return this.renderer.render(res, visit, { status: 403, problem: { section: 'password', message: t.signInAgain, reauth: true } });
    } else {
      if (!(await this.limits.within(req, res, visit, 'password'))) return;
      const checked = await this.passwords.checkUser(user.id, String(req.body.currentPassword ?? ''), this.limits.source(req));
      if (!checked.ok) return problem(t.wrongPassword, 401);
    }
    await this.lifecycle.setPassword(user.id, user.orgId, user.id, password, { method: 'change', keepSession: session.uid });
    done(res, 'password');
  }
}
