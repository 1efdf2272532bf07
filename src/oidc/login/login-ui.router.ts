import { Inject, Injectable, Logger } from '@nestjs/common';
import express from 'express';
import type { Request, Response, Router } from 'express';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { LoginPolicyService } from '../../users/login-policy.service.js';
import { registrationProblems } from '../../users/registration.rules.js';
import { LoginNamesService } from '../../users/login-names.service.js';
import { UsersService } from '../../users/users.service.js';
import { mayServe } from '../account/organization-boundary.js';
import { ProviderHolder } from '../provider/provider.holder.js';
import { LOGIN_UI_PREFIX } from '../provider/oidc.routes.js';
import { KNOWN_ACCOUNTS_COOKIE, KnownAccounts } from './known-accounts.js';
import type { KnownAccount } from './known-accounts.js';
import { errorPage, loginPage, registerPage, selectAccountPage } from './login.views.js';
import type { FormContext } from './login.views.js';
import { LoginRateLimiter } from './login-rate-limiter.js';
import { logins } from '../../common/metrics/metrics.js';
import { RegistrationGate } from './registration-gate.js';
import { LoginUsers } from './login-users.js';
import { CsrfError, InteractionMismatchError, securityHeaders } from './login-ui.http.js';
import { chooseLocale, messages } from './messages.js';
import { PasswordLoginService } from './password-login.service.js';
import type { PasswordLoginResult } from './password-login.service.js';
import { VerifierBusyError } from '../../common/crypto/password-hashes/password-hashes.js';
import { isActive } from '../../users/rules/user-state.js';

interface Interaction {
  uid: string;
  prompt: { name: string; reasons: string[] };
  params: Record<string, string | undefined>;
  session?: { accountId?: string };
  returnTo: string;
  result?: Record<string, unknown>;
  /** Saves the interaction for the rest of its lifetime (oidc-provider's Interaction model). */
  persist(): Promise<unknown>;
}

/**
 * The server-rendered login UI (docs/product-rules.md, "OpenID Connect and OAuth") under /ui/login/{uid}: login name and password, account
 * selection, registration (prompt=create). It answers oidc-provider's interactions; plain forms, no
 * JavaScript; every form carries a CSRF value bound to the interaction (whose cookie the provider checks).
 */
