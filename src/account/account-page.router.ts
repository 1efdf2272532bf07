import { Injectable } from '@nestjs/common';
import express from 'express';
import type { Request, Response, Router } from 'express';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { DomainError } from '../common/errors/domain-error.js';
import { statusOf } from '../common/errors/api-exception.filter.js';
import { FactorsService } from '../users/factors/factors.service.js';
import { registrationOptions, verifyRegistration } from '../users/factors/passkeys.js';
import { LoginPolicyService } from '../users/login-policy.service.js';
import type { LoginPolicy } from '../users/login-policy.service.js';
import { isActive } from '../users/rules/user-state.js';
import { AccountLinksService } from '../users/self-service/account-links.service.js';
import { OwnAccountService } from '../users/self-service/own-account.service.js';
import { UserSessionsService } from '../users/self-service/user-sessions.service.js';
import { UserDirectory } from '../users/user-directory.service.js';
import { UserLifecycleService } from '../users/user-lifecycle.service.js';
import type { UserEntity } from '../users/entities/user.entity.js';
import { IdentityProvidersService } from '../federation/identity-providers.service.js';
import { UserIdentitiesService } from '../federation/user-identities.service.js';
import { accountLinkTrip, RoundTrips } from '../federation/round-trips.js';
import { FederatedLoginUi } from '../federation/sign-in/federated-login.js';
import { contentSecurityPolicy } from '../login/login-page.headers.js';
import { settingsOf } from '../federation/upstream-oidc.js';
import { samlSettingsOf } from '../federation/saml/upstream-saml.js';
import { ACCOUNT_CLIENT_ID, ACCOUNT_SIGNED_IN_PATH } from '../oidc/provider/account-client.js';
import { ACCOUNT_UI_PREFIX, OIDC_ROUTES } from '../oidc/provider/oidc.routes.js';
import { ProviderHolder } from '../oidc/provider/provider.holder.js';
import { accountMessages, NOTICES } from './account-page.messages.js';
import type { AccountMessages, Notice } from './account-page.messages.js';
import { accountPage, backToAccount } from './account-page.views.js';
import type { AccountSection, AccountView } from './account-page.views.js';
import { AccountSessions } from './account-session.js';
import type { AccountSession } from './account-session.js';
import { ACR_MFA } from '../login/authentication-methods.js';
import { LoginInteractions } from '../login/login-interactions.js';
import { LoginRateLimiter } from '../login/login-rate-limiter.js';
import { LoginUsers } from '../login/login-users.js';
import type { LoginUser } from '../login/login-users.js';
import { errorPage, esc, page } from '../login/login.views.js';
import { chooseLocale, messages } from '../login/messages.js';
import type { Locale, Messages } from '../login/messages.js';
import { PasswordLoginService } from '../login/password-login.service.js';
import { passkeyForm, totpEnrolPage } from '../login/second-factor.views.js';
import { SecondFactorPages } from '../login/second-factor.pages.js';
import { totpUri } from '../users/factors/totp.js';
import { parseJson } from '../login/passkey-responses.js';

type Wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response) => void;

/** Who is on the page: the session, its user, the organization's login policy, the page's language. */
interface Visit {
  session: AccountSession;
  user: LoginUser;
  /** The same user's stored profile (names, language), read once per request. */
  profile: UserEntity;
  policy: LoginPolicy;
  locale: Locale;
  t: AccountMessages;
  lt: Messages;
}

type Change = (req: Request, res: Response, visit: Visit) => Promise<void>;

/**
 * The account page `/ui/account` (DESIGN §13; docs/account.md): a signed-in person's own profile, e-mail, password,
 * factors, sessions and linked identities, in the login UI's session. Without a session it starts a sign-in with the
 * static account client (account-client.ts). Every form carries a CSRF value bound to the session's secret id;
 * changes to how the person signs in (e-mail, factors, identities, a first password) need a sign-in of the last
 * 15 minutes. Every change runs through the same domain functions as an administrator's, the person as its editor.
 */
