import { Injectable, Logger } from '@nestjs/common';
import express from 'express';
import type { Request, Response, Router } from 'express';
import { LoginInteractions } from '../../login/login-interactions.js';
import type { Interaction } from '../../login/login-interactions.js';
import type { LoginOptions } from '../../login/login.views.js';
import { LoginUsers } from '../../login/login-users.js';
import { SignInFlow } from '../../login/sign-in-flow.js';
import { messages } from '../../login/messages.js';
import { chooseLocale } from '../../texts/locales.js';
import { LOGIN_UI_PREFIX } from '../../login/ui-paths.js';
import type { UpstreamSignIn } from '../../login/upstream-sign-in.js';
import { FederatedAccounts, accountRulesOf } from '../federated-accounts.service.js';
import type { FederationRefusal } from '../federated-accounts.service.js';
import type { IdpRow } from '../federation.queries.js';
import type { FinishedRoundTrip } from '../round-trips.js';
import { samlSettingsOf } from '../saml/upstream-saml.js';
import { settingsOf } from '../upstream-oidc.js';
import type { UpstreamIdentity } from '../upstream-oidc.js';
import { firstContactPage } from './first-contact.views.js';
import { IdpInitiatedSignIns } from './idp-initiated.js';
import { UpstreamLogout } from '../saml/upstream-logout.js';
import { UpstreamChoices } from './upstream-choices.js';
import { classifyUpstreamFailure, REFUSALS, upstreamErrorCode } from './upstream-refusals.js';
import { UpstreamTrips } from './upstream-trips.js';

/**
 * Sign-in through an organization's upstream identity provider (docs/federation.md): the buttons, `idp_hint` and
 * home-realm discovery of the login page start a round trip; the upstream sends the browser back to the IdP's own
 * callback URL or ACS (OidcUpstreamUi, SamlUpstreamUi), which record the answer and send the browser on to
 * `/ui/login/{uid}/idp/continue`, where the interaction cookie must name the interaction that started the trip.
 * There the identity is resolved to a user (link, rule or JIT), and the sign-in goes on in SignInFlow as any other.
 */
@Injectable()
export class FederatedSignInUi implements UpstreamSignIn {
  private readonly logger = new Logger('federation');

  constructor(
    private readonly interactions: LoginInteractions,
    private readonly flow: SignInFlow,
    private readonly choices: UpstreamChoices,
    private readonly upstreamTrips: UpstreamTrips,
    private readonly accounts: FederatedAccounts,
    private readonly loginUsers: LoginUsers,
    private readonly idpInitiated: IdpInitiatedSignIns,
    private readonly logout: UpstreamLogout,
  ) {}

  routes(router: Router): void {
    const form = express.urlencoded({ extended: false, limit: '16kb' });
    router.post(
      `${LOGIN_UI_PREFIX}/:uid/idp`,
      form,
      this.interactions.wrap((req, res) => this.chosen(req, res)),
    );
    router.get(
      `${LOGIN_UI_PREFIX}/:uid/idp/continue`,
      this.interactions.wrap((req, res) => this.continue(req, res)),
    );
  }

  options(interaction: Interaction): Promise<LoginOptions> {
    return this.choices.options(interaction);
  }

  /** `idp_hint` (docs/federation.md): true when the hint named an IdP this client may use and the browser was sent there. */
  async followHint(req: Request, res: Response, interaction: Interaction): Promise<boolean> {
    const hint = interaction.params.idp_hint;
    const idp = hint ? await this.choices.usable(interaction, hint) : undefined;
    if (!idp) return false;
    // An IdP-initiated response this browser brought: its validated identity signs in, no new trip upstream.
    const tripId = idp.type === 'saml' ? await this.idpInitiated.claim(req, res, interaction, idp) : undefined;
    if (tripId) {
      res
        .status(303)
        .location(`${LOGIN_UI_PREFIX}/${interaction.uid}/idp/continue?trip=${encodeURIComponent(tripId)}`)
        .set('Content-Length', '0')
        .end();
      return true;
    }
    await this.go(req, res, interaction, idp, interaction.params.login_hint);
    return true;
  }

  /**
   * Home-realm discovery: true when the typed login name's domain is a verified domain of an organization whose IdP
   * claims it, and this client may use that IdP (docs/federation.md, "Organization domains"). A login name that names
   * a user of another organization stays here (a user name may itself end in `@<domain>`).
   */
  async discover(req: Request, res: Response, interaction: Interaction, loginName: string): Promise<boolean> {
    const idp = await this.choices.forLoginName(interaction, loginName);
    if (!idp) return false;
    const local = await this.loginUsers.find(loginName);
    if (local && local.orgId !== idp.orgId) return false;
    await this.go(req, res, interaction, idp, loginName.trim());
    return true;
  }

