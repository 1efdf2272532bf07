import { Injectable } from '@nestjs/common';
import express from 'express';
import type { Request, Response, Router } from 'express';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { DomainError } from '../common/errors/domain-error.js';
import { logins } from '../common/metrics/metrics.js';
import { FactorsService } from '../users/factors/factors.service.js';
import type { FoundPasskey } from '../users/factors/factors.service.js';
import { verifyAssertion, verifyRegistration } from '../users/factors/passkeys.js';
import { PasswordChecks } from '../users/password-checks.service.js';
import { isActive } from '../users/rules/user-state.js';
import { mayServe } from '../oidc/account/organization-boundary.js';
import { ProviderHolder } from '../oidc/provider/provider.holder.js';
import { LOGIN_UI_PREFIX } from '../oidc/provider/oidc.routes.js';
import { ACR_MFA, authenticationOf, isPasskeyMethod, passkeyMethods, reportedAuthentication, sessionSteps } from './authentication-methods.js';
import { LoginInteractions } from './login-interactions.js';
import { LoginPolicies } from './login-policies.js';
import type { Interaction } from './login-interactions.js';
import { LoginRateLimiter } from './login-rate-limiter.js';
import { LoginUsers } from './login-users.js';
import type { LoginUser } from './login-users.js';
import { loginPage } from './login.views.js';
import { PASSKEY_ASSETS } from './passkey-assets.js';
import { parseJson, userHandleMatches } from './passkey-responses.js';
import { PENDING, owner, pendingOf, requestsMfa, signingIn } from './pending-sign-in.js';
import type { PendingSignIn } from './pending-sign-in.js';
import { SecondFactorPages } from './second-factor.pages.js';
import { AccountActions } from './owed-actions.js';

/**
 * The second step of the login UI (docs/product-rules.md, "Multi-factor sign-in"): after the first
 * factor, the organization's login policy and the user's factors decide whether a second factor is
 * asked (TOTP, recovery code or passkey), offered for enrolment (policy `optional`, declinable) or
 * required to be enrolled (`required`); `acr_values` asking for it, and the login prompt's
 * `second_factor` check, ask it within an SSO session (step-up). Also the passkey sign-in, with
 * a discoverable credential as the only factor. Every code and passkey check is counted toward the
 * lockout and the rate limits like a password.
 */
@Injectable()
export class SecondFactorUi {
  constructor(
    private readonly interactions: LoginInteractions,
    readonly pages: SecondFactorPages,
    private readonly factors: FactorsService,
    private readonly policies: LoginPolicies,
    private readonly holder: ProviderHolder,
    private readonly rateLimiter: LoginRateLimiter,
    private readonly checks: PasswordChecks,
    private readonly actions: AccountActions,
    private readonly loginUsers: LoginUsers,
  ) {}

  routes(router: Router, wrap: (fn: (req: Request, res: Response) => Promise<void>) => express.RequestHandler): void {
    const form = express.urlencoded({ extended: false, limit: '32kb' });
    const steps: Record<string, (req: Request, res: Response, interaction: Interaction) => Promise<void>> = {
      code: (req, res, i) => this.code(req, res, i),
      passkey: (req, res, i) => this.passkey(req, res, i),
      'enrol/totp': (req, res, i) => this.startTotp(req, res, i),
      'enrol/totp/confirm': (req, res, i) => this.confirmTotp(req, res, i),
      'enrol/passkey': (req, res, i) => this.registerPasskey(req, res, i),
      'enrol/skip': (req, res, i) => this.skip(req, res, i),
      continue: (req, res, i) => this.continueAfterCodes(req, res, i),
      ...this.actions.steps({
        complete: (req, res, i, pending) => this.complete(req, res, i, pending, []),
        counted: (req, res, i, pending) => this.counted(req, res, i, pending),
      }),
    };
    for (const [path, step] of Object.entries(steps)) {
      router.post(`${LOGIN_UI_PREFIX}/:uid/${path}`, form, wrap(async (req, res) => {
        const interaction = await this.interactions.details(req, res);
        this.interactions.assertCsrf(req, interaction);
        await step(req, res, interaction);
      }));
    }
    for (const [name, body] of Object.entries(PASSKEY_ASSETS)) {
      router.get(`${LOGIN_UI_PREFIX}/assets/${name}`, (_req, res) => {
        res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
        res.setHeader('Cache-Control', 'public, max-age=3600');
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.end(body);
      });
    }
  }