@Injectable()
export class AccountPageUi {
  constructor(
    private readonly holder: ProviderHolder,
    private readonly interactions: LoginInteractions,
    private readonly directory: UserDirectory,
    private readonly own: OwnAccountService,
    private readonly links: AccountLinksService,
    private readonly passwords: PasswordLoginService,
    private readonly lifecycle: UserLifecycleService,
    private readonly factors: FactorsService,
    private readonly factorPages: SecondFactorPages,
    private readonly policies: LoginPolicyService,
    private readonly userSessions: UserSessionsService,
    private readonly identities: UserIdentitiesService,
    private readonly idps: IdentityProvidersService,
    private readonly rateLimiter: LoginRateLimiter,
    private readonly federated: FederatedLoginUi,
    private readonly trips: RoundTrips,
    private readonly sessions: AccountSessions,
    private readonly loginUsers: LoginUsers,
  ) {}

  routes(router: Router, wrap: Wrap): void {
    const form = express.urlencoded({ extended: false, limit: '32kb' });
    router.get(ACCOUNT_UI_PREFIX, wrap((req, res) => this.show(req, res)));
    router.get(`${ACCOUNT_UI_PREFIX}/sign-in`, wrap(async (req, res) => this.signIn(req, res, req.query.again === '1')));
    router.get(ACCOUNT_SIGNED_IN_PATH, wrap(async (req, res) => this.signedIn(req, res)));
    router.get(`${ACCOUNT_UI_PREFIX}/identities/linked`, wrap(async (req, res) => this.linked(req, res)));
    const changes: [path: string, fresh: boolean, change: Change][] = [
      ['profile', false, (req, res, v) => this.changeProfile(req, res, v)],
      ['email', true, (req, res, v) => this.changeEmail(req, res, v)],
      ['email/verify', false, (req, res, v) => this.resendVerification(req, res, v)],
      ['password', false, (req, res, v) => this.changePassword(req, res, v)],
      ['factors/totp', true, (req, res, v) => this.startTotp(req, res, v)],
      ['factors/totp/confirm', true, (req, res, v) => this.confirmTotp(req, res, v)],
      ['factors/passkey', true, (req, res, v) => this.addPasskey(req, res, v)],
      ['factors/recovery-codes', true, (req, res, v) => this.newRecoveryCodes(req, res, v)],
      ['factors/remove', true, (req, res, v) => this.removeFactor(req, res, v)],
      ['sessions/end', false, (req, res, v) => this.endSession(req, res, v)],
      ['sessions/end-others', false, (req, res, v) => this.endOtherSessions(req, res, v)],
      ['identities/link', true, (req, res, v) => this.link(req, res, v)],
      ['identities/unlink', true, (req, res, v) => this.unlink(req, res, v)],
    ];
    for (const [path, fresh, change] of changes) {
      router.post(`${ACCOUNT_UI_PREFIX}/${path}`, form, wrap(async (req, res) => {
        const visit = await this.visit(req, res);
        if (!visit) return;
        if (!this.sessions.csrfMatches(visit.session, req.body.csrf)) return this.refuse(res, visit, 403, visit.t.invalidForm);
        if (fresh && !this.sessions.fresh(visit.session)) return this.render(res, visit, { status: 403, problem: { section: sectionOf(path), message: visit.t.signInAgain, reauth: true } });
        try {
          await change(req, res, visit);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          await this.render(res, visit, { status: statusOf(error.code), problem: { section: sectionOf(path), message: [error.message, ...error.details.map((d) => d.message)].join(' ') } });
        }
      }));
    }
  }

  private async show(req: Request, res: Response): Promise<void> {
    const visit = await this.visit(req, res);
    if (!visit) return;
    const done = String(req.query.done ?? '');
    const notice = done in NOTICES ? (visit.t[NOTICES[done as Notice]] as string) : undefined;
    await this.render(res, visit, { notice });
  }

