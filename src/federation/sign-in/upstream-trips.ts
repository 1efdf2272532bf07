import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import * as client from 'openid-client';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { ACCOUNT_UI_PREFIX, LOGIN_UI_PREFIX } from '../../login/ui-paths.js';
import { FederatedAccounts } from '../federated-accounts.service.js';
import { IdentityProvidersService } from '../identity-providers.service.js';
import type { IdpRow } from '../federation.queries.js';
import { LOGIN_IDP_PREFIX } from '../idp-paths.js';
import { TEST_SIGN_IN } from '../idp-tests.service.js';
import { isAccountLinkTrip, RoundTrips } from '../round-trips.js';
import type { FinishedRoundTrip } from '../round-trips.js';
import { UpstreamSaml } from '../saml/upstream-saml.js';
import { UpstreamAnswerRefused, UpstreamOidc } from '../upstream-oidc.js';
import type { UpstreamIdentity } from '../upstream-oidc.js';
import { classifyUpstreamFailure, upstreamErrorCode } from './upstream-refusals.js';

/**
 * Round trips to an upstream identity provider, whoever began them (a sign-in's interaction, a test sign-in, an
 * account page's link; docs/federation.md): where the browser goes upstream, where it goes once the upstream
 * answered, and the identity the answer vouches for.
 */
@Injectable()
export class UpstreamTrips {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly trips: RoundTrips,
    private readonly oidc: UpstreamOidc,
    private readonly saml: UpstreamSaml,
    private readonly accounts: FederatedAccounts,
    private readonly idps: IdentityProvidersService,
  ) {}

  /**
   * Begins a round trip for `owner` (an interaction's uid, a test sign-in, an account page's link) and answers where
   * the browser goes upstream. Throws when the upstream cannot be reached (classifyUpstreamFailure tells which refusal it is).
   */
  async start(idp: IdpRow, owner: string, loginHint?: string): Promise<URL> {
    // An upstream whose host did not resolve when it was set (docs/federation.md, "Not reached yet").
    const ready = await this.idps.readyForSignIn(idp);
    if (ready.type === 'saml') {
      // An xs:ID is an NCName: it may not start with a digit (SAML Core §1.3.4).
      const requestId = `_${randomBytes(20).toString('hex')}`;
      const state = await this.trips.begin(ready.id, owner, { requestId });
      return this.saml.authorizationUrl(ready, state, requestId);
    }
    const secrets = { verifier: client.randomPKCECodeVerifier(), nonce: client.randomNonce() };
    const state = await this.trips.begin(ready.id, owner, secrets);
    const url = await this.oidc.authorizationUrl(ready, this.callbackUrl(ready.id), state, secrets, loginHint);
    await this.idps.reached(ready);
    return url;
  }

  /** After the upstream: to the interaction that started the trip, to a test sign-in's result, or to the account page. */
  onward(res: Response, idpId: string, trip: { id: string; interactionUid: string }): void {
    const query = `trip=${encodeURIComponent(trip.id)}`;
    const next =
      trip.interactionUid === TEST_SIGN_IN
        ? `${LOGIN_IDP_PREFIX}/${idpId}/test-result?${query}`
        : isAccountLinkTrip(trip.interactionUid)
          ? `${ACCOUNT_UI_PREFIX}/identities/linked?${query}`
          : `${LOGIN_UI_PREFIX}/${trip.interactionUid}/idp/continue?${query}`;
    res.status(303).location(next).set('Content-Length', '0').end();
  }

  /** The trip the upstream's answer names, once, and only for the interaction that started it (round-trips.ts). */
  async finish(tripId: string, interactionUid: string): Promise<FinishedRoundTrip | undefined> {
    return this.trips.finish(tripId, interactionUid);
  }

  /** The IdP a finished trip went to, as it is configured now (removed since: undefined). */
  async idpOf(trip: FinishedRoundTrip): Promise<IdpRow | undefined> {
    return this.idps.byId(trip.idpId);
  }

  /**
   * The identity a finished round trip vouches for: SAML's, validated at the ACS; OIDC's, from its code redeemed now.
   * Throws the upstream's refusal (UpstreamAnswerRefused for an error answer or none).
   */
  async identify(idp: IdpRow, trip: FinishedRoundTrip): Promise<UpstreamIdentity> {
    if (idp.type === 'saml') {
      if (!trip.answer.identity) throw new UpstreamAnswerRefused('the SAML response was refused');
      return trip.answer.identity;
    }
    if (trip.answer.code === undefined)
      throw new UpstreamAnswerRefused(
        `the identity provider answered ${trip.answer.error === undefined ? 'without a code' : upstreamErrorCode(trip.answer.error)}`,
      );
    return this.oidc.identify(idp, this.callbackUrl(idp.id), trip.answer, trip);
  }

  /** As `identify`, with a refusal recorded as an IdP's refusals are (its event and count) before it is thrown on. */
  async identityOf(idp: IdpRow, trip: FinishedRoundTrip): Promise<UpstreamIdentity> {
    try {
      return await this.identify(idp, trip);
    } catch (error) {
      await this.accounts.refused(idp, classifyUpstreamFailure(idp, error));
      throw error;
    }
  }

  private callbackUrl(idpId: string): string {
    return `${this.config.publicUrl}${LOGIN_IDP_PREFIX}/${idpId}/callback`;
  }
}
