import { Inject, Injectable, Logger } from '@nestjs/common';
import express from 'express';
import type { Request, Response, Router } from 'express';
import * as client from 'openid-client';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { FederatedAccounts } from '../federated-accounts.service.js';
import type { FederationRefusal } from '../federated-accounts.service.js';
import type { IdpRow } from '../federation.queries.js';
import { IdentityProvidersService } from '../identity-providers.service.js';
import { isAccountLinkTrip, RoundTrips } from '../round-trips.js';
import type { FinishedRoundTrip } from '../round-trips.js';
import { settingsOf, UpstreamAnswerRefused, UpstreamOidc } from '../upstream-oidc.js';
import { MAX_SAML_RESPONSE_BYTES, samlSettingsOf, UpstreamSaml } from '../saml/upstream-saml.js';
import { XmlRefused } from '../../common/xml/saml-xml.js';
import { LOGIN_IDP_PREFIX } from '../idp-paths.js';
import { TEST_SIGN_IN } from '../idp-tests.service.js';
import { idpTestPage } from './idp-test.views.js';
import { randomBytes } from 'node:crypto';
import type { UpstreamIdentity } from '../upstream-oidc.js';
import { mayServe } from '../../oidc/account/organization-boundary.js';
import type { BoundaryClient } from '../../oidc/account/organization-boundary.js';
import { ProviderHolder } from '../../oidc/provider/provider.holder.js';
import { ACCOUNT_UI_PREFIX, LOGIN_UI_PREFIX } from '../../oidc/provider/oidc.routes.js';
import { LoginInteractions } from '../../login/login-interactions.js';
import { LoginPolicies } from '../../login/login-policies.js';
import type { Interaction } from '../../login/login-interactions.js';
import { LoginUsers } from '../../login/login-users.js';
import type { LoginOptions } from '../../login/login.views.js';
import type { Messages } from '../../login/messages.js';
import { chooseLocale, messages } from '../../login/messages.js';
import { errorPage } from '../../login/login.views.js';
import { SecondFactorUi } from '../../login/second-factor.router.js';
import { importJWK } from 'jose';
import { SigningKeysService } from '../../oidc/keys/signing-keys.service.js';

/** The page and status of each refusal (DESIGN §14: "no account", "IdP error", "refused response"). */
const REFUSALS: Record<FederationRefusal, { status: number; text: (t: Messages) => string }> = {
  no_account: { status: 403, text: (t) => t.idpNoAccount },
  ambiguous: { status: 403, text: (t) => t.idpNoAccount },
  holds_role: { status: 403, text: (t) => t.idpNoAccount },
  already_linked: { status: 403, text: (t) => t.idpNoAccount },
  unverified_email: { status: 403, text: (t) => t.idpNoAccount },
  user_name_missing: { status: 403, text: (t) => t.idpNoAccount },
  user_name_taken: { status: 403, text: (t) => t.idpNoAccount },
  inactive_user: { status: 403, text: (t) => t.idpInactive },
  upstream_error: { status: 502, text: (t) => t.idpUnavailable },
  invalid_response: { status: 400, text: (t) => t.idpRefused },
};

/** openid-client's codes for an answer that failed a check (as opposed to an upstream that could not be reached). */
const CHECK_FAILED = /^OAUTH_(INVALID_RESPONSE|JWT_CLAIM_COMPARISON|JSON_ATTRIBUTE_COMPARISON|JWT_TIMESTAMP_CHECK|PARSE_ERROR|UNSUPPORTED_OPERATION|JWS_SIGNATURE_VERIFICATION_FAILED)/;

/**
 * Sign-in through an organization's upstream identity provider (DESIGN §14; docs/federation.md): the buttons
 * and home-realm discovery of the login page start a round trip; the upstream sends the browser back to the
 * IdP's own callback URL (no interaction cookie reaches that path), which records the answer and sends the
 * browser on to `/ui/login/{uid}/idp/continue`, where the interaction cookie must name the interaction that
 * started the trip. There the code is redeemed, the identity resolved to a user (link, rule or JIT), and the
 * sign-in goes on as a local one: the organization rule, the login policy's second factor, the session.
 */