  /** The session's user, or a sign-in started (none, or one without the second factor the organization requires). */
  private async visit(req: Request, res: Response): Promise<Visit | undefined> {
    const session = await this.sessions.current(req, res);
    const user = session && (await this.loginUsers.findById(session.accountId));
    if (!session || !user) {
      if (req.method === 'GET') return void this.signIn(req, res, false);
      return void this.interactions.refuse(req, res, 403, 'login_required', accountMessages(chooseLocale(undefined, req.headers['accept-language'])).invalidForm);
    }
    const profile = await this.directory.get(user.orgId, user.id);
    const locale = chooseLocale(profile.preferredLanguage?.toLowerCase().split(/[-_]/)[0], req.headers['accept-language']);
    const t = accountMessages(locale);
    if (user.type !== 'human' || !isActive(user)) return void this.interactions.refuse(req, res, 403, 'access_denied', t.accountUnusable);
    const policy = await this.policies.get(user.orgId);
    if (policy.mfa === 'required' && session.acr !== ACR_MFA) {
      if (req.method === 'GET') return void this.signIn(req, res, false);
      return void this.interactions.refuse(req, res, 403, 'interaction_required', t.signInAgain);
    }
    return { session, user, profile, policy, locale, t, lt: messages(locale) };
  }

  private signIn(req: Request, res: Response, again: boolean): void {
    const locale = chooseLocale(undefined, req.headers['accept-language']);
    res.status(303).location(this.sessions.signInUrl(again, locale)).set('Content-Length', '0').end();
  }

  /** The provider sends the browser back here; the code is not needed (the session is what the page reads). */
  private async signedIn(req: Request, res: Response): Promise<void> {
    if (typeof req.query.error === 'string') {
      const locale = chooseLocale(undefined, req.headers['accept-language']);
      res.status(400);
      return this.interactions.render(res, errorPage(locale, messages(locale), req.query.error, String(req.query.error_description ?? '')));
    }
    res.status(303).location(ACCOUNT_UI_PREFIX).set('Content-Length', '0').end();
  }

  private async render(res: Response, visit: Visit, extra: { status?: number; notice?: string; problem?: AccountView['problem'] } = {}): Promise<void> {
    const { session, user, profile, policy, locale, t, lt } = visit;
    const [factors, sessions, identities, idps] = await Promise.all([
      this.factors.list(user.id, user.orgId, user.id),
      this.userSessions.list(user.orgId, user.id),
      this.identities.list(user.id, user.orgId, user.id),
      this.idps.ofOrganization(user.orgId),
    ]);
    const { Client } = this.holder.provider;
    const appName = async (clientId: string) => (clientId === ACCOUNT_CLIENT_ID ? t.title : ((await Client.find(clientId))?.clientName ?? clientId));
    const view: AccountView = {
      locale,
      t,
      lt,
      csrf: this.sessions.csrf(session),
      user: {
        loginName: user.loginName,
        firstName: profile.givenName ?? '',
        lastName: profile.familyName ?? '',
        displayName: profile.displayName ?? '',
        preferredLanguage: profile.preferredLanguage ?? '',
        email: user.email,
        emailVerified: user.emailVerified,
        hasPassword: user.passwordHash !== null,
      },
      factors,
      passkey: policy.passkeys ? await this.passkeyForm(visit) : '',
      sessions: await Promise.all(
        sessions.map(async (s) => ({ ...s, applications: await Promise.all(s.clientIds.map(appName)), current: s.sessionId === session.uid })),
      ),
      identities: identities.map((i) => ({ ...i, idpName: idps.find((idp) => idp.id === i.idpId)?.name ?? i.idpId })),
      linkable: idps.filter((idp) => !identities.some((i) => i.idpId === idp.id)).map((idp) => ({ id: idp.id, name: idp.name })),
      notice: extra.notice,
      problem: extra.problem,
      signOutHref: `${OIDC_ROUTES.end_session}?${new URLSearchParams({ client_id: ACCOUNT_CLIENT_ID })}`,
    };
    res.status(extra.status ?? 200);
    // A link form's post is redirected to the identity provider: browsers apply `form-action` to that redirect too.
    const upstreams = idps.map((idp) => (idp.type === 'saml' ? samlSettingsOf(idp).ssoUrl : settingsOf(idp).issuer));
    res.setHeader('Content-Security-Policy', contentSecurityPolicy("'self'", upstreams));
    this.page(res, accountPage(view));
  }

