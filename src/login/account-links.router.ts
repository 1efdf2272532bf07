import { Injectable } from '@nestjs/common';
import { ipOf } from './sign-in-attempts.js';
import express from 'express';
import type { Request, Response, Router } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { AppLogger } from '../common/http/logging.js';
import { errorMessage } from '../common/http/failure-causes.js';
import { ACCOUNT_LINK_PATHS, AccountLinksService, EMAIL_VERIFICATION_PATH } from '../users/self-service/account-links.service.js';
import { LOGIN_UI_PREFIX } from './ui-paths.js';
import {
  emailVerificationPage,
  emailVerifiedElsewherePage,
  emailVerifiedPage,
  forgotPasswordPage,
  invalidLinkPage,
  passwordSetPage,
  resetRequestedPage,
  setPasswordPage,
} from './account-links.views.js';
import { LoginInteractions } from './login-interactions.js';
import type { Wrap } from './login-interactions.js';
import { LoginRateLimiter } from './login-rate-limiter.js';
import { LoginUsers } from './login-users.js';
import { messages } from './messages.js';
import { PasskeyLinksUi } from './passkey-links.router.js';
import { chooseLocale } from '../texts/locales.js';
import type { Locale } from '../texts/locales.js';

type LinkPurpose = keyof typeof ACCOUNT_LINK_PATHS;

/** The "forgot password" page of a sign-in. */
export function forgotPasswordPath(uid: string): string {
  return `${LOGIN_UI_PREFIX}/${uid}/forgot`;
}

/**
 * The login UI's pages for mailed links (docs/mail.md, "Forgot password", "Invitation"): "forgot password" inside a sign-in, and the
 * pages an invitation, reset or verification link opens, which work in any browser (the code in the link is what authorizes
 * them, so they need no interaction).
 */
