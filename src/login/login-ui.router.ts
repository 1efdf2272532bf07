import { Injectable } from '@nestjs/common';
import express from 'express';
import { invalidTextPath } from '../common/text/valid-text.js';
import type { Request, Response, Router } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { registrationProblems } from '../users/registration.rules.js';
import { UsersService } from '../users/users.service.js';
import { FOREIGN_ORGANIZATION_REFUSAL, mayServe } from '../oidc/account/organization-boundary.js';
import { ProviderHolder } from '../oidc/provider/provider.holder.js';
import { LOGIN_UI_PREFIX } from '../oidc/provider/oidc.routes.js';
import { errorPage, loginPage, registerPage, selectAccountPage } from './login.views.js';
import { LoginRateLimiter } from './login-rate-limiter.js';
import { logins } from '../common/metrics/metrics.js';
import { RegistrationGate } from './registration-gate.js';
import { LoginUsers } from './login-users.js';
import { securityHeaders } from './login-ui.http.js';
import { LoginInteractions } from './login-interactions.js';
import type { Interaction } from './login-interactions.js';
import type { Messages } from './messages.js';
import { PasswordLoginService } from './password-login.service.js';
import type { PasswordLoginResult } from './password-login.service.js';
import { SecondFactorUi } from './second-factor.router.js';
import { VerifierBusyError } from '../common/crypto/password-hashes/password-hashes.js';
import { isActive } from '../users/rules/user-state.js';
import { ACR_PASSWORD } from './authentication-methods.js';
import { FederatedLoginUi } from '../federation/sign-in/federated-login.js';
import { contentSecurityPolicy } from './login-page.headers.js';
import { AccountLinksUi } from './account-links.router.js';
import { AccountPageUi } from '../account/account-page.router.js';
import { forgotPasswordLink } from './account-links.views.js';

/**
 * The server-rendered login UI (docs/product-rules.md, "OpenID Connect and OAuth") under /ui/login/{uid}: login name and password, account
 * selection, registration (prompt=create); the second factor follows in SecondFactorUi. It answers
 * oidc-provider's interactions; plain forms, no JavaScript but the passkey ceremony; every form carries
 * a CSRF value bound to the interaction (whose cookie the provider checks).
 */
@Injectable()
export class LoginUiRouter {
  constructor(
    private readonly holder: ProviderHolder,
    private readonly passwords: PasswordLoginService,
    private readonly users: UsersService,
    private readonly interactions: LoginInteractions,
    private readonly secondFactor: SecondFactorUi,
    private readonly rateLimiter: LoginRateLimiter,
    private readonly federated: FederatedLoginUi,
    private readonly accountLinks: AccountLinksUi,
    private readonly accountPage: AccountPageUi,
    private readonly loginUsers: LoginUsers,
    private readonly registration: RegistrationGate,
  ) {}

