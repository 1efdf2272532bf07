import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response, Router } from 'express';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { DomainError } from '../common/errors/domain-error.js';
import { logins } from '../common/metrics/metrics.js';
import { FactorsService } from '../users/factors/factors.service.js';
import type { FoundPasskey } from '../users/factors/factors.service.js';
import { verifyAssertion, verifyRegistration } from '../users/factors/passkeys.js';
import { isActive } from '../users/rules/user-state.js';
import { mayServe } from './client-kind.js';
import { LOGIN_UI_PREFIX } from './ui-paths.js';
import { isPasskeyMethod, passkeyMethods, sessionSteps } from './authentication-methods.js';
import { LoginInteractions } from './login-interactions.js';
import { LoginPolicies } from './login-policies.js';
import type { Interaction } from './login-interactions.js';
import { LoginUsers } from './login-users.js';
import type { LoginUser } from './login-users.js';
import { loginPage, passkeysOnly } from './login.views.js';
import { passkeyRecoveryPath } from './passkey-links.router.js';
import { passkeyRecoveryLink } from './passkey-links.views.js';
import { PASSKEY_ASSETS } from './passkey-assets.js';
import { parseJson, userHandleMatches } from './passkey-responses.js';
import { PENDING, owner, pendingOf, signingIn } from './pending-sign-in.js';
import type { PendingSignIn } from './pending-sign-in.js';
import { SecondFactorPages } from './second-factor.pages.js';
import { SignInAttempts, ipOf } from './sign-in-attempts.js';
import { SignInFlow } from './sign-in-flow.js';
import { SIGN_IN_PROTOCOL } from './sign-in-protocol.js';
import type { SignInProtocol } from './sign-in-protocol.js';

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
    @Inject(SIGN_IN_PROTOCOL) private readonly protocol: SignInProtocol,
    private readonly interactions: LoginInteractions,
    private readonly pages: SecondFactorPages,
    private readonly flow: SignInFlow,
    private readonly attempts: SignInAttempts,
    private readonly factors: FactorsService,
    private readonly policies: LoginPolicies,
    private readonly loginUsers: LoginUsers,
  ) {}

  routes(router: Router): void {
    this.interactions.postSteps(router, {
      code: (req, res, i) => this.code(req, res, i),
      passkey: (req, res, i) => this.passkey(req, res, i),
      'enrol/totp': (req, res, i) => this.startTotp(req, res, i),
      'enrol/totp/confirm': (req, res, i) => this.confirmTotp(req, res, i),
      'enrol/passkey': (req, res, i) => this.registerPasskey(req, res, i),
      'enrol/skip': (req, res, i) => this.skip(req, res, i),
      continue: (req, res, i) => this.continueAfterCodes(req, res, i),
    });
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
    await this.flow.afterFirstFactor(req, res, interaction, user, sessionSteps(session.amr ?? ['pwd']));
    return true;
  }

  /** A TOTP or recovery code as the second factor. */
  private async code(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending || pending.enrol) return this.flow.restart(res, interaction);
    if (!(await this.attempts.counted(req, res, interaction, pending))) return;
    const result = await this.factors.checkCode(owner(pending), String(req.body.code ?? ''), this.attempts.source(req));
    if (!result.ok) return this.refused(req, res, interaction, pending);
    await this.attempts.release(req, pending.loginName);
    return this.flow.complete(req, res, interaction, pending, ['otp']);
  }

  /**
   * A passkey assertion: the second factor of a pending sign-in (a passkey of that user only), or a
   * sign-in of its own from the login page (any passkey of this relying party, of a user the client
   * may sign in). Only where the user's organization allows passkeys, and never a passkey after a passkey.
   */
  private async passkey(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    // Enrolling is no moment for a sign-in: the enrolment page shows again.
    if (pending?.enrol || pending?.recoveryShown) return this.flow.restart(res, interaction);
    const response = parseJson<AuthenticationResponseJSON>(req.body.response);
    const found = typeof response?.id === 'string' ? await this.factors.findPasskey(response.id) : undefined;
    const candidate = pending ? undefined : await this.passkeyOwner(interaction, found);
    const user = pending ?? (candidate && signingIn(candidate));
    if (!user || !(await this.passkeyAllowed(interaction, user))) {
      if (pending) return this.refused(req, res, interaction, pending, true);
      // Nobody to count the attempt against: the IP's rate limit counts it.
      const retryAfter = await this.attempts.rateLimiter.reserve(ipOf(req));
      logins.inc({ result: retryAfter === undefined ? 'failure' : 'rate_limited' });
      return this.loginRefused(req, res, interaction, retryAfter);
    }
    if (!(await this.attempts.counted(req, res, interaction, user))) return;
    let userVerified = false;
    const result = await this.factors.checkPasskey(owner(user), found, this.attempts.source(req), async () => {
      if (!found || !response || found.userId !== user.userId || !userHandleMatches(response, user.userId)) return undefined;
      const verified = await verifyAssertion(this.pages.rp, response, found.passkey, this.pages.challenges.checker(interaction.uid, 'sign-in'));
      userVerified = verified?.userVerified ?? false;
      return verified?.newSignCount;
    });
    if (!result.ok || !found) return pending ? this.refused(req, res, interaction, pending, true) : this.loginRefused(req, res, interaction);
    await this.attempts.release(req, user.loginName);
    const methods = passkeyMethods(found.multiDevice, userVerified);
    if (pending) return this.flow.complete(req, res, interaction, pending, methods);
    if (!candidate) return this.loginRefused(req, res, interaction);
    logins.inc({ result: 'success' });
    return this.flow.afterFirstFactor(req, res, interaction, candidate, methods);
  }

  /** The owner of a passkey presented on the login page, when it is a user this client may sign in. */
  private async passkeyOwner(interaction: Interaction, found: FoundPasskey | undefined): Promise<LoginUser | undefined> {
    const candidate = found ? await this.loginUsers.findById(found.userId) : null;
    if (!candidate || candidate.type !== 'human' || !isActive(candidate)) return undefined;
    if (!mayServe(await this.protocol.clientOf(interaction), candidate)) return undefined;
    return candidate;
  }

  /** The organization allows passkeys, and the sign-in's first factor was not one (it would not be a second). */
  private async passkeyAllowed(interaction: Interaction, pending: PendingSignIn): Promise<boolean> {
    return !pending.methods.some(isPasskeyMethod) && (await this.policies.of(interaction, pending.orgId)).passkeys;
  }

  private async startTotp(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.enrol) return this.flow.restart(res, interaction);
    const { factorId, secret } = await this.factors.startTotp(owner(pending));
    const next = { ...pending, totpFactorId: factorId };
    await this.interactions.keep(interaction, PENDING, next);
    return this.pages.totp(req, res, interaction, next, secret);
  }

  private async confirmTotp(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.enrol || !pending.totpFactorId || req.body.factorId !== pending.totpFactorId) return this.flow.restart(res, interaction);
    if (!(await this.attempts.counted(req, res, interaction, pending))) return;
    const result = await this.factors.confirmTotp(owner(pending), pending.totpFactorId, String(req.body.code ?? ''), this.attempts.source(req));
    if (!result.ok) return this.refused(req, res, interaction, pending);
    await this.attempts.release(req, pending.loginName);
    return this.enrolled(req, res, interaction, pending, ['otp']);
  }

  private async registerPasskey(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.enrol || !(await this.policies.of(interaction, pending.orgId)).passkeys) return this.flow.restart(res, interaction);
    const response = parseJson<RegistrationResponseJSON>(req.body.response);
    const passkey = response ? await verifyRegistration(this.pages.rp, response, this.pages.challenges.checker(interaction.uid, 'register')) : undefined;
    const t = (await this.interactions.formContext(req, interaction, 'passkey')).t;
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
    if ((await this.factors.summary(pending.userId)).recoveryCodes) return this.flow.complete(req, res, interaction, next);
    const codes = await this.factors.newRecoveryCodes(owner(pending));
    await this.interactions.keep(interaction, PENDING, { ...next, recoveryShown: true });
    return this.pages.recoveryCodes(req, res, interaction, codes);
  }

  private async skip(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.enrol || pending.required) return this.flow.restart(res, interaction);
    await this.factors.skipOffer(pending.userId);
    return this.flow.complete(req, res, interaction, pending);
  }

  private async continueAfterCodes(req: Request, res: Response, interaction: Interaction): Promise<void> {
    const pending = pendingOf(interaction);
    if (!pending?.recoveryShown) return this.flow.restart(res, interaction);
    return this.flow.complete(req, res, interaction, pending);
  }

  private async refused(req: Request, res: Response, interaction: Interaction, pending: PendingSignIn, passkey = false): Promise<void> {
    logins.inc({ result: 'failure' });
    const t = (await this.interactions.formContext(req, interaction, 'code')).t;
    res.status(401);
    return this.pages.render(req, res, interaction, pending, passkey ? t.passkeyRefused : t.invalidCode);
  }

  /** A passkey sign-in from the login page failed: the login page again, with the passkey offered. */
  private async loginRefused(req: Request, res: Response, interaction: Interaction, retryAfter?: number): Promise<void> {
    const ctx = await this.interactions.formContext(req, interaction, 'login');
    if (retryAfter !== undefined) res.status(429).set('Retry-After', String(retryAfter));
    else res.status(401);
    const message = retryAfter !== undefined ? ctx.t.tooManyAttempts(Math.ceil(retryAfter / 60)) : ctx.t.passkeyRefused;
    const passkey = await this.pages.loginPasskey(req, interaction, true, 'on-action');
    // A passkeys-only organization's page has no password field here either (docs/passwordless.md).
    const orgId = (await this.protocol.clientOf(interaction))?.portcullis_org_id;
    if (orgId && (await this.policies.of(interaction, orgId)).passwordless === 'required') {
      const options = passkeysOnly({ password: 'none', idps: [], idpAction: '', upstreams: [] });
      return this.interactions.render(res, () =>
        loginPage(ctx, '', message, passkeyRecoveryLink(ctx.t, passkeyRecoveryPath(interaction.uid)), passkey, options),
      );
    }
    return this.interactions.render(res, () => loginPage(ctx, '', message, '', passkey));
  }
}
