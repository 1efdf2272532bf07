import { Inject, Injectable } from '@nestjs/common';
import express from 'express';
import type { Request, Response, Router } from 'express';
import { VerifierBusyError } from '../common/crypto/password-hashes/password-hashes.js';
import { logins } from '../common/metrics/metrics.js';
import { isActive } from '../users/rules/user-state.js';
import { ACR_PASSWORD } from './authentication-methods.js';
import { KnownAccounts, selectionAllowed } from './known-accounts.js';
import { LoginInteractions } from './login-interactions.js';
import type { Interaction } from './login-interactions.js';
import { LoginPage } from './login-page.js';
import { LoginRateLimiter } from './login-rate-limiter.js';
import { LoginUsers } from './login-users.js';
import { PasswordLoginService } from './password-login.service.js';
import type { PasswordLoginResult } from './password-login.service.js';
import { ipOf } from './sign-in-attempts.js';
import { directoryPasswordChangePage } from './account-links.views.js';
import { SignInFlow } from './sign-in-flow.js';
import { LOGIN_UI_PREFIX } from './ui-paths.js';
import { UPSTREAM_SIGN_IN } from './upstream-sign-in.js';
import type { UpstreamSignIn } from './upstream-sign-in.js';

/**
 * The login page's forms (docs/product-rules.md, "OpenID Connect and OAuth"): a login name and password, or a
 * remembered account of this browser. A login name of an IdP's domain goes upstream instead (docs/federation.md).
 */