  /** A `[data-idp]` button of the login page. */
  private async chosen(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    this.interactions.assertCsrf(req, interaction);
    const idp = await this.choices.usable(interaction, String(req.body.idpId ?? ''));
    if (!idp) return this.interactions.showError(req, res, 400, 'invalid_request', 'this application does not sign in through that identity provider');
    return this.go(req, res, interaction, idp);
  }

  private async go(req: Request, res: Response, interaction: Interaction, idp: IdpRow, loginHint?: string): Promise<void> {
    const firstContact = idp.type === 'saml' && samlSettingsOf(idp).unreached === true;
    let target: URL;
    try {
      target = await this.upstreamTrips.start(idp, interaction.uid, loginHint);
    } catch (error) {
      return this.refused(req, res, idp, classifyUpstreamFailure(idp, error));
    }
    if (firstContact) {
      await this.interactions.findBrand(req);
      const locale = chooseLocale(undefined, req.headers['accept-language']);
      return this.interactions.render(res, () => firstContactPage(locale, messages(locale), idp.name, target.href));
    }
    res.status(303).location(target.href).set('Content-Length', '0').end();
  }

  private async continue(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    const trip = await this.upstreamTrips.finish(String(req.query.trip ?? ''), interaction.uid);
    if (!trip)
      return this.interactions.showError(
        req,
        res,
        400,
        'invalid_request',
        'this sign-in has expired or was completed already; start again from the application',
      );
    const idp = await this.upstreamTrips.idpOf(trip);
    if (!idp) return this.interactions.showError(req, res, 400, 'invalid_request', 'the identity provider was removed');
    const answered = await this.identityOf(idp, trip);
    if ('identity' in answered) return this.signIn(req, res, interaction, idp, answered.identity);
    return this.refused(req, res, idp, answered.refusal, answered.error);
  }

  /**
   * What the trip's answer vouches for: SAML's identity, validated at the ACS (none: refused there); OIDC's, from its
   * code redeemed now. Else why the upstream failed before any identity was known: its error answer, no code, or a
   * redemption that failed.
   */
  private async identityOf(
    idp: IdpRow,
    trip: FinishedRoundTrip,
  ): Promise<{ identity: UpstreamIdentity | undefined } | { refusal: FederationRefusal; error?: string }> {
    if (idp.type === 'saml') return { identity: trip.answer.identity };
    if (trip.answer.error !== undefined || trip.answer.code === undefined) {
      const error = upstreamErrorCode(trip.answer.error);
      this.logger.warn(`identity provider ${idp.id} answered ${trip.answer.code === undefined && trip.answer.error === undefined ? 'without a code' : error}`);
      return { refusal: 'upstream_error', error };
    }
    try {
      return { identity: await this.upstreamTrips.identify(idp, trip) };
    } catch (error) {
      return { refusal: classifyUpstreamFailure(idp, error) };
    }
  }

  /** The upstream identity, checked: resolved to a user, then the sign-in goes on as a local one. */
  private async signIn(req: Request, res: Response, interaction: Interaction, idp: IdpRow, identity: UpstreamIdentity | undefined): Promise<void> {
    if (!identity) return this.interactions.showError(req, res, 400, 'invalid_request', 'this sign-in was refused; start again from the application');
    const settings = idp.type === 'saml' ? samlSettingsOf(idp) : settingsOf(idp);
    const result = await this.accounts.resolve(idp, accountRulesOf(settings), identity);
    const user = result.ok ? await this.loginUsers.findById(result.userId) : null;
    if (!result.ok || !user) {
      const reason = result.ok ? 'no_account' : result.reason;
      return this.flow.refuse(
        req,
        res,
        interaction,
        REFUSALS[reason].status,
        reason === 'inactive_user' ? 'access_denied' : 'no_account',
        REFUSALS[reason].text,
      );
    }
    await this.logout.remember(idp, user.id, interaction.uid, identity.saml);
    // The upstream's methods, and its `mfa` as the second factor, count only where the IdP is trusted for them
    // (docs/federation.md, `mfa: "upstream"`); else `amr` says `fed` and the local factors, nothing the upstream claimed.
    const trusted = settings.mfa === 'upstream' ? identity.methods : [];
    return this.flow.afterFirstFactor(req, res, interaction, user, trusted.includes('mfa') ? ['fed', 'mfa'] : ['fed'], trusted);
  }

  /** The upstream failed before any identity was known: its event and count, and a page (the user may try another way in). */
  private async refused(req: Request, res: Response, idp: IdpRow, reason: FederationRefusal, error: string = reason): Promise<void> {
    await this.accounts.refused(idp, reason);
    return this.interactions.showError(req, res, REFUSALS[reason].status, error, REFUSALS[reason].text);
  }
}