@Injectable()
export class FederatedLoginUi {
  private readonly logger = new Logger('federation');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly interactions: LoginInteractions,
    private readonly idps: IdentityProvidersService,
    private readonly trips: RoundTrips,
    private readonly upstream: UpstreamOidc,
    private readonly saml: UpstreamSaml,
    private readonly accounts: FederatedAccounts,
    private readonly secondFactor: SecondFactorUi,
    private readonly holder: ProviderHolder,
    private readonly policies: LoginPolicies,
    keys: SigningKeysService,
    private readonly loginUsers: LoginUsers,
  ) {
    // private_key_jwt (RFC 7523 §2.2) signs with this instance's current key; the upstream reads it from our JWKS.
    upstream.useAssertionKey(async () => {
      const [signer] = (await keys.keySet()).jwks;
      return { key: (await importJWK(signer, signer.alg)) as never, kid: signer.kid };
    });
  }

  routes(router: Router, wrap: (fn: (req: Request, res: Response) => Promise<void>) => express.RequestHandler): void {
    const form = express.urlencoded({ extended: false, limit: '16kb' });
    router.post(`${LOGIN_UI_PREFIX}/:uid/idp`, form, wrap((req, res) => this.chosen(req, res)));
    router.get(`${LOGIN_IDP_PREFIX}/:idpId/callback`, wrap((req, res) => this.callback(req, res)));
    // SAML Bindings §3.5: the response arrives by HTTP-POST from the IdP's page, with no cookie of ours (cross-site).
    const acsForm = express.urlencoded({ extended: false, limit: MAX_SAML_RESPONSE_BYTES + 4096, parameterLimit: 10 });
    router.post(`${LOGIN_IDP_PREFIX}/:idpId/acs`, acsForm, wrap((req, res) => this.acs(req, res)));
    router.get(`${LOGIN_IDP_PREFIX}/:idpId/metadata`, wrap((req, res) => this.spMetadata(req, res)));
    router.get(`${LOGIN_IDP_PREFIX}/:idpId/test-result`, wrap((req, res) => this.testResult(req, res)));
    router.get(`${LOGIN_UI_PREFIX}/:uid/idp/continue`, wrap((req, res) => this.continue(req, res)));
  }

  /**
   * What the login page offers for this client: its organization's IdPs, whether passwords are taken, and the
   * issuers its forms may lead to (a first-party application's login name may lead to any IdP claiming a domain).
   */
  async options(interaction: Interaction): Promise<LoginOptions> {
    const client = await this.clientOf(interaction);
    const orgId = client?.portcullis_org_id;
    const idps = orgId ? await this.idps.ofOrganization(orgId) : [];
    const passwordLogin = orgId ? (await this.policies.of(interaction, orgId)).passwordLogin : true;
    const reachable = client?.portcullis_api_access === true ? [...idps, ...(await this.idps.discoverable())] : idps;
    return {
      password: !passwordLogin ? 'none' : reachable.some((idp) => idp.domains.length > 0) ? 'optional' : 'required',
      idps: idps.map((idp) => ({ id: idp.id, name: idp.name })),
      idpAction: `${LOGIN_UI_PREFIX}/${interaction.uid}/idp`,
      upstreams: reachable.map((idp) => (idp.type === 'saml' ? samlSettingsOf(idp).ssoUrl : settingsOf(idp).issuer)),
    };
  }

  /** `idp_hint` (DESIGN §14): true when the hint named an IdP this client may use and the browser was sent there. */
  async followHint(req: Request, res: Response, interaction: Interaction): Promise<boolean> {
    const hint = interaction.params.idp_hint;
    if (!hint) return false;
    const idp = await this.usable(interaction, hint);
    if (!idp) return false;
    await this.go(req, res, interaction, idp, interaction.params.login_hint);
    return true;
  }

  /**
   * Home-realm discovery: true when the typed login name's domain is a verified domain of an organization whose IdP
   * claims it, and this client may use that IdP (docs/federation.md, "Organization domains"). A login name that names
   * a user of another organization stays here (a user name may itself end in `@<domain>`).
   */
  async discover(req: Request, res: Response, interaction: Interaction, loginName: string): Promise<boolean> {
    const idp = await this.idps.forLoginName(loginName);
    if (!idp || !(await this.usable(interaction, idp.id))) return false;
    const local = await this.loginUsers.find(loginName);
    if (local && local.orgId !== idp.orgId) return false;
    await this.go(req, res, interaction, idp, loginName.trim());
    return true;
  }

  /** A `[data-idp]` button of the login page. */
  private async chosen(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    this.interactions.assertCsrf(req, interaction);
    const idp = await this.usable(interaction, String(req.body.idpId ?? ''));
    if (!idp) return this.interactions.refuse(req, res, 400, 'invalid_request', 'this application does not sign in through that identity provider');
    return this.go(req, res, interaction, idp);
  }

  private async go(req: Request, res: Response, interaction: Interaction, idp: IdpRow, loginHint?: string): Promise<void> {
    let target: URL;
    try {
      target = await this.startTrip(idp, interaction.uid, loginHint);
    } catch (error) {
      return this.refused(req, res, idp, this.reasonOf(idp, error));
    }
    res.status(303).location(target.href).set('Content-Length', '0').end();
  }

  /**
   * Begins a round trip for `owner` (an interaction's uid, a test sign-in, an account page's link) and answers where
   * the browser goes upstream. Throws when the upstream cannot be reached (reasonOf tells which refusal it is).
   */
  async startTrip(idp: IdpRow, owner: string, loginHint?: string): Promise<URL> {
    if (idp.type === 'saml') {
      // An xs:ID is an NCName: it may not start with a digit (SAML Core §1.3.4).
      const requestId = `_${randomBytes(20).toString('hex')}`;
      const state = await this.trips.begin(idp.id, owner, { requestId });
      return this.saml.authorizationUrl(idp, state, requestId);
    }
    const secrets = { verifier: client.randomPKCECodeVerifier(), nonce: client.randomNonce() };
    const state = await this.trips.begin(idp.id, owner, secrets);
    return this.upstream.authorizationUrl(idp, this.callbackUrl(idp.id), state, secrets, loginHint);
  }

  /**
   * The identity a finished round trip vouches for: SAML's, validated at the ACS; OIDC's, from its code redeemed now.
   * Throws the upstream's refusal (UpstreamAnswerRefused for an error answer), reported as an IdP's refusals are.
   */
  async identityOf(idp: IdpRow, trip: FinishedRoundTrip): Promise<UpstreamIdentity> {
    try {
      if (idp.type === 'saml') {
        if (!trip.answer.identity) throw new UpstreamAnswerRefused('the SAML response was refused');
        return trip.answer.identity;
      }
      if (trip.answer.code === undefined) throw new UpstreamAnswerRefused(`the identity provider answered ${/^[a-z_]{1,64}$/.test(trip.answer.error ?? '') ? trip.answer.error : 'without a code'}`);
      return await this.upstream.identify(idp, this.callbackUrl(idp.id), trip.answer, trip);
    } catch (error) {
      await this.accounts.refused(idp, this.reasonOf(idp, error));
      throw error;
    }
  }

  /** The upstream's redirect back (OAuth 2.0 §4.1.2): recorded on its round trip, then on to the interaction. */
  private async callback(req: Request, res: Response): Promise<void> {
    const text = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string).slice(0, 4096) : undefined);
    const state = text('state');
    const idpId = String(req.params.idpId);
    const answer = { code: text('code'), iss: text('iss'), error: text('error'), errorDescription: text('error_description') };
    const trip = state ? await this.trips.answer(idpId, state, answer) : undefined;
    // An unknown, used, expired or other IdP's state: nothing to continue (and nothing to record about anyone).
    if (!trip) return this.interactions.refuse(req, res, 400, 'invalid_request', 'this sign-in has expired or was completed already; start again from the application');
    this.onward(res, idpId, trip);
  }

  /** After the upstream: to the interaction that started the trip, or to a test sign-in's result. */
  private onward(res: Response, idpId: string, trip: { id: string; interactionUid: string }): void {
    const query = `trip=${encodeURIComponent(trip.id)}`;
    const next =
      trip.interactionUid === TEST_SIGN_IN
        ? `${LOGIN_IDP_PREFIX}/${idpId}/test-result?${query}`
        : isAccountLinkTrip(trip.interactionUid)
          ? `${ACCOUNT_UI_PREFIX}/identities/linked?${query}`
          : `${LOGIN_UI_PREFIX}/${trip.interactionUid}/idp/continue?${query}`;
    res.status(303).location(next).set('Content-Length', '0').end();
  }

  /**
   * A test sign-in's result (docs/federation.md, "Testing an IdP"): the identity, checked as for a sign-in, and what
   * the rules would do with it — read only: nothing linked or created, no session, no login event.
   */
  private async testResult(req: Request, res: Response): Promise<void> {
    const trip = await this.trips.finish(String(req.query.trip ?? ''), TEST_SIGN_IN);
    const idp = trip ? await this.idps.byId(trip.idpId) : undefined;
    if (!trip || !idp || idp.id !== req.params.idpId) return this.interactions.refuse(req, res, 400, 'invalid_request', 'this test sign-in has expired or was shown already; start a new one');
    let identity: UpstreamIdentity | undefined = trip.answer.identity;
    try {
      if (idp.type === 'oidc') {
        if (trip.answer.code === undefined) return this.interactions.refuse(req, res, 502, /^[a-z_]{1,64}$/.test(trip.answer.error ?? '') ? trip.answer.error! : 'upstream_error', this.locale(req).t.idpUnavailable);
        identity = await this.upstream.identify(idp, this.callbackUrl(idp.id), trip.answer, trip);
      }
    } catch (error) {
      const reason = this.reasonOf(idp, error);
      return this.interactions.refuse(req, res, REFUSALS[reason].status, reason, error instanceof Error ? error.message : String(error));
    }
    if (!identity) return this.interactions.refuse(req, res, 400, 'invalid_response', this.locale(req).t.idpRefused);
    const settings = idp.type === 'saml' ? samlSettingsOf(idp) : settingsOf(idp);
    const decision = await this.accounts.preview(idp, 'attributes' in settings ? { ...settings, claims: settings.attributes } : settings, identity);
    const userId = decision.kind === 'linked' || decision.kind === 'link' ? decision.userId : undefined;
    const user = userId ? await this.loginUsers.findById(userId) : null;
    const { locale, t } = this.locale(req);
    this.interactions.render(res, idpTestPage(locale, t, idp.name, identity, decision, user?.loginName));
  }

  private locale(req: Request): { locale: ReturnType<typeof chooseLocale>; t: Messages } {
    const locale = chooseLocale(undefined, req.headers['accept-language']);
    return { locale, t: messages(locale) };
  }

  /**
   * The SAML ACS (DESIGN §14): reads no cookie; finds the round trip by RelayState and IdP, validates the response
   * against that trip's AuthnRequest, records the identity on the trip (once) and sends the browser on to the
   * interaction, whose cookie must match. A refused response burns the trip: it is a page and an event.
   */
  private async acs(req: Request, res: Response): Promise<void> {
    const posted = { SAMLResponse: String(req.body?.SAMLResponse ?? ''), RelayState: String(req.body?.RelayState ?? '') };
    const idpId = String(req.params.idpId);
    const secrets = posted.RelayState ? await this.trips.open(idpId, posted.RelayState) : undefined;
    const idp = secrets ? await this.idps.byId(idpId) : undefined;
    // IdP-initiated (no RelayState of ours), unknown, used or expired: nothing to continue.
    if (!secrets?.requestId || !idp || idp.type !== 'saml') {
      return this.interactions.refuse(req, res, 400, 'invalid_request', 'this sign-in has expired or was completed already, or was not started here; start again from the application');
    }
    if (posted.SAMLResponse.length > MAX_SAML_RESPONSE_BYTES) return this.refused(req, res, idp, 'invalid_response');
    let trip: { id: string; interactionUid: string } | undefined;
    try {
      const identity = await this.saml.identify(idp, posted, secrets.requestId);
      trip = await this.trips.answer(idpId, posted.RelayState, { identity });
    } catch (error) {
      await this.trips.answer(idpId, posted.RelayState, { error: 'invalid_response' });
      return this.refused(req, res, idp, this.reasonOf(idp, error));
    }
    if (!trip) return this.interactions.refuse(req, res, 400, 'invalid_request', 'this sign-in was completed already; start again from the application');
    this.onward(res, idpId, trip);
  }

  /** This SP's metadata for a SAML IdP (SAML Metadata §2.4.4): public, it names keys and endpoints only. */
  private async spMetadata(req: Request, res: Response): Promise<void> {
    const idp = await this.idps.byId(String(req.params.idpId));
    if (!idp || idp.type !== 'saml') return this.interactions.refuse(req, res, 404, 'not_found', 'no such SAML identity provider');
    res.status(200).setHeader('Content-Type', 'application/samlmetadata+xml; charset=utf-8');
    res.end(this.saml.metadata(idp));
  }

  private async continue(req: Request, res: Response): Promise<void> {
    const interaction = await this.interactions.details(req, res);
    const trip = await this.trips.finish(String(req.query.trip ?? ''), interaction.uid);
    if (!trip) return this.interactions.refuse(req, res, 400, 'invalid_request', 'this sign-in has expired or was completed already; start again from the application');
    const idp = await this.idps.byId(trip.idpId);
    if (!idp) return this.interactions.refuse(req, res, 400, 'invalid_request', 'the identity provider was removed');
    if (idp.type === 'saml') return this.signIn(req, res, interaction, idp, trip.answer.identity);
    if (trip.answer.error !== undefined || trip.answer.code === undefined) {
      // RFC 6749 §4.1.2.1 error codes are ASCII words; anything else the upstream sent is not repeated.
      const error = /^[a-z_]{1,64}$/.test(trip.answer.error ?? '') ? trip.answer.error! : 'upstream_error';
      this.logger.warn(`identity provider ${idp.id} answered ${trip.answer.code === undefined && trip.answer.error === undefined ? 'without a code' : error}`);
      return this.refused(req, res, idp, 'upstream_error', error);
    }
    let identity: UpstreamIdentity;
    try {
      identity = await this.upstream.identify(idp, this.callbackUrl(idp.id), trip.answer, trip);
    } catch (error) {
      return this.refused(req, res, idp, this.reasonOf(idp, error));
    }
    return this.signIn(req, res, interaction, idp, identity);
  }

  /** The upstream identity, checked: resolved to a user, then the sign-in goes on as a local one. */
  private async signIn(req: Request, res: Response, interaction: Interaction, idp: IdpRow, identity: UpstreamIdentity | undefined): Promise<void> {
    if (!identity) return this.interactions.refuse(req, res, 400, 'invalid_request', 'this sign-in was refused; start again from the application');
    const settings = idp.type === 'saml' ? samlSettingsOf(idp) : settingsOf(idp);
    const result = await this.accounts.resolve(idp, 'attributes' in settings ? { ...settings, claims: settings.attributes } : settings, identity);
    if (!result.ok) return this.page(req, res, interaction, result.reason);
    const user = await this.loginUsers.findById(result.userId);
    if (!user || !mayServe(await this.clientOf(interaction), user)) return this.page(req, res, interaction, 'no_account');
    // The upstream's methods, and its `mfa` as the second factor, count only where the IdP is trusted for them
    // (DESIGN §14, `mfa: "upstream"`); else `amr` says `fed` and the local factors, nothing the upstream claimed.
    const trusted = settings.mfa === 'upstream' ? identity.methods : [];
    return this.secondFactor.afterFirstFactor(req, res, interaction, user, trusted.includes('mfa') ? ['fed', 'mfa'] : ['fed'], trusted);
  }

  /** An IdP of this id that the interaction's client may sign in through (its organization's, or any for first-party apps). */
  private async usable(interaction: Interaction, idpId: string): Promise<IdpRow | undefined> {
    const idp = idpId ? await this.idps.byId(idpId) : undefined;
    if (!idp) return undefined;
    const client = await this.clientOf(interaction);
    return client && mayServe(client, { orgId: idp.orgId }) ? idp : undefined;
  }

  private async clientOf(interaction: Interaction): Promise<BoundaryClient | undefined> {
    return (await this.holder.provider.Client.find(interaction.params.client_id ?? '')) as BoundaryClient | undefined;
  }

  private reasonOf(idp: IdpRow, error: unknown): FederationRefusal {
    const code = (error as { code?: unknown }).code;
    // node-saml's refusals are plain errors of its checks (signature, audience, InResponseTo, time): a SAML
    // response that fails anything is refused, never "unreachable".
    const checkFailed = idp.type === 'saml' || error instanceof UpstreamAnswerRefused || error instanceof XmlRefused || error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError || (typeof code === 'string' && CHECK_FAILED.test(code));
    // The message names the failed check or the unreachable host, never a token.
    this.logger.warn(`identity provider ${idp.id}: ${checkFailed ? 'refused answer' : 'unreachable'}: ${error instanceof Error ? error.message : String(error)}`);
    return checkFailed ? 'invalid_response' : 'upstream_error';
  }

  private async refused(req: Request, res: Response, idp: IdpRow, reason: FederationRefusal, error: string = reason): Promise<void> {
    await this.accounts.refused(idp, reason);
    const locale = chooseLocale(undefined, req.headers['accept-language']);
    const t = messages(locale);
    res.status(REFUSALS[reason].status);
    this.interactions.render(res, errorPage(locale, t, error, REFUSALS[reason].text(t)));
  }

  private page(req: Request, res: Response, interaction: Interaction, reason: FederationRefusal): void {
    const ctx = this.interactions.formContext(req, interaction, 'login');
    res.status(REFUSALS[reason].status);
    this.interactions.render(res, errorPage(ctx.locale, ctx.t, reason === 'inactive_user' ? 'access_denied' : 'no_account', REFUSALS[reason].text(ctx.t)));
  }

  private callbackUrl(idpId: string): string {
    return `${this.config.publicUrl}${LOGIN_IDP_PREFIX}/${idpId}/callback`;
  }
}