@Injectable()
export class PasswordLoginUi {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly flow: SignInFlow,
    private readonly loginPage: LoginPage,
    private readonly passwords: PasswordLoginService,
    private readonly rateLimiter: LoginRateLimiter,
    private readonly known: KnownAccounts,
    private readonly loginUsers: LoginUsers,
    @Inject(UPSTREAM_SIGN_IN) private readonly upstreams: UpstreamSignIn,
  ) {}

  routes(router: Router): void {
    const form = express.urlencoded({ extended: false, limit: '16kb' });
    router.post(
      `${LOGIN_UI_PREFIX}/:uid/login`,
      form,
      this.interactions.wrap((req, res) => this.login(req, res)),
    );
    router.post(
      `${LOGIN_UI_PREFIX}/:uid/directory-password`,
      form,
      this.interactions.wrap((req, res) => this.changeExpired(req, res)),
    );
    router.post(
      `${LOGIN_UI_PREFIX}/:uid/select`,
      form,
      this.interactions.wrap((req, res) => this.select(req, res)),
    );
  }

  private async login(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    this.interactions.assertCsrf(req, interaction);
    const loginName = String(req.body.loginName ?? '');
    // Home-realm discovery (docs/federation.md, "Organization domains"): a login name of an IdP's domain goes there; no password is read.
    if (await this.upstreams.discover(req, res, interaction, loginName)) return;
    // Passkeys only (docs/passwordless.md): no password is read; the login name leads to the passkey, the same page for any
    // name. Through the directory door, a password is read and checked by the directory alone.
    const passkeysOnly = await this.loginPage.passkeysOnly(interaction);
    const directoryOnly = passkeysOnly && req.body.door === 'directory';
    if (passkeysOnly && !directoryOnly) return this.loginPage.render(req, res, interaction, loginName);
    if ((await this.upstreams.options(interaction)).password === 'none') {
      res.status(403);
      return this.loginPage.render(req, res, interaction, loginName, (t) => t.passwordLoginOff);
    }
    const ip = ipOf(req);
    const retryAfter = await this.rateLimiter.reserve(ip, loginName);
    if (retryAfter !== undefined) {
      // RFC 6585 §4: 429 with Retry-After; the password is not checked at all.
      logins.inc({ result: 'rate_limited' });
      res.status(429).set('Retry-After', String(retryAfter));
      return this.loginPage.render(req, res, interaction, loginName, (t) => t.tooManyAttempts(Math.ceil(retryAfter / 60)));
    }
    let result: PasswordLoginResult;
    try {
      result = await this.passwords.check(loginName, String(req.body.password ?? ''), { clientIpHash: this.rateLimiter.ipHash(ip) }, { directoryOnly });
    } catch (error) {
      if (!(error instanceof VerifierBusyError)) throw error;
      // RFC 9110 §15.6.4: not checked, not counted; come back shortly.
      await this.rateLimiter.release(ip, loginName);
      res.status(503).set('Retry-After', String(error.retryAfterSeconds));
      return this.loginPage.render(req, res, interaction, loginName, (t) => t.busy);
    }
    if (!result.ok && result.expired) {
      // Only the right password learns this: the directory answers "expired" to no other (docs/directories.md, "Sign-in").
      await this.rateLimiter.release(ip, loginName);
      if (result.writeBack) {
        const ctx = await this.interactions.formContext(req, interaction, 'directory-password');
        return this.interactions.render(res, () => directoryPasswordChangePage(ctx, loginName));
      }
      res.status(403);
      return this.loginPage.render(req, res, interaction, loginName, (t) => t.directoryPasswordExpired);
    }
    return this.afterCheck(req, res, interaction, ip, loginName, result);
  }

  /** The change of an expired directory password (writeBack): the current one, a new one twice; then the sign-in goes on. */
  private async changeExpired(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    this.interactions.assertCsrf(req, interaction);
    const loginName = String(req.body.loginName ?? '');
    const ctx = await this.interactions.formContext(req, interaction, 'directory-password');
    const ip = ipOf(req);
    const retryAfter = await this.rateLimiter.reserve(ip, loginName);
    if (retryAfter !== undefined) {
      logins.inc({ result: 'rate_limited' });
      res.status(429).set('Retry-After', String(retryAfter));
      return this.loginPage.render(req, res, interaction, loginName, (t) => t.tooManyAttempts(Math.ceil(retryAfter / 60)));
    }
    const again = async (error: string) => {
      await this.rateLimiter.release(ip, loginName);
      res.status(400);
      return this.interactions.render(res, () => directoryPasswordChangePage(ctx, loginName, error));
    };
    const password = String(req.body.password ?? '');
    if (password !== String(req.body.passwordConfirm ?? '')) return again(ctx.t.passwordMismatch);
    const result = await this.passwords.changeExpired(loginName, String(req.body.currentPassword ?? ''), password, {
      clientIpHash: this.rateLimiter.ipHash(ip),
    });
    if ('refused' in result) return again(result.refused);
    return this.afterCheck(req, res, interaction, ip, loginName, result);
  }

  /** A checked password's answer: the directory away, a refusal, or the sign-in going on to its next step. */
  private async afterCheck(req: Request, res: Response, interaction: Interaction, ip: string, loginName: string, result: PasswordLoginResult): Promise<void> {
    if (!result.ok && result.unreachable) {
      // The password was not checked, so the attempt is not counted (docs/directories.md, "Sign-in").
      await this.rateLimiter.release(ip, loginName);
      res.status(503);
      return this.loginPage.render(req, res, interaction, loginName, (t) => t.directoryUnreachable);
    }
    if (!result.ok) {
      // One answer for a wrong password and for an unknown, inactive or locked user (SECURITY.md).
      res.status(401);
      return this.loginPage.render(req, res, interaction, loginName, (t) => t.invalidCredentials);
    }
    await this.rateLimiter.release(ip, loginName);
    return this.flow.afterFirstFactor(req, res, interaction, result.user, ['pwd']);
  }

  private async select(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    this.interactions.assertCsrf(req, interaction);
    const account = this.known.parse(req.headers.cookie).find((a) => a.loginName === req.body.loginName);
    if (!account || !selectionAllowed(interaction)) return this.loginPage.render(req, res, interaction, String(req.body.loginName ?? ''));
    // The cookie only remembers; the server decides. Without a password, only the account of the
    // browser's live server-side session can be picked: once that session expired, was revoked or was
    // replaced by another account's sign-in, the password is asked again, the login name filled in.
    if (interaction.session?.accountId !== account.userId) return this.loginPage.render(req, res, interaction, account.loginName, (t) => t.sessionEnded);
    // The account must still be able to sign in (state read on use).
    const user = await this.loginUsers.find(account.loginName);
    if (!user || user.id !== account.userId || !isActive(user))
      return this.loginPage.render(req, res, interaction, account.loginName, (t) => t.invalidCredentials);
    // The session's own authentication carries over (its second factor too): selecting is no new sign-in.
    const { amr = ['pwd'], acr = ACR_PASSWORD } = interaction.session ?? {};
    return this.flow.finish(req, res, interaction, { accountId: account.userId, ts: account.authTime, amr, acr }, account);
  }
}