  /** With the login UI's headers (set by its router): forms post to this origin only. */
  private page(res: Response, html: string): void {
    this.interactions.render(res, html);
  }

  private refuse(res: Response, visit: Visit, status: number, message: string): void {
    res.status(status);
    this.page(res, errorPage(visit.locale, visit.lt, 'invalid_request', message));
  }

  private done(res: Response, notice: Notice): void {
    res.status(303).location(`${ACCOUNT_UI_PREFIX}?done=${notice}`).set('Content-Length', '0').end();
  }

  private async changeProfile(req: Request, res: Response, { user }: Visit): Promise<void> {
    const text = (name: string) => String(req.body[name] ?? '').trim();
    await this.own.changeProfile(user.id, user.orgId, { firstName: text('firstName'), lastName: text('lastName'), displayName: text('displayName'), preferredLanguage: text('preferredLanguage') });
    this.done(res, 'profile');
  }

  /** Counted against the rate limits like "send again": every change mails a link to the address typed. */
  private async changeEmail(req: Request, res: Response, visit: Visit): Promise<void> {
    if (!(await this.withinLimits(req, res, visit, 'email'))) return;
    const { user } = visit;
    await this.own.changeEmail(user.id, user.orgId, String(req.body.email ?? '').trim());
    this.done(res, 'email');
  }

  /** Counted against the rate limits like a password attempt: every one sends a mail. */
  private async resendVerification(req: Request, res: Response, visit: Visit): Promise<void> {
    if (!(await this.withinLimits(req, res, visit, 'email'))) return;
    await this.links.sendVerification(visit.user.id);
    this.done(res, 'verification');
  }

  /**
   * The current password (counted like a sign-in's, so the page is no way around the lockout), then the new one
   * under the instance's policy. Every other session of the user ends; this one stays (DESIGN §13). A person without
   * a password (federated only) sets a first one after a recent sign-in instead.
   */
  private async changePassword(req: Request, res: Response, visit: Visit): Promise<void> {
    const { user, session, t } = visit;
    const problem = (message: string, status = 400) => this.render(res, visit, { status, problem: { section: 'password', message } });
    const password = String(req.body.password ?? '');
    if (password !== String(req.body.passwordConfirm ?? '')) return problem(t.passwordMismatch);
    if (user.passwordHash === null) {
      if (!this.sessions.fresh(session)) return this.render(res, visit, { status: 403, problem: { section: 'password', message: t.signInAgain, reauth: true } });
    } else {
      if (!(await this.withinLimits(req, res, visit, 'password'))) return;
      const checked = await this.passwords.checkUser(user.id, String(req.body.currentPassword ?? ''), { clientIpHash: this.rateLimiter.ipHash(ipOf(req)) });
      if (!checked.ok) return problem(t.wrongPassword, 401);
    }
    await this.lifecycle.setPassword(user.id, user.orgId, user.id, password, { method: 'change', keepSession: session.uid });
    this.done(res, 'password');
  }

  private async startTotp(_req: Request, res: Response, visit: Visit): Promise<void> {
    const { factorId, secret } = await this.factors.startTotp(visit.user);
    this.totpPage(res, visit, factorId, secret);
  }

  private totpPage(res: Response, visit: Visit, factorId: string, secret: string, error?: string): void {
    const ctx = { action: `${ACCOUNT_UI_PREFIX}/factors/totp/confirm`, csrf: this.sessions.csrf(visit.session), t: visit.lt, locale: visit.locale };
    this.page(res, appendBeforeEnd(totpEnrolPage(ctx, secret, totpUri(secret, 'Portcullis', visit.user.loginName), factorId, error), backToAccount(visit.t)));
  }

