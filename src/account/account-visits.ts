import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { LoginPolicyService } from '../users/login-policy.service.js';
import type { LoginPolicy } from '../users/login-policy.service.js';
import { PasswordlessUsers } from '../users/passwordless-users.js';
import { isActive } from '../users/rules/user-state.js';
import { UserDirectory } from '../users/user-directory.service.js';
import type { UserEntity } from '../users/entities/user.entity.js';
import { ACR_MFA } from '../login/authentication-methods.js';
import { LoginInteractions } from '../login/login-interactions.js';
import { APPS_UI_PATH } from '../login/ui-paths.js';
import { LoginUsers } from '../login/login-users.js';
import type { LoginUser } from '../login/login-users.js';
import { messages } from '../login/messages.js';
import { chooseLocale } from '../texts/locales.js';
import type { Messages } from '../login/messages.js';
import type { Locale } from '../texts/locales.js';
import { accountMessages } from './account-page.messages.js';
import type { AccountMessages } from './account-page.messages.js';
import { ACCOUNT_PROTOCOL } from './account-protocol.js';
import type { AccountProtocol } from './account-protocol.js';
import { IdpInitiatedSignIns } from '../federation/sign-in/idp-initiated.js';
import { AccountSessions } from './account-session.js';
import type { AccountSession } from './account-session.js';

/** Who is on the page: the session, its user, the organization's login policy, the page's language. */
export interface Visit {
  session: AccountSession;
  user: LoginUser;
  /** The same user's stored profile (names, language), read once per request. */
  profile: UserEntity;
  policy: LoginPolicy;
  /** The person signs in with passkeys only (docs/passwordless.md): the page has no password section. */
  passkeysOnly: boolean;
  locale: Locale;
  t: AccountMessages;
  lt: Messages;
}

export type Change = (req: Request, res: Response, visit: Visit) => Promise<void>;

/** A form of the account page: its path under `/ui/account/`, whether it needs a recent sign-in, what it changes. */
export type AccountForm = [path: string, fresh: boolean, change: Change];

/** The `state` of a sign-in started from `/ui/apps` (appsLanding): the signed-in page sends the browser back there. */
const APPS_LANDING = /^apps\.[A-Za-z0-9_-]{22}$/;

/** A fresh `state` for a sign-in that `/ui/apps` starts. */
export function appsLanding(): string {
  return `apps.${randomBytes(16).toString('base64url')}`;
}

/** Who is on the account page, or a sign-in started for the browser. */
@Injectable()
export class AccountVisits {
  constructor(
    @Inject(ACCOUNT_PROTOCOL) private readonly protocol: AccountProtocol,
    private readonly interactions: LoginInteractions,
    private readonly sessions: AccountSessions,
    private readonly loginUsers: LoginUsers,
    private readonly directory: UserDirectory,
    private readonly policies: LoginPolicyService,
    private readonly idpInitiated: IdpInitiatedSignIns,
    private readonly passwordless: PasswordlessUsers,
  ) {}

  /**
   * Where a finished sign-in lands, by its `state`: back at `/ui/apps` when that page started it, where its IdP says
   * when an IdP-initiated SAML response did (docs/federation.md); undefined: the account page.
   */
  landingAfterSignIn(state: unknown): Promise<string | undefined> {
    if (typeof state === 'string' && APPS_LANDING.test(state)) return Promise.resolve(APPS_UI_PATH);
    return this.idpInitiated.landingOf(state);
  }

  /**
   * The session's user, or a sign-in started (none, or one without the second factor the organization requires);
   * `landing` is the sign-in's `state` that brings the browser back to the page asked for (account-page.router.ts).
   */
  async visit(req: Request, res: Response, landing?: string): Promise<Visit | undefined> {
    const session = await this.sessions.current(req, res);
    const user = session && (await this.loginUsers.findById(session.accountId));
    if (!session || !user) {
      if (req.method === 'GET') return void this.signIn(req, res, false, undefined, landing);
      return void this.interactions.showError(
        req,
        res,
        403,
        'login_required',
        accountMessages(chooseLocale(undefined, req.headers['accept-language'])).invalidForm,
      );
    }
    const profile = await this.directory.get(user.orgId, user.id);
    const locale = chooseLocale(undefined, req.headers['accept-language'], { preferredLanguage: profile.preferredLanguage });
    const t = accountMessages(locale);
    if (user.type !== 'human' || !isActive(user)) return void this.interactions.showError(req, res, 403, 'access_denied', t.accountUnusable);
    const policy = await this.policies.get(user.orgId);
    if (policy.mfa === 'required' && session.acr !== ACR_MFA) {
      if (req.method === 'GET') return void this.signIn(req, res, false, undefined, landing);
      return void this.interactions.showError(req, res, 403, 'interaction_required', t.signInAgain);
    }
    const passkeysOnly = policy.passwordless === 'required' && (await this.passwordless.applies(user));
    return { session, user, profile, policy, passkeysOnly, locale, t, lt: messages(locale) };
  }

  signIn(req: Request, res: Response, again: boolean, upstream?: { idpHint: string; state: string }, landing?: string): void {
    const locale = chooseLocale(undefined, req.headers['accept-language']);
    res
      .status(303)
      .location(this.protocol.signInUrl(again, locale, upstream, landing))
      .set('Content-Length', '0')
      .end();
  }
}