  /**
   * After a first factor (a password; a passkey without user verification): completes the sign-in, or
   * keeps it pending and sends the browser to the second step the policy and the user's factors ask.
   */
  async afterFirstFactor(req: Request, res: Response, interaction: Interaction, user: LoginUser, methods: string[], upstream: string[] = []): Promise<void> {
    const policy = await this.policies.of(interaction, user.orgId);
    const pending = signingIn(user, methods, upstream);
    if (policy.mfa === 'off' || authenticationOf(methods).acr === ACR_MFA) return this.complete(req, res, interaction, pending, []);
    const factors = await this.factors.summary(user.id);
    const usable = factors.totp || factors.recoveryCodes || (policy.passkeys && !methods.some(isPasskeyMethod) && factors.passkeys.length > 0);
    const wanted = policy.mfa === 'required' || requestsMfa(interaction);
    if (usable) return this.toStep(req, res, interaction, pending);
    if (wanted) return this.toStep(req, res, interaction, { ...pending, enrol: true, required: true });
    if (factors.offerSkipped) return this.complete(req, res, interaction, pending, []);
    return this.toStep(req, res, interaction, { ...pending, enrol: true });
  }

  /**
   * The page of a pending step, or of a step-up: true when this step answers the request. A session
   * whose second factor is asked (the login prompt's only reason is `second_factor`) needs no password
   * again: its user continues with the second factor.
   */
  async show(req: Request, res: Response, interaction: Interaction): Promise<boolean> {
    const pending = pendingOf(interaction);
    if (pending) {
      await this.pages.render(req, res, interaction, pending);
      return true;
    }
    const { prompt, session } = interaction;
    if (prompt.name !== 'login' || !session?.accountId || prompt.reasons.some((r) => r !== 'second_factor')) return false;
    const user = await this.loginUsers.findById(session.accountId);
    if (!user || user.type !== 'human' || !isActive(user)) return false;
    await this.afterFirstFactor(req, res, interaction, user, sessionSteps(session.amr ?? ['pwd']));
    return true;
  }

  /** After a form post, a redirect to the step's page (reloading it posts nothing again); on that page itself, the step. */
  private async toStep(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn): Promise<void> {
    await this.interactions.keep(interaction, PENDING, pending);
    if (req.method === 'GET') return this.pages.render(req, res, interaction, pending);
    res.status(303).location(`${LOGIN_UI_PREFIX}/${interaction.uid}`).set('Content-Length', '0').end();
  }