  router(): Router {
    const router = express.Router();
    const form = express.urlencoded({ extended: false, limit: '16kb' });
    const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response) => {
      securityHeaders(res);
      // A NUL in a form field (DESIGN §7, third wave): refused before any step reads it.
      if (req.body !== undefined && invalidTextPath(req.body) !== undefined) {
        return this.interactions.refuse(req, res, 400, 'invalid_request', 'the form holds text that is not valid Unicode (a NUL character); nothing was changed');
      }
      fn(req, res).catch((error: unknown) => this.interactions.fail(req, res, error));
    };
    // First: the pages of mailed links have fixed paths that `/:uid` would match.
    this.accountLinks.routes(router, wrap);
    this.accountPage.routes(router, wrap);
    router.get(`${LOGIN_UI_PREFIX}/:uid`, wrap((req, res) => this.show(req, res)));
    router.post(`${LOGIN_UI_PREFIX}/:uid/login`, form, wrap((req, res) => this.login(req, res)));
    router.post(`${LOGIN_UI_PREFIX}/:uid/select`, form, wrap((req, res) => this.select(req, res)));
    router.post(`${LOGIN_UI_PREFIX}/:uid/register`, form, wrap((req, res) => this.register(req, res)));
    this.secondFactor.routes(router, wrap);
    this.federated.routes(router, wrap);
    return router;
  }

  private async show(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    const { prompt, params } = interaction;
    if (prompt.name === 'consent') return this.interactions.finish(req, res, interaction);
    if (await this.secondFactor.show(req, res, interaction)) return;
    if (prompt.name === 'login' && (await this.federated.followHint(req, res, interaction))) return;
    if (prompt.name === 'create' || req.query.form === 'register') {
      if (!(await this.registration.offered(interaction)).allowed) return this.registrationClosed(req, res);
      return this.interactions.render(res, registerPage(this.interactions.formContext(req, interaction, 'register'), {}));
    }
    const accounts = this.interactions.known.parse(req.headers.cookie);
    if (accounts.length > 0 && req.query.form !== 'login' && this.selectionAllowed(interaction)) {
      return this.interactions.render(res, selectAccountPage(this.interactions.formContext(req, interaction, 'select'), accounts.map((a) => a.loginName), `?form=login`));
    }
    return this.renderLogin(req, res, interaction, params.login_hint ?? '');
  }

  private async login(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    this.interactions.assertCsrf(req, interaction);
    const loginName = String(req.body.loginName ?? '');
    // Home-realm discovery (DESIGN §14): a login name of an IdP's domain goes there; no password is read.
    if (await this.federated.discover(req, res, interaction, loginName)) return;
    if ((await this.federated.options(interaction)).password === 'none') {
      res.status(403);
      return this.renderLogin(req, res, interaction, loginName, (t) => t.passwordLoginOff);
    }
    const ip = req.ip ?? req.socket.remoteAddress ?? '';
    const retryAfter = await this.rateLimiter.reserve(ip, loginName);
    if (retryAfter !== undefined) {
      // RFC 6585 §4: 429 with Retry-After; the password is not checked at all.
      logins.inc({ result: 'rate_limited' });
      res.status(429).set('Retry-After', String(retryAfter));
      return this.renderLogin(req, res, interaction, loginName, (t) => t.tooManyAttempts(Math.ceil(retryAfter / 60)));
    }
    let result: PasswordLoginResult;
    try {
      result = await this.passwords.check(loginName, String(req.body.password ?? ''), { clientIpHash: this.rateLimiter.ipHash(ip) });
    } catch (error) {
      if (!(error instanceof VerifierBusyError)) throw error;
      // RFC 9110 §15.6.4: not checked, not counted; come back shortly.
      await this.rateLimiter.release(ip, loginName);
      res.status(503).set('Retry-After', String(error.retryAfterSeconds));
      return this.renderLogin(req, res, interaction, loginName, (t) => t.busy);
    }
    if (!result.ok) {
      // One answer for a wrong password and for an unknown, inactive or locked user (SECURITY.md).
      res.status(401);
      return this.renderLogin(req, res, interaction, loginName, (t) => t.invalidCredentials);
    }
    await this.rateLimiter.release(ip, loginName);
    // Sign-in stays inside the organization: never a session of another organization's user for this client.
    if (!mayServe(await this.holder.provider.Client.find(interaction.params.client_id ?? ''), result.user)) {
      if (interaction.deviceCode) return this.interactions.deny(res, interaction, FOREIGN_ORGANIZATION_REFUSAL);
      const ctx = this.interactions.formContext(req, interaction, 'login');
      res.status(403);
      return this.interactions.render(res, errorPage(ctx.locale, ctx.t, 'access_denied', FOREIGN_ORGANIZATION_REFUSAL));
    }
    return this.secondFactor.afterFirstFactor(req, res, interaction, result.user, ['pwd']);
  }

  private async select(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    this.interactions.assertCsrf(req, interaction);
    const account = this.interactions.known.parse(req.headers.cookie).find((a) => a.loginName === req.body.loginName);
    if (!account || !this.selectionAllowed(interaction)) return this.renderLogin(req, res, interaction, String(req.body.loginName ?? ''));
    // The cookie only remembers; the server decides. Without a password, only the account of the
    // browser's live server-side session can be picked: once that session expired, was revoked or was
    // replaced by another account's sign-in, the password is asked again, the login name filled in.
    if (interaction.session?.accountId !== account.userId) return this.renderLogin(req, res, interaction, account.loginName, (t) => t.sessionEnded);
    // The account must still be able to sign in (state read on use).
    const user = await this.loginUsers.find(account.loginName);
    if (!user || user.id !== account.userId || !isActive(user)) return this.renderLogin(req, res, interaction, account.loginName, (t) => t.invalidCredentials);
    // The session's own authentication carries over (its second factor too): selecting is no new sign-in.
    const { amr = ['pwd'], acr = ACR_PASSWORD } = interaction.session ?? {};
    return this.interactions.finish(req, res, interaction, { accountId: account.userId, ts: account.authTime, amr, acr }, account);
  }

  /**
   * Self-registration (OpenID Connect Prompt Create 1.0) into the client's organization, where its login
   * policy offers it: rate-limited per client IP like password checks (every attempt counts, so names
   * cannot be probed at speed) and validated like the management API, a little stricter since anyone
   * may register (users/registration.rules.ts). A refused attempt creates nothing.
   */
  private async register(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    this.interactions.assertCsrf(req, interaction);
    const { orgId, allowed } = await this.registration.offered(interaction);
    if (!orgId || !allowed) return this.registrationClosed(req, res);
    const ctx = this.interactions.formContext(req, interaction, 'register');
    const values = Object.fromEntries(['firstName', 'lastName', 'email', 'userName'].map((k) => [k, String(req.body[k] ?? '').trim()]));
    const retryAfter = await this.rateLimiter.reserve(req.ip ?? req.socket.remoteAddress ?? '');
    if (retryAfter !== undefined) {
      res.status(429).set('Retry-After', String(retryAfter));
      return this.interactions.render(res, registerPage(ctx, values, ctx.t.tooManyAttempts(Math.ceil(retryAfter / 60))));
    }
    const password = String(req.body.password ?? '');
    const problems = registrationProblems({ userName: values.userName, firstName: values.firstName, lastName: values.lastName, email: values.email, password });
    try {
      if (problems.length > 0) throw DomainError.invalid('the registration is invalid', problems);
      const created = await this.users.createHuman(null, orgId, { userName: values.userName, firstName: values.firstName, lastName: values.lastName, email: values.email, password });
      const user = await this.loginUsers.findById(created.id);
      if (!user) throw DomainError.notFound('user');
      // A new user enrols a second factor at once where the organization requires one.
      return this.secondFactor.afterFirstFactor(req, res, interaction, user, ['pwd']);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      res.status(400);
      const detail = [error.message, ...error.details.map((d) => d.message)].join(' ');
      return this.interactions.render(res, registerPage(ctx, values, `${ctx.t.registrationFailed} ${detail}`));
    }
  }

  private registrationClosed(req: Request, res: Response): void {
    this.interactions.refuse(req, res, 403, 'access_denied', 'this organization does not offer registration');
  }

  /** Choosing a remembered account is no re-authentication: not for prompt=login, max_age or a hint. */
  private selectionAllowed(interaction: Interaction): boolean {
    if (interaction.prompt.name === 'select_account') return true;
    return interaction.prompt.reasons.every((r) => r === 'no_session') && !interaction.params.login_hint;
  }

  /**
   * The login page, with what the client's organization offers: "forgot password" where it takes passwords,
   * the link to the registration form, and the passkey sign-in.
   */
  private async renderLogin(req: Request, res: Response, interaction: Interaction, loginName: string, error?: (t: Messages) => string): Promise<void> {
    const ctx = this.interactions.formContext(req, interaction, 'login');
    const offered = await this.registration.offered(interaction);
    const options = await this.federated.options(interaction);
    const forgot = options.password === 'none' ? '' : forgotPasswordLink(ctx.t, this.accountLinks.linkTo(interaction.uid));
    const link = forgot + (offered.allowed ? `<p><a href="${LOGIN_UI_PREFIX}/${interaction.uid}?form=register">${ctx.t.register}</a></p>` : '');
    const passkey = await this.secondFactor.pages.loginPasskey(req, interaction, offered.passkeys);
    // Browsers hold a form's redirects to `form-action` too: the login name may lead to an IdP (DESIGN §14).
    res.setHeader('Content-Security-Policy', contentSecurityPolicy("'self'", [interaction.params.redirect_uri, ...options.upstreams]));
    this.interactions.render(res, loginPage(ctx, loginName, error?.(ctx.t), link, passkey, options));
  }
}
