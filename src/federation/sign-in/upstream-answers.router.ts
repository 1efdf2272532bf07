import { Injectable } from '@nestjs/common';
import express from 'express';
import type { Request, Response, Router } from 'express';
import { LoginInteractions } from '../../login/login-interactions.js';
import { FederatedAccounts } from '../federated-accounts.service.js';
import { IdentityProvidersService } from '../identity-providers.service.js';
import { LOGIN_IDP_PREFIX } from '../idp-paths.js';
import { RoundTrips } from '../round-trips.js';
import { MAX_SAML_RESPONSE_BYTES, UpstreamSaml } from '../saml/upstream-saml.js';
import { classifyUpstreamFailure, REFUSALS } from './upstream-refusals.js';
import type { FederationRefusal } from '../federated-accounts.service.js';
import type { IdpRow } from '../federation.queries.js';
import { UpstreamTrips } from './upstream-trips.js';
import { IdpInitiatedSignIns } from './idp-initiated.js';
import { UpstreamLogout } from '../saml/upstream-logout.js';
import type { PostedResponse } from '../saml/upstream-saml.js';
import type { UpstreamIdentity } from '../upstream-oidc.js';
import { parseXml } from '../../common/xml/saml-xml.js';

/**
 * Where upstreams send the browser back (docs/federation.md): an OpenID Provider's redirect to the IdP's callback
 * URL (OAuth 2.0 §4.1.2) and a SAML IdP's response at the ACS (SAML Bindings §3.5), plus this SP's SAML metadata.
 * No cookie of ours reaches these paths (cross-site): the round trip is found by its state or RelayState, the
 * answer recorded on it once, and the browser sent on to whoever began the trip (UpstreamTrips.onward).
 */