  /** A TOTP or recovery code as the second factor. */
  private async code(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending || pending.enrol) return this.restart(res, interaction);
    if (!(await this.counted(req, res, interaction, pending))) return;
    const result = await this.factors.checkCode(owner(pending), String(req.body.code ?? ''), this.source(req));
    if (!result.ok) return this.refused(req, res, interaction, pending);
    await this.rateLimiter.release(this.ip(req), pending.loginName);
    return this.complete(req, res, interaction, pending, ['otp']);
  }

  /**
   * A passkey assertion: the second factor of a pending sign-in (a passkey of that user only), or a
   * sign-in of its own from the login page (any passkey of this relying party, of a user the client
   * may sign in). Only where the user's organization allows passkeys, and never a passkey after a passkey.
   */
  private async passkey(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    // Enrolling is no moment for a sign-in: the enrolment page shows again.
    if (pending?.enrol || pending?.recoveryShown) return this.restart(res, interaction);
    const response = parseJson<AuthenticationResponseJSON>(req.body.response);
    const found = typeof response?.id === 'string' ? await this.factors.findPasskey(response.id) : undefined;
    const candidate = pending ? undefined : await this.passkeyOwner(interaction, found);
    const user = pending ?? (candidate && signingIn(candidate));
    if (!user || !(await this.passkeyAllowed(interaction, user))) {
      if (pending) return this.refused(req, res, interaction, pending, true);
      // Nobody to count the attempt against: the IP's rate limit counts it.
      const retryAfter = await this.rateLimiter.reserve(this.ip(req));
      logins.inc({ result: retryAfter === undefined ? 'failure' : 'rate_limited' });
      return this.loginRefused(req, res, interaction, retryAfter);
    }
    if (!(await this.counted(req, res, interaction, user))) return;
    let userVerified = false;
    const result = await this.factors.checkPasskey(owner(user), found, this.source(req), async () => {
      if (!found || !response || found.userId !== user.userId || !userHandleMatches(response, user.userId)) return undefined;
      const verified = await verifyAssertion(this.pages.rp, response, found.passkey, this.pages.challenges.checker(interaction.uid, 'sign-in'));
      userVerified = verified?.userVerified ?? false;
      return verified?.newSignCount;
    });
    if (!result.ok || !found) return pending ? this.refused(req, res, interaction, pending, true) : this.loginRefused(req, res, interaction);
    await this.rateLimiter.release(this.ip(req), user.loginName);
    const methods = passkeyMethods(found.multiDevice, userVerified);
    if (pending) return this.complete(req, res, interaction, pending, methods);
    if (!candidate) return this.loginRefused(req, res, interaction);
    logins.inc({ result: 'success' });
    return this.afterFirstFactor(req, res, interaction, candidate, methods);
  }

  /** The owner of a passkey presented on the login page, when it is a user this client may sign in. */
  private async passkeyOwner(interaction: Interaction, found: FoundPasskey | undefined): Promise<LoginUser | undefined> {
    const candidate = found ? await this.loginUsers.findById(found.userId) : null;
    if (!candidate || candidate.type !== 'human' || !isActive(candidate)) return undefined;
    if (!mayServe(await this.holder.provider.Client.find(interaction.params.client_id ?? ''), candidate)) return undefined;
    return candidate;
  }

  /** The organization allows passkeys, and the sign-in's first factor was not one (it would not be a second). */
  private async passkeyAllowed(interaction: Interaction, pending: PendingSignIn): Promise<boolean> {
    return !pending.methods.some(isPasskeyMethod) && (await this.policies.of(interaction, pending.orgId)).passkeys;
  }

  private async startTotp(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.enrol) return this.restart(res, interaction);
    const { factorId, secret } = await this.factors.startTotp(owner(pending));
    const next = { ...pending, totpFactorId: factorId };
    await this.interactions.keep(interaction, PENDING, next);
    return this.pages.totp(req, res, interaction, next, secret);
  }

  private async confirmTotp(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.enrol || !pending.totpFactorId || req.body.factorId !== pending.totpFactorId) return this.restart(res, interaction);
    if (!(await this.counted(req, res, interaction, pending))) return;
    const result = await this.factors.confirmTotp(owner(pending), pending.totpFactorId, String(req.body.code ?? ''), this.source(req));
    if (!result.ok) return this.refused(req, res, interaction, pending);
    await this.rateLimiter.release(this.ip(req), pending.loginName);
    return this.enrolled(req, res, interaction, pending, ['otp']);
  }

  private async registerPasskey(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.enrol || !(await this.policies.of(interaction, pending.orgId)).passkeys) return this.restart(res, interaction);
    const response = parseJson<RegistrationResponseJSON>(req.body.response);
    const passkey = response ? await verifyRegistration(this.pages.rp, response, this.pages.challenges.checker(interaction.uid, 'register')) : undefined;
    const t = this.interactions.formContext(req, interaction, 'passkey').t;
    if (!passkey) {
      res.status(400);
      return this.pages.render(req, res, interaction, pending, t.passkeyRefused);
    }
    try {
      await this.factors.addPasskey(owner(pending), passkey);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      res.status(409);
      return this.pages.render(req, res, interaction, pending, t.passkeyRefused);
    }
    return this.enrolled(req, res, interaction, pending, passkeyMethods(passkey.multiDevice, passkey.userVerified));
  }

  /** A first factor was enrolled: recovery codes are made and shown once, unless the user has some. */
  private async enrolled(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn, methods: string[]): Promise<void> {
    const next: PendingSignIn = { ...pending, methods: [...pending.methods, ...methods], enrol: false, totpFactorId: undefined };
    if ((await this.factors.summary(pending.userId)).recoveryCodes) return this.complete(req, res, interaction, next, []);
    const codes = await this.factors.newRecoveryCodes(owner(pending));
    await this.interactions.keep(interaction, PENDING, { ...next, recoveryShown: true });
    return this.pages.recoveryCodes(req, res, interaction, codes);
  }

  private async skip(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.enrol || pending.required) return this.restart(res, interaction);
    await this.factors.skipOffer(pending.userId);
    return this.complete(req, res, interaction, pending, []);
  }

  private async continueAfterCodes(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.recoveryShown) return this.restart(res, interaction);
    return this.complete(req, res, interaction, pending, []);
  }

  /** Every factor the sign-in requires is done: the failed-check count starts over, and the provider gets the result. */
  private async complete(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn, methods: string[]): Promise<void> {
    // What the account must do before the application gets a code (DESIGN §13), once every factor is done.
    const owed = await this.actions.owed(req, res, interaction, { ...pending, methods: [...pending.methods, ...methods] });
    if (owed === 'refused') return;
    if (owed) return this.toStep(req, res, interaction, owed);
    await this.checks.signInCompleted(pending.userId);
    const { amr, acr } = reportedAuthentication([pending.methods, methods], pending.upstream);
    const ts = Math.floor(Date.now() / 1000);
    return this.interactions.finish(req, res, interaction, { accountId: pending.userId, ts, amr, acr }, { userId: pending.userId, loginName: pending.loginName, authTime: ts });
  }

  /** Counts an attempt against the rate limits; false when a limit answered 429 already. */
  private async counted(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn): Promise<boolean> {
    const retryAfter = await this.rateLimiter.reserve(this.ip(req), pending.loginName);
    if (retryAfter === undefined) return true;
    logins.inc({ result: 'rate_limited' });
    res.status(429).set('Retry-After', String(retryAfter));
    const t = this.interactions.formContext(req, interaction, 'code').t;
    await this.pages.render(req, res, interaction, pending, t.tooManyAttempts(Math.ceil(retryAfter / 60)));
    return false;
  }

  private async refused(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn, passkey = false): Promise<void> {
    logins.inc({ result: 'failure' });
    const t = this.interactions.formContext(req, interaction, 'code').t;
    res.status(401);
    return this.pages.render(req, res, interaction, pending, passkey ? t.passkeyRefused : t.invalidCode);
  }

  /** A passkey sign-in from the login page failed: the login page again, with the passkey offered. */
  private async loginRefused(req: Request, res: Response, interaction: Interaction, retryAfter?: number): Promise<void> {
    const ctx = this.interactions.formContext(req, interaction, 'login');
    if (retryAfter !== undefined) res.status(429).set('Retry-After', String(retryAfter));
    else res.status(401);
    const message = retryAfter !== undefined ? ctx.t.tooManyAttempts(Math.ceil(retryAfter / 60)) : ctx.t.passkeyRefused;
    return this.interactions.render(res, loginPage(ctx, '', message, '', await this.pages.loginPasskey(req, interaction, true, 'on-action')));
  }

  /** A step posted out of order (or after the interaction moved on): the current step is shown again. */
  private restart(res: Response, interaction: Interaction): void {
    res.status(303).location(`${LOGIN_UI_PREFIX}/${interaction.uid}`).set('Content-Length', '0').end();
  }

  private ip(req: Request): string {
    return req.ip ?? req.socket.remoteAddress ?? '';
  }

  private source(req: Request) {
    return { clientIpHash: this.rateLimiter.ipHash(this.ip(req)) };
  }
}

