import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { FactorsService } from '../users/factors/factors.service.js';
import { registrationOptions } from '../users/factors/passkeys.js';
import { UserSessionsService } from '../users/self-service/user-sessions.service.js';
import { IdentityProvidersService } from '../federation/identity-providers.service.js';
import { samlSettingsOf } from '../federation/saml/upstream-saml.js';
import { settingsOf } from '../federation/upstream-oidc.js';
import { UserIdentitiesService } from '../federation/user-identities.service.js';
import { LoginInteractions } from '../login/login-interactions.js';
import { contentSecurityPolicy } from '../login/login-page.headers.js';
import { errorPage } from '../login/login.views.js';
import { SecondFactorPages } from '../login/second-factor.pages.js';
import { passkeyForm } from '../login/second-factor.views.js';
import { ACCOUNT_UI_PREFIX } from '../login/ui-paths.js';
import type { Notice } from './account-page.messages.js';
import { accountPage } from './account-page.views.js';
import type { AccountView } from './account-page.views.js';
import { ACCOUNT_PROTOCOL } from './account-protocol.js';
import type { AccountProtocol } from './account-protocol.js';
import { AccountSessions } from './account-session.js';
import type { AccountSession } from './account-session.js';
import type { Visit } from './account-visits.js';

/**
 * The account page (docs/account.md) as the visit's user sees it: profile, factors, sessions and linked identities,
 * with a notice or a section's problem.
 */
@Injectable()
export class AccountPageRenderer {
  constructor(
    @Inject(ACCOUNT_PROTOCOL) private readonly protocol: AccountProtocol,
    private readonly interactions: LoginInteractions,
    private readonly sessions: AccountSessions,
    private readonly factors: FactorsService,
    private readonly factorPages: SecondFactorPages,
    private readonly userSessions: UserSessionsService,
    private readonly identities: UserIdentitiesService,
    private readonly idps: IdentityProvidersService,
  ) {}

  async render(res: Response, visit: Visit, extra: { status?: number; notice?: string; problem?: AccountView['problem'] } = {}): Promise<void> {
    const { session, user, profile, policy, passkeysOnly, locale, t, lt } = visit;
    const [factors, sessions, identities, idps, agents] = await Promise.all([
      this.factors.list(user.id, user.orgId, user.id),
      this.userSessions.list(user.orgId, user.id),
      this.identities.list(user.id, user.orgId, user.id),
      this.idps.ofOrganization(user.orgId),
      this.protocol.connectedAgents(user.id),
    ]);
    const appName = async (clientId: string) => (await this.protocol.applicationName(clientId)) ?? t.title;
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
        passkeysOnly,
      },
      factors,
      passkey: policy.passkeys ? await this.passkeyForm(visit) : '',
      sessions: await Promise.all(
        sessions.map(async (s) => ({ ...s, applications: await Promise.all(s.clientIds.map(appName)), current: s.sessionId === session.uid })),
      ),
      identities: identities.map((i) => ({ ...i, idpName: idps.find((idp) => idp.id === i.idpId)?.name ?? i.idpId })),
      agents,
      linkable: idps.filter((idp) => !identities.some((i) => i.idpId === idp.id)).map((idp) => ({ id: idp.id, name: idp.name })),
      notice: extra.notice,
      problem: extra.problem,
      signOutHref: this.protocol.signOutUrl(),
    };
    res.status(extra.status ?? 200);
    // A link form's post is redirected to the identity provider: browsers apply `form-action` to that redirect too.
    const upstreams = idps.map((idp) => (idp.type === 'saml' ? samlSettingsOf(idp).ssoUrl : settingsOf(idp).issuer));
    res.setHeader('Content-Security-Policy', contentSecurityPolicy("'self'", upstreams));
    this.page(res, accountPage(view));
  }

  /** With the login UI's headers (set by its router): forms post to this origin only. */
  page(res: Response, html: string): void {
    this.interactions.render(res, () => html);
  }

  refuse(res: Response, visit: Visit, status: number, message: string): void {
    res.status(status);
    this.page(res, errorPage(visit.locale, visit.lt, 'invalid_request', message));
  }

  /** The form's action for this session (its CSRF value bound to the session's secret id). */
  formContext(visit: Visit, path: string) {
    return { action: `${ACCOUNT_UI_PREFIX}/${path}`, csrf: this.sessions.csrf(visit.session), t: visit.lt, locale: visit.locale };
  }

  private async passkeyForm(visit: Visit): Promise<string> {
    const { passkeys } = await this.factors.summary(visit.user.id);
    const owner = { id: visit.user.id, loginName: visit.user.loginName, displayName: visit.user.loginName };
    const options = await registrationOptions(this.factorPages.rp, owner, this.factorPages.challenges.issue(challengeKey(visit.session), 'register'), passkeys);
    return passkeyForm(this.formContext(visit, 'factors/passkey'), 'register', options);
  }
}

/** Back to the account page, with the notice of what was done. */
export function done(res: Response, notice: Notice): void {
  res.status(303).location(`${ACCOUNT_UI_PREFIX}?done=${notice}`).set('Content-Length', '0').end();
}

/** WebAuthn challenges of the account page are bound to the session's secret id, not to an interaction. */
export function challengeKey(session: AccountSession): string {
  return `account:${session.jti}`;
}
