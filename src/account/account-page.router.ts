import { Injectable } from '@nestjs/common';
import express from 'express';
import type { Request, Response, Router } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { statusOf } from '../common/errors/api-exception.filter.js';
import { idpInitiatedState } from '../federation/sign-in/idp-initiated.js';
import { LoginInteractions } from '../login/login-interactions.js';
import { errorPage } from '../login/login.views.js';
import { messages } from '../login/messages.js';
import { chooseLocale } from '../texts/locales.js';
import { ACCOUNT_SIGNED_IN_PATH, ACCOUNT_UI_PREFIX } from '../login/ui-paths.js';
import { NOTICES } from './account-page.messages.js';
import type { Notice } from './account-page.messages.js';
import { AccountPageRenderer } from './account-page.renderer.js';
import type { AccountSection } from './account-page.views.js';
import { AccountSessions } from './account-session.js';
import { AccountVisits } from './account-visits.js';
import { FactorChanges } from './factor-changes.js';
import { IdentityChanges } from './identity-changes.js';
import { ProfileChanges } from './profile-changes.js';
import { SessionChanges } from './session-changes.js';

/**
 * The account page `/ui/account` (docs/account.md): a signed-in person's own profile, e-mail, password, factors,
 * sessions and linked identities, in the login UI's session. Without a session it starts a sign-in with the static
 * account client (src/oidc/provider/account-client.ts). Every form carries a CSRF value bound to the session's secret
 * id; changes to how the person signs in (e-mail, factors, identities, a first password) need a sign-in of the last
 * 15 minutes. Every change runs through the same domain functions as an administrator's, the person as its editor.
 * The person's own applications, `/ui/apps`, live in the same session (my-apps.page.ts).
 */
@Injectable()
export class AccountPageUi {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly visits: AccountVisits,
    private readonly renderer: AccountPageRenderer,
    private readonly sessions: AccountSessions,
    private readonly profile: ProfileChanges,
    private readonly factors: FactorChanges,
    private readonly sessionChanges: SessionChanges,
    private readonly identities: IdentityChanges,
  ) {}

  routes(router: Router): void {
    const wrap = this.interactions.wrap;
    const form = express.urlencoded({ extended: false, limit: '32kb' });
    router.get(
      ACCOUNT_UI_PREFIX,
      wrap((req, res) => this.show(req, res)),
    );
    router.get(
      `${ACCOUNT_UI_PREFIX}/sign-in`,
      wrap(async (req, res) => this.visits.signIn(req, res, req.query.again === '1', idpInitiatedSignIn(req.query.idp))),
    );
    router.get(
      ACCOUNT_SIGNED_IN_PATH,
      wrap(async (req, res) => this.signedIn(req, res)),
    );
    router.get(
      `${ACCOUNT_UI_PREFIX}/identities/linked`,
      wrap(async (req, res) => {
        const visit = await this.visits.visit(req, res);
        if (visit) await this.identities.linked(req, res, visit);
      }),
    );
    const forms = [...this.profile.forms(), ...this.factors.forms(), ...this.sessionChanges.forms(), ...this.identities.forms()];
    for (const [path, fresh, change] of forms) {
      router.post(
        `${ACCOUNT_UI_PREFIX}/${path}`,
        form,
        wrap(async (req, res) => {
          const visit = await this.visits.visit(req, res);
          if (!visit) return;
          if (!this.sessions.csrfMatches(visit.session, req.body.csrf)) return this.renderer.refuse(res, visit, 403, visit.t.invalidForm);
          if (fresh && !this.sessions.fresh(visit.session))
            return this.renderer.render(res, visit, { status: 403, problem: { section: sectionOf(path), message: visit.t.signInAgain, reauth: true } });
          try {
            await change(req, res, visit);
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
            await this.renderer.render(res, visit, {
              status: statusOf(error.code),
              problem: { section: sectionOf(path), message: [error.message, ...error.details.map((d) => d.message)].join(' ') },
            });
          }
        }),
      );
    }
  }

  private async show(req: Request, res: Response): Promise<void> {
    const visit = await this.visits.visit(req, res);
    if (!visit) return;
    const done = String(req.query.done ?? '');
    const notice = done in NOTICES ? (visit.t[NOTICES[done as Notice]] as string) : undefined;
    await this.renderer.render(res, visit, { notice });
  }

  /** The provider sends the browser back here; the code is not needed (the session is what the page reads). */
  private async signedIn(req: Request, res: Response): Promise<void> {
    if (typeof req.query.error === 'string') {
      const locale = chooseLocale(undefined, req.headers['accept-language']);
      res.status(400);
      const error = req.query.error;
      return this.interactions.render(res, () => errorPage(locale, messages(locale), error, String(req.query.error_description ?? '')));
    }
    // The sign-in an IdP-initiated SAML response started lands where its IdP says (docs/federation.md); one that
    // `/ui/apps` started, back there.
    const landing = await this.visits.landingAfterSignIn(req.query.state);
    res
      .status(303)
      .location(landing ?? ACCOUNT_UI_PREFIX)
      .set('Content-Length', '0')
      .end();
  }
}

/** `?idp=<idpId>`: the sign-in an IdP-initiated SAML response started (federation/sign-in/idp-initiated.ts). */
function idpInitiatedSignIn(idp: unknown): { idpHint: string; state: string } | undefined {
  return typeof idp === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(idp) ? { idpHint: idp, state: idpInitiatedState(idp) } : undefined;
}

/** The section a form belongs to, where its error shows. */
function sectionOf(path: string): AccountSection {
  const first = path.split('/')[0];
  return first === 'sessions' || first === 'agents' || first === 'factors' || first === 'identities' || first === 'email' || first === 'password'
    ? first
    : 'profile';
}