@Injectable()
export class AccountLinksUi {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly rateLimiter: LoginRateLimiter,
    private readonly links: AccountLinksService,
    private readonly logger: AppLogger,
    private readonly loginUsers: LoginUsers,
    private readonly passkeyLinks: PasskeyLinksUi,
  ) {}

  /** Registered before `/ui/login/:uid`, whose pattern the link pages' paths would match. */
  routes(router: Router, wrap: Wrap): void {
    const form = express.urlencoded({ extended: false, limit: '16kb' });
    for (const purpose of Object.keys(ACCOUNT_LINK_PATHS) as LinkPurpose[]) {
      router.get(
        ACCOUNT_LINK_PATHS[purpose],
        wrap((req, res) => this.showLink(req, res, purpose)),
      );
      router.post(
        ACCOUNT_LINK_PATHS[purpose],
        form,
        wrap((req, res) => this.followLink(req, res, purpose)),
      );
    }
    router.get(
      EMAIL_VERIFICATION_PATH,
      wrap((req, res) => this.showVerification(req, res)),
    );
    router.post(
      EMAIL_VERIFICATION_PATH,
      form,
      wrap((req, res) => this.verify(req, res)),
    );
    router.get(
      `${LOGIN_UI_PREFIX}/:uid/forgot`,
      wrap((req, res) => this.showForgot(req, res)),
    );
    router.post(
      `${LOGIN_UI_PREFIX}/:uid/forgot`,
      form,
      wrap((req, res) => this.forgot(req, res)),
    );
    this.passkeyLinks.routes(router, wrap);
  }

  /** The login link on the password page leads here. */
  private async showForgot(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    const ctx = await this.interactions.formContext(req, interaction, 'forgot');
    this.interactions.render(res, () => forgotPasswordPage(ctx, String(req.query.loginName ?? ''), backTo(interaction.uid)));
  }

  /**
   * The same page whatever the name (SECURITY.md, "What we defend", account enumeration): the link is queued after
   * the answer is sent, so neither the
   * answer nor its timing tells whether the name exists. Requests count against the password checks' limits.
   */
  private async forgot(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    this.interactions.assertCsrf(req, interaction);
    const ctx = await this.interactions.formContext(req, interaction, 'forgot');
    const loginName = String(req.body.loginName ?? '').trim();
    const ip = ipOf(req);
    const retryAfter = await this.rateLimiter.reserve(ip, loginName);
    if (retryAfter !== undefined) {
      res.status(429).set('Retry-After', String(retryAfter));
      return this.interactions.render(res, () =>
        forgotPasswordPage(ctx, loginName, backTo(interaction.uid), ctx.t.tooManyAttempts(Math.ceil(retryAfter / 60))),
      );
    }
    this.interactions.render(res, () => resetRequestedPage(ctx.locale, ctx.t, backTo(interaction.uid)));
    const ipHash = this.rateLimiter.ipHash(ip);
    setImmediate(() => {
      this.loginUsers
        .find(loginName)
        .then((user) => this.links.requestReset(user?.id, ipHash))
        .catch((error: unknown) => this.logger.root.error(`password reset request failed: ${errorMessage(error)}`));
    });
  }

  private async showLink(req: Request, res: Response, purpose: LinkPurpose): Promise<void> {
    const code = String(req.query.code ?? '');
    // A passkeys-only person's link creates a passkey, never a password (docs/passwordless.md).
    const passkeyHolder = await this.passkeyLinks.holder(code, purpose);
    if (passkeyHolder) return this.passkeyLinks.show(req, res, purpose, code, passkeyHolder);
    const holder = await this.links.holder(code, purpose);
    const locale = localeOf(req, holder?.locale);
    if (!holder) return this.invalid(res, locale);
    this.interactions.render(res, () => setPasswordPage(locale, messages(locale), kindOf(purpose), ACCOUNT_LINK_PATHS[purpose], code, holder.userName));
  }

  private async followLink(req: Request, res: Response, purpose: LinkPurpose): Promise<void> {
    const code = String(req.body.code ?? '');
    const passkeyHolder = await this.passkeyLinks.holder(code, purpose);
    if (passkeyHolder) return this.passkeyLinks.follow(req, res, purpose, code, passkeyHolder);
    const holder = await this.links.holder(code, purpose);
    const locale = localeOf(req, holder?.locale);
    const t = messages(locale);
    if (!holder) return this.invalid(res, locale);
    const again = (error: string) => {
      res.status(400);
      this.interactions.render(res, () => setPasswordPage(locale, t, kindOf(purpose), ACCOUNT_LINK_PATHS[purpose], code, holder.userName, error));
    };
    const password = String(req.body.password ?? '');
    if (password !== String(req.body.passwordConfirm ?? '')) return again(t.passwordMismatch);
    try {
      await this.links.setPassword(code, purpose, password);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return again([error.message, ...error.details.map((d) => d.message)].join(' '));
    }
    this.interactions.render(res, () => passwordSetPage(locale, t, holder.loginName));
  }

  /** A GET changes nothing (mail scanners fetch links): the page asks for one click. */
  private async showVerification(req: Request, res: Response): Promise<void> {
    const code = String(req.query.code ?? '');
    const holder = await this.links.holder(code, 'email_verification');
    const locale = localeOf(req, holder?.locale);
    if (!holder) return this.invalid(res, locale);
    this.interactions.render(res, () => emailVerificationPage(locale, messages(locale), EMAIL_VERIFICATION_PATH, code, holder.userName));
  }

  private async verify(req: Request, res: Response): Promise<void> {
    const code = String(req.body.code ?? '');
    const holder = await this.links.holder(code, 'email_verification');
    const locale = localeOf(req, holder?.locale);
    const outcome = holder ? await this.links.verifyEmail(code) : 'invalid';
    if (outcome === 'invalid') return this.invalid(res, locale);
    if (outcome === 'verified_elsewhere') res.status(409);
    this.interactions.render(res, () => (outcome === 'verified' ? emailVerifiedPage : emailVerifiedElsewherePage)(locale, messages(locale)));
  }

  private invalid(res: Response, locale: Locale): void {
    res.status(400);
    this.interactions.render(res, () => invalidLinkPage(locale, messages(locale)));
  }
}

function backTo(uid: string): string {
  return `${LOGIN_UI_PREFIX}/${uid}?form=login`;
}

function kindOf(purpose: LinkPurpose): 'invitation' | 'password-reset' {
  return purpose === 'invitation' ? 'invitation' : 'password-reset';
}

/** The user's preferred language where it is one of the UI's, else the browser's. */
function localeOf(req: Request, preferred: string | null | undefined): Locale {
  return chooseLocale(preferred?.toLowerCase().split(/[-_]/)[0], req.headers['accept-language']);
}