@Injectable()
export class UpstreamAnswersUi {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly upstreamTrips: UpstreamTrips,
    private readonly trips: RoundTrips,
    private readonly idps: IdentityProvidersService,
    private readonly saml: UpstreamSaml,
    private readonly accounts: FederatedAccounts,
    private readonly idpInitiated: IdpInitiatedSignIns,
    private readonly logout: UpstreamLogout,
  ) {}

  routes(router: Router): void {
    router.get(
      `${LOGIN_IDP_PREFIX}/:idpId/callback`,
      this.interactions.wrap((req, res) => this.callback(req, res)),
    );
    // SAML Bindings §3.5: the response arrives by HTTP-POST from the IdP's page, with no cookie of ours (cross-site).
    const acsForm = express.urlencoded({ extended: false, limit: MAX_SAML_RESPONSE_BYTES + 4096, parameterLimit: 10 });
    router.post(
      `${LOGIN_IDP_PREFIX}/:idpId/acs`,
      acsForm,
      this.interactions.wrap((req, res) => this.acs(req, res)),
    );
    // SAML Bindings §3.4: single logout by HTTP-Redirect, both the IdP's LogoutRequests and its LogoutResponses.
    router.get(
      `${LOGIN_IDP_PREFIX}/:idpId/slo`,
      this.interactions.wrap((req, res) => this.slo(req, res)),
    );
    router.get(
      `${LOGIN_IDP_PREFIX}/:idpId/metadata`,
      this.interactions.wrap((req, res) => this.spMetadata(req, res)),
    );
  }

  /** The upstream's redirect back (OAuth 2.0 §4.1.2): recorded on its round trip, then on to its owner. */
  private async callback(req: Request, res: Response): Promise<void> {
    const text = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string).slice(0, 4096) : undefined);
    const state = text('state');
    const idpId = String(req.params.idpId);
    const answer = { code: text('code'), iss: text('iss'), error: text('error'), errorDescription: text('error_description') };
    const trip = state ? await this.trips.answer(idpId, state, answer) : undefined;
    // An unknown, used, expired or other IdP's state: nothing to continue (and nothing to record about anyone).
    if (!trip)
      return this.interactions.showError(
        req,
        res,
        400,
        'invalid_request',
        'this sign-in has expired or was completed already; start again from the application',
      );
    this.upstreamTrips.onward(res, idpId, trip);
  }

  /**
   * The SAML ACS (docs/federation.md): reads no cookie; finds the round trip by RelayState and IdP, validates the
   * response against that trip's AuthnRequest, records the identity on the trip (once) and sends the browser on to
   * the trip's owner, whose cookie must match. A refused response burns the trip: it is a page and an event.
   */
  private async acs(req: Request, res: Response): Promise<void> {
    const posted = { SAMLResponse: String(req.body?.SAMLResponse ?? ''), RelayState: String(req.body?.RelayState ?? '') };
    const idpId = String(req.params.idpId);
    const secrets = posted.RelayState ? await this.trips.open(idpId, posted.RelayState) : undefined;
    const idp = await this.idps.byId(idpId);
    if (idp?.type === 'saml' && !secrets?.requestId && !answersARequest(posted)) return this.unsolicited(req, res, idp, posted);
    // A response to a request with an unknown, used or expired RelayState, or an unknown IdP: nothing to continue.
    if (!secrets?.requestId || !idp || idp.type !== 'saml') {
      return this.interactions.showError(
        req,
        res,
        400,
        'invalid_request',
        'this sign-in has expired or was completed already, or was not started here; start again from the application',
      );
    }
    if (posted.SAMLResponse.length > MAX_SAML_RESPONSE_BYTES) return this.refused(req, res, idp, 'invalid_response');
    let trip: { id: string; interactionUid: string } | undefined;
    try {
      const identity = await this.saml.identify(idp, posted, secrets.requestId);
      trip = await this.trips.answer(idpId, posted.RelayState, { identity });
    } catch (error) {
      await this.trips.answer(idpId, posted.RelayState, { error: 'invalid_response' });
      return this.refused(req, res, idp, classifyUpstreamFailure(idp, error));
    }
    if (!trip) return this.interactions.showError(req, res, 400, 'invalid_request', 'this sign-in was completed already; start again from the application');
    this.upstreamTrips.onward(res, idpId, trip);
  }

  /**
   * An IdP-initiated response (no request of ours answered): refused unless the IdP allows them and has a landing
   * that is still allowed; else checked as any response but InResponseTo (none may be there), and the sign-in
   * started (idp-initiated.ts).
   */
  private async unsolicited(req: Request, res: Response, idp: IdpRow, posted: PostedResponse): Promise<void> {
    if (posted.SAMLResponse.length > MAX_SAML_RESPONSE_BYTES) return this.refused(req, res, idp, 'invalid_response');
    if (!(await this.idps.idpInitiatedLanding(idp))) return this.refused(req, res, idp, 'idp_initiated');
    let identity: UpstreamIdentity;
    try {
      identity = await this.saml.identify(idp, posted, undefined);
    } catch (error) {
      return this.refused(req, res, idp, classifyUpstreamFailure(idp, error));
    }
    await this.idpInitiated.begin(res, idp, identity);
  }

  /** Single logout with the IdP (saml/upstream-logout.ts): the query as received, since its signature covers it as sent. */
  private async slo(req: Request, res: Response): Promise<void> {
    const idp = await this.idps.byId(String(req.params.idpId));
    if (!idp || idp.type !== 'saml') return this.interactions.showError(req, res, 404, 'not_found', 'no such SAML identity provider');
    const at = req.originalUrl.indexOf('?');
    const outcome = await this.logout.receive(idp, at < 0 ? '' : req.originalUrl.slice(at + 1));
    if (outcome.kind === 'refused') return this.interactions.showError(req, res, 400, 'invalid_request', outcome.reason);
    res.status(303).location(outcome.location).set('Content-Length', '0').end();
  }

  /** This SP's metadata for a SAML IdP (SAML Metadata §2.4.4): public, it names keys and endpoints only. */
  private async spMetadata(req: Request, res: Response): Promise<void> {
    const idp = await this.idps.byId(String(req.params.idpId));
    if (!idp || idp.type !== 'saml') return this.interactions.showError(req, res, 404, 'not_found', 'no such SAML identity provider');
    res.status(200).setHeader('Content-Type', 'application/samlmetadata+xml; charset=utf-8');
    res.end(this.saml.metadata(idp));
  }

  private async refused(req: Request, res: Response, idp: IdpRow, reason: FederationRefusal): Promise<void> {
    await this.accounts.refused(idp, reason);
    return this.interactions.showError(req, res, REFUSALS[reason].status, reason, REFUSALS[reason].text);
  }
}

/**
 * Whether a posted response names the request it answers (SAML Core §3.2.2 `InResponseTo`): such a response with
 * no trip of ours is a stale or replayed SP-initiated one, never an IdP-initiated one. Unreadable: not known to.
 */
function answersARequest(posted: PostedResponse): boolean {
  if (posted.SAMLResponse.length > MAX_SAML_RESPONSE_BYTES) return false;
  try {
    return parseXml(Buffer.from(posted.SAMLResponse, 'base64').toString('utf8')).documentElement.hasAttribute('InResponseTo');
  } catch {
    return false;
  }
}
