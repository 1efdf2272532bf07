import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import type { Interaction } from '../../login/sign-in-protocol.js';
import { ACCOUNT_UI_PREFIX, LOGIN_UI_PREFIX } from '../../login/ui-paths.js';
import type { IdpRow } from '../federation.queries.js';
import { IdentityProvidersService } from '../identity-providers.service.js';
import { IDP_INITIATED, ROUND_TRIP_MS, RoundTrips } from '../round-trips.js';
import type { UpstreamIdentity } from '../upstream-oidc.js';

/** The browser's handle on the trip an IdP-initiated response began: only the browser that posted it signs in with it. */
const COOKIE = 'portcullis.idp_initiated';
/** The `state` of the account sign-in an IdP-initiated response starts: it names the IdP whose landing follows. */
const LANDING_STATE = /^idp\.([A-Za-z0-9_-]{1,64})$/;

/**
 * IdP-initiated SAML sign-in (docs/federation.md, "IdP-initiated sign-in"). No interaction exists when such a response
 * arrives, so the ACS, once the response passed every check, records the identity on a round trip of its own, gives
 * the browser its handle in a cookie (SameSite=Lax, the login UI's path) and starts the account page's sign-in with
 * `idp_hint` and `prompt=login`. The login page's hint then claims the trip instead of going upstream again, and the
 * sign-in goes on as an SP-initiated one (link, MFA, the organization rule, the session). Where it ends, the browser
 * goes to the IdP's configured landing, never to anything the response or its RelayState named.
 */
@Injectable()
export class IdpInitiatedSignIns {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly trips: RoundTrips,
    private readonly idps: IdentityProvidersService,
  ) {}

  /** The validated identity recorded, the handle set, and the browser sent to the sign-in. */
  async begin(res: Response, idp: IdpRow, identity: UpstreamIdentity): Promise<void> {
    const state = await this.trips.begin(idp.id, IDP_INITIATED, {});
    await this.trips.answer(idp.id, state, { identity });
    const secure = this.config.publicUrl.startsWith('https:') ? '; Secure' : '';
    res.append('Set-Cookie', `${COOKIE}=${state}; Path=${LOGIN_UI_PREFIX}; Max-Age=${ROUND_TRIP_MS / 1000}; HttpOnly; SameSite=Lax${secure}`);
    const query = new URLSearchParams({ again: '1', idp: idp.id });
    res.status(303).location(`${ACCOUNT_UI_PREFIX}/sign-in?${query}`).set('Content-Length', '0').end();
  }

  /**
   * At the login page of a sign-in hinted to `idp`: the IdP-initiated trip this browser holds for it, now the
   * interaction's (its id for the continue step), or undefined (no handle, another IdP's, used or expired).
   */
  async claim(req: Request, res: Response, interaction: Interaction, idp: IdpRow): Promise<string | undefined> {
    const state = cookieOf(req.headers.cookie);
    if (!state) return undefined;
    const tripId = await this.trips.claim(idp.id, state, interaction.uid);
    if (tripId) res.append('Set-Cookie', `${COOKIE}=; Path=${LOGIN_UI_PREFIX}; Max-Age=0; HttpOnly; SameSite=Lax`);
    return tripId;
  }

  /** Where the account sign-in an IdP-initiated response started lands (its `state`), or undefined for any other. */
  async landingOf(state: unknown): Promise<string | undefined> {
    const idpId = typeof state === 'string' ? LANDING_STATE.exec(state)?.[1] : undefined;
    const idp = idpId ? await this.idps.byId(idpId) : undefined;
    return idp ? this.idps.idpInitiatedLanding(idp) : undefined;
  }
}

/** The `state` of an account sign-in started for this IdP's IdP-initiated response. */
export function idpInitiatedState(idpId: string): string {
  return `idp.${idpId}`;
}

function cookieOf(header: string | undefined): string | undefined {
  for (const piece of (header ?? '').split(';')) {
    const [name, ...value] = piece.trim().split('=');
    if (name === COOKIE && value.length > 0) return value.join('=') || undefined;
  }
  return undefined;
}