  private async confirmTotp(req: Request, res: Response, visit: Visit): Promise<void> {
    const factorId = String(req.body.factorId ?? '');
    const secret = await this.factors.pendingTotpSecret(visit.user.id, factorId);
    if (!secret) return this.refuse(res, visit, 400, visit.t.invalidForm);
    if (!(await this.withinLimits(req, res, visit, 'factors'))) return;
    const result = await this.factors.confirmTotp(visit.user, factorId, String(req.body.code ?? ''), { clientIpHash: this.rateLimiter.ipHash(ipOf(req)) });
    if (!result.ok) {
      res.status(401);
      return this.totpPage(res, visit, factorId, secret, visit.lt.invalidCode);
    }
    return this.afterEnrolment(res, visit);
  }

  private async passkeyForm(visit: Visit): Promise<string> {
    const { passkeys } = await this.factors.summary(visit.user.id);
    const owner = { id: visit.user.id, loginName: visit.user.loginName, displayName: visit.user.loginName };
    const options = await registrationOptions(this.factorPages.rp, owner, this.factorPages.challenges.issue(challengeKey(visit.session), 'register'), passkeys);
    return passkeyForm({ action: `${ACCOUNT_UI_PREFIX}/factors/passkey`, csrf: this.sessions.csrf(visit.session), t: visit.lt, locale: visit.locale }, 'register', options);
  }

  private async addPasskey(req: Request, res: Response, visit: Visit): Promise<void> {
    if (!visit.policy.passkeys) return this.refuse(res, visit, 403, visit.lt.passkeyRefused);
    const response = parseJson<RegistrationResponseJSON>(req.body.response);
    const passkey = response ? await verifyRegistration(this.factorPages.rp, response, this.factorPages.challenges.checker(challengeKey(visit.session), 'register')) : undefined;
    if (!passkey) return this.render(res, visit, { status: 400, problem: { section: 'factors', message: visit.lt.passkeyRefused } });
    await this.factors.addPasskey(visit.user, passkey);
    return this.afterEnrolment(res, visit);
  }

  /** A first factor comes with recovery codes, shown once (as at enrolment in a sign-in). */
  private async afterEnrolment(res: Response, visit: Visit): Promise<void> {
    if ((await this.factors.summary(visit.user.id)).recoveryCodes) return this.done(res, 'factor-added');
    return this.showRecoveryCodes(res, visit, await this.factors.newRecoveryCodes(visit.user));
  }

  private async newRecoveryCodes(_req: Request, res: Response, visit: Visit): Promise<void> {
    return this.showRecoveryCodes(res, visit, await this.factors.newRecoveryCodes(visit.user));
  }

  private showRecoveryCodes(res: Response, visit: Visit, codes: string[]): void {
    const list = `<p>${esc(visit.lt.recoveryInstructions)}</p><ul>${codes.map((c) => `<li><code data-recovery-code>${esc(c)}</code></li>`).join('')}</ul>`;
    this.page(res, page(visit.locale, visit.t.recoveryTitle, `${list}${backToAccount(visit.t)}`));
  }

  private async removeFactor(req: Request, res: Response, visit: Visit): Promise<void> {
    await this.factors.removeOwn(visit.user, String(req.body.factorId ?? ''), visit.policy.mfa === 'required');
    this.done(res, 'factor-removed');
  }

  private async endSession(req: Request, res: Response, visit: Visit): Promise<void> {
    const sessionId = String(req.body.sessionId ?? '');
    // This session ends by signing out (one confirmation, at the provider), not from its own list.
    if (sessionId === visit.session.uid) return this.refuse(res, visit, 400, visit.t.invalidForm);
    await this.userSessions.end(visit.user.id, visit.user.orgId, visit.user.id, sessionId);
    this.done(res, 'session-ended');
  }