@Injectable()
export class LoginUiRouter {
  private readonly logger = new Logger('login-ui');
  private readonly known: KnownAccounts;
  private readonly rateLimiter: LoginRateLimiter;
  private readonly loginUsers: LoginUsers;
  private readonly registration: RegistrationGate;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly holder: ProviderHolder,
    private readonly passwords: PasswordLoginService,
    private readonly users: UsersService,
    private readonly loginNames: LoginNamesService,
    private readonly hasher: SecretHasher,
    private readonly dataSource: DataSource,
    uow: UnitOfWork,
    loginPolicies: LoginPolicyService,
  ) {
    this.registration = new RegistrationGate(holder, loginPolicies);
    this.known = new KnownAccounts(hasher);
    this.rateLimiter = new LoginRateLimiter(dataSource, uow, hasher, config.loginRateLimit);
    this.loginUsers = new LoginUsers(dataSource);
  }

  router(): Router {
    const router = express.Router();
    const form = express.urlencoded({ extended: false, limit: '16kb' });
    const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response) => {
      securityHeaders(res);
      fn(req, res).catch((error: unknown) => this.fail(req, res, error));
    };
    router.get(`${LOGIN_UI_PREFIX}/:uid`, wrap((req, res) => this.show(req, res)));
    router.post(`${LOGIN_UI_PREFIX}/:uid/login`, form, wrap((req, res) => this.login(req, res)));
    router.post(`${LOGIN_UI_PREFIX}/:uid/select`, form, wrap((req, res) => this.select(req, res)));
    router.post(`${LOGIN_UI_PREFIX}/:uid/register`, form, wrap((req, res) => this.register(req, res)));
    return router;
  }

  private async show(req: Request, res: Response): Promise<void> {
    const interaction = await this.details(req, res);
    const { prompt, params } = interaction;
    if (prompt.name === 'consent') return this.finish(req, res, interaction, {});
    if (prompt.name === 'create' || req.query.form === 'register') {
      if (!(await this.registration.offered(interaction.params.client_id ?? '')).allowed) return this.registrationClosed(req, res);
      return this.render(res, registerPage(this.formContext(req, interaction, 'register'), {}));
    }
    const accounts = this.known.parse(req.headers.cookie);
    if (accounts.length > 0 && req.query.form !== 'login' && this.selectionAllowed(interaction)) {
      return this.render(res, selectAccountPage(this.formContext(req, interaction, 'select'), accounts.map((a) => a.loginName), `?form=login`));
    }
    return this.render(res, loginPage(this.formContext(req, interaction, 'login'), params.login_hint ?? '', undefined, await this.registerLink(interaction)));
  }

  private async login(req: Request, res: Response): Promise<void> {
    const interaction = await this.details(req, res);
    this.assertCsrf(req, interaction);
    const loginName = String(req.body.loginName ?? '');
    const ip = req.ip ?? req.socket.remoteAddress ?? '';
    const retryAfter = await this.rateLimiter.reserve(ip, loginName);
    if (retryAfter !== undefined) {
      // RFC 6585 §4: 429 with Retry-After; the password is not checked at all.
      logins.inc({ result: 'rate_limited' });
      const ctx = this.formContext(req, interaction, 'login');
      res.status(429).set('Retry-After', String(retryAfter));
      return this.render(res, loginPage(ctx, loginName, ctx.t.tooManyAttempts(Math.ceil(retryAfter / 60)), await this.registerLink(interaction)));
    }
    let result: PasswordLoginResult;
    try {
      result = await this.passwords.check(loginName, String(req.body.password ?? ''), { clientIpHash: this.rateLimiter.ipHash(ip) });
    } catch (error) {
      if (!(error instanceof VerifierBusyError)) throw error;
      // RFC 9110 §15.6.4: not checked, not counted; come back shortly.
      await this.rateLimiter.release(ip, loginName);
      res.status(503).set('Retry-After', String(error.retryAfterSeconds));
      const ctx = this.formContext(req, interaction, 'login');
      return this.render(res, loginPage(ctx, loginName, ctx.t.busy, await this.registerLink(interaction)));
    }
    if (!result.ok) {
      // One answer for a wrong password and for an unknown, inactive or locked user (SECURITY.md).
      const ctx = this.formContext(req, interaction, 'login');
      res.status(401);
      return this.render(res, loginPage(ctx, loginName, ctx.t.invalidCredentials, await this.registerLink(interaction)));
    }
    await this.rateLimiter.release(ip, loginName);
    // Sign-in stays inside the organization: never a session of another organization's user for this client.
    if (!mayServe(await this.holder.provider.Client.find(interaction.params.client_id ?? ''), result.user)) {
      const ctx = this.formContext(req, interaction, 'login');
      res.status(403);
      return this.render(res, errorPage(ctx.locale, ctx.t, 'access_denied', 'this application signs in only users of its own organization'));
    }
    const account: KnownAccount = {
      userId: result.user.id,
      loginName: result.user.loginName,
      authTime: Math.floor(Date.now() / 1000),
    };
    return this.finish(req, res, interaction, { login: { accountId: account.userId, ts: account.authTime, amr: ['pwd'] } }, account);
  }

  private async select(req: Request, res: Response): Promise<void> {
    const interaction = await this.details(req, res);
    this.assertCsrf(req, interaction);
    const account = this.known.parse(req.headers.cookie).find((a) => a.loginName === req.body.loginName);
    if (!account || !this.selectionAllowed(interaction)) {
      return this.render(res, loginPage(this.formContext(req, interaction, 'login'), String(req.body.loginName ?? ''), undefined, await this.registerLink(interaction)));
    }
    // The cookie only remembers; the server decides. Without a password, only the account of the
    // browser's live server-side session can be picked: once that session expired, was revoked or was
    // replaced by another account's sign-in, the password is asked again, the login name filled in.
    if (interaction.session?.accountId !== account.userId) {
      const ctx = this.formContext(req, interaction, 'login');
      return this.render(res, loginPage(ctx, account.loginName, ctx.t.sessionEnded, await this.registerLink(interaction)));
    }
    // The account must still be able to sign in (state read on use).
    const user = await this.loginUsers.find(account.loginName);
    if (!user || user.id !== account.userId || !isActive(user)) {
      const ctx = this.formContext(req, interaction, 'login');
      return this.render(res, loginPage(ctx, account.loginName, ctx.t.invalidCredentials, await this.registerLink(interaction)));
    }
    return this.finish(req, res, interaction, { login: { accountId: account.userId, ts: account.authTime, amr: ['pwd'] } }, account);
  }

  /**
   * Self-registration (OpenID Connect Prompt Create 1.0) into the client's organization, where its login
   * policy offers it: rate-limited per client IP like password checks (every attempt counts, so names
   * cannot be probed at speed) and validated like the management API, a little stricter since anyone
   * may register (users/registration.rules.ts). A refused attempt creates nothing.
   */
  private async register(req: Request, res: Response): Promise<void> {
    const interaction = await this.details(req, res);
    this.assertCsrf(req, interaction);
    const { orgId, allowed } = await this.registration.offered(interaction.params.client_id ?? '');
    if (!orgId || !allowed) return this.registrationClosed(req, res);
    const ctx = this.formContext(req, interaction, 'register');
    const values = Object.fromEntries(['firstName', 'lastName', 'email', 'userName'].map((k) => [k, String(req.body[k] ?? '').trim()]));
    const retryAfter = await this.rateLimiter.reserve(req.ip ?? req.socket.remoteAddress ?? '');
    if (retryAfter !== undefined) {
      res.status(429).set('Retry-After', String(retryAfter));
      return this.render(res, registerPage(ctx, values, ctx.t.tooManyAttempts(Math.ceil(retryAfter / 60))));
    }
    const password = String(req.body.password ?? '');
    const problems = registrationProblems({ userName: values.userName, firstName: values.firstName, lastName: values.lastName, email: values.email, password });
    try {
      if (problems.length > 0) throw DomainError.invalid('the registration is invalid', problems);
      const user = await this.users.createHuman(null, orgId, { userName: values.userName, firstName: values.firstName, lastName: values.lastName, email: values.email, password });
      const account = { userId: user.id, loginName: await this.loginNames.loginNameOf(user), authTime: Math.floor(Date.now() / 1000) };
      return this.finish(req, res, interaction, { login: { accountId: user.id, ts: account.authTime, amr: ['pwd'] } }, account);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      res.status(400);
      const detail = [error.message, ...error.details.map((d) => d.message)].join(' ');
      return this.render(res, registerPage(ctx, values, `${ctx.t.registrationFailed} ${detail}`));
    }
  }

  private registrationClosed(req: Request, res: Response): void {
    const locale = chooseLocale(undefined, req.headers['accept-language']);
    res.status(403);
    this.render(res, errorPage(locale, messages(locale), 'access_denied', 'this organization does not offer registration'));
  }

  /**
   * Completes the interaction. Every custom prompt counts as answered by this step, and consent is
   * given on the user's behalf: clients are registered by this instance's administrators (docs/product-rules.md, "OpenID Connect and OAuth").
   */
  private async finish(req: Request, res: Response, interaction: Interaction, result: Record<string, unknown>, account?: KnownAccount) {
    if (account) {
      const accounts = this.known.add(this.known.parse(req.headers.cookie), account);
      res.cookie(KNOWN_ACCOUNTS_COOKIE, this.known.serialize(accounts), { httpOnly: true, sameSite: 'lax', path: '/', secure: this.config.publicUrl.startsWith('https:'), maxAge: 90 * 24 * 3600 * 1000 });
    }
    const accountId = (result.login as { accountId: string } | undefined)?.accountId ?? interaction.session?.accountId;
    const grantId = accountId ? await this.grantFor(interaction, accountId) : undefined;
    // What provider.interactionFinished does, on the interaction this request already loaded (it would
    // look it up again): store the result, send the browser back to the authorization endpoint.
    interaction.result = { ...result, select_account: {}, create: {}, ...(grantId ? { consent: { grantId } } : {}) };
    await interaction.persist();
    res.status(303).location(interaction.returnTo).set('Content-Length', '0').end();
  }

  /** The grant of what the client requested (the same rule as loadExistingGrant in provider.factory.ts). */
  private async grantFor(interaction: Interaction & { grantId?: string }, accountId: string): Promise<string> {
    const { Grant } = this.holder.provider;
    const sameAccount = interaction.session?.accountId === accountId;
    const existing = sameAccount && interaction.grantId ? await Grant.find(interaction.grantId) : undefined;
    const grant = existing ?? new Grant({ clientId: interaction.params.client_id, accountId });
    grant.addOIDCScope(interaction.params.scope ?? 'openid');
    return grant.save();
  }

  /** Choosing a remembered account is no re-authentication: not for prompt=login, max_age or a hint. */
  private selectionAllowed(interaction: Interaction): boolean {
    if (interaction.prompt.name === 'select_account') return true;
    return interaction.prompt.reasons.every((r) => r === 'no_session') && !interaction.params.login_hint;
  }

  /**
   * The interaction of this browser (oidc-provider finds it by its cookie). The uid in the path must
   * name that same interaction: a page is never shown, nor a form accepted, under another uid.
   */
  private async details(req: Request, res: Response): Promise<Interaction> {
    const interaction: Interaction = await this.holder.provider.interactionDetails(req, res);
    if (interaction.uid !== req.params.uid) throw new InteractionMismatchError();
    return interaction;
  }

  private formContext(req: Request, interaction: Interaction, step: string): FormContext {
    const locale = chooseLocale(interaction.params.ui_locales, req.headers['accept-language']);
    return { action: `${LOGIN_UI_PREFIX}/${interaction.uid}/${step}`, csrf: this.csrfFor(interaction), t: messages(locale), locale };
  }

  /** The link to the registration form, where the client's organization offers registration. */
  private async registerLink(interaction: Interaction): Promise<string> {
    if (!(await this.registration.offered(interaction.params.client_id ?? '')).allowed) return '';
    const t = messages(chooseLocale(interaction.params.ui_locales, undefined));
    return `<p><a href="${LOGIN_UI_PREFIX}/${interaction.uid}?form=register">${t.register}</a></p>`;
  }

  private csrfFor(interaction: Interaction): string {
    return this.hasher.hash(`csrf:${interaction.uid}`);
  }

  private assertCsrf(req: Request, interaction: Interaction): void {
    const sent = typeof req.body?.csrf === 'string' ? req.body.csrf : '';
    if (!this.hasher.matches(`csrf:${interaction.uid}`, sent)) throw new CsrfError();
  }

  /**
   * The page in one `end`, Content-Length set by Node: Express's `send` would also hash the body for
   * an ETag, useless on pages that are never cached (Cache-Control: no-store).
   */
  private render(res: Response, html: string): void {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(html);
  }

  private fail(req: Request, res: Response, error: unknown): void {
    const known = error as { name?: string; error?: string; status?: number; error_description?: string };
    const locale = chooseLocale(undefined, req.headers['accept-language']);
    if (error instanceof CsrfError) {
      res.status(403);
      this.render(res, errorPage(locale, messages(locale), 'invalid_request', 'the form has expired; start again'));
      return;
    }
    if (known.error) {
      // oidc-provider errors (e.g. an expired interaction or a missing interaction cookie).
      res.status(known.status ?? 400);
      this.render(res, errorPage(locale, messages(locale), known.error, known.error_description));
      return;
    }
    this.logger.error(`login UI failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    res.status(500);
    this.render(res, errorPage(locale, messages(locale), 'server_error'));
  }
}