  private async endOtherSessions(_req: Request, res: Response, visit: Visit): Promise<void> {
    for (const s of await this.userSessions.list(visit.user.orgId, visit.user.id)) {
      if (s.sessionId === visit.session.uid) continue;
      await this.userSessions.end(visit.user.id, visit.user.orgId, visit.user.id, s.sessionId).catch((error: unknown) => {
        // Ended meanwhile (another tab, an administrator): what was asked holds.
        if (!(error instanceof DomainError)) throw error;
      });
    }
    this.done(res, 'others-ended');
  }

  /** To one of the organization's identity providers, to sign in there as the identity to link (DESIGN §14). */
  private async link(req: Request, res: Response, visit: Visit): Promise<void> {
    const idp = (await this.idps.ofOrganization(visit.user.orgId)).find((row) => row.id === String(req.body.idpId ?? ''));
    if (!idp) return this.render(res, visit, { status: 404, problem: { section: 'identities', message: visit.t.unknownIdp } });
    let target: URL;
    try {
      target = await this.federated.startTrip(idp, accountLinkTrip(visit.session.uid));
    } catch {
      return this.render(res, visit, { status: 502, problem: { section: 'identities', message: visit.lt.idpUnavailable } });
    }
    res.status(303).location(target.href).set('Content-Length', '0').end();
  }

  /**
   * Back from the identity provider: the round trip must be this session's (a trip of another browser finds nothing),
   * the identity it vouches for is linked to the session's user unless it is another user's.
   */
  private async linked(req: Request, res: Response): Promise<void> {
    const visit = await this.visit(req, res);
    if (!visit) return;
    const trip = await this.trips.finish(String(req.query.trip ?? ''), accountLinkTrip(visit.session.uid));
    const idp = trip && (await this.idps.ofOrganization(visit.user.orgId)).find((row) => row.id === trip.idpId);
    if (!trip || !idp) return this.render(res, visit, { status: 400, problem: { section: 'identities', message: visit.t.linkExpired } });
    let subject: string;
    try {
      subject = (await this.federated.identityOf(idp, trip)).subject;
    } catch {
      return this.render(res, visit, { status: 400, problem: { section: 'identities', message: visit.lt.idpRefused } });
    }
    try {
      await this.identities.linkOwn(visit.user.id, visit.user.orgId, idp.id, subject);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return this.render(res, visit, { status: statusOf(error.code), problem: { section: 'identities', message: error.message } });
    }
    this.done(res, 'linked');
  }

  /** The last way in of a person without a password stays: unlinking it would lock the person out. */
  private async unlink(req: Request, res: Response, visit: Visit): Promise<void> {
    const { user } = visit;
    const linked = await this.identities.list(user.id, user.orgId, user.id);
    if (user.passwordHash === null && linked.length <= 1) return this.render(res, visit, { status: 409, problem: { section: 'identities', message: visit.t.lastWayIn } });
    await this.identities.unlink(user.id, user.orgId, user.id, String(req.body.idpId ?? ''), String(req.body.subject ?? ''));
    this.done(res, 'unlinked');
  }

  /** Counts an attempt against the login rate limits; false when they answered 429 already. */
  private async withinLimits(req: Request, res: Response, visit: Visit, section: AccountSection): Promise<boolean> {
    const retryAfter = await this.rateLimiter.reserve(ipOf(req), visit.user.loginName);
    if (retryAfter === undefined) return true;
    res.set('Retry-After', String(retryAfter));
    await this.render(res, visit, { status: 429, problem: { section, message: visit.lt.tooManyAttempts(Math.ceil(retryAfter / 60)) } });
    return false;
  }
}

/** The section a form belongs to, where its error shows. */
function sectionOf(path: string): AccountSection {
  const first = path.split('/')[0];
  return first === 'sessions' || first === 'factors' || first === 'identities' || first === 'email' || first === 'password' ? first : 'profile';
}

/** WebAuthn challenges of the account page are bound to the session's secret id, not to an interaction. */
function challengeKey(session: AccountSession): string {
  return `account:${session.jti}`;
}

function appendBeforeEnd(html: string, extra: string): string {
  return html.replace('</main>', `${extra}</main>`);
}

function ipOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? '';
}
