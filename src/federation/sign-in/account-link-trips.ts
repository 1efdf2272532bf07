import { Injectable } from '@nestjs/common';
import type { IdpRow } from '../federation.queries.js';
import { IdentityProvidersService } from '../identity-providers.service.js';
import { accountLinkTrip, RoundTrips } from '../round-trips.js';
import { UpstreamTrips } from './upstream-trips.js';

/** What came back of an account page's trip: the identity to link at its IdP, or why there is none. */
export type LinkTripResult = { idp: IdpRow; subject: string } | 'expired' | 'refused';

/**
 * The account page's round trips to link an identity (docs/account.md): to one of the user's organization's IdPs,
 * owned by that login session, so a trip of another browser finds nothing.
 */
@Injectable()
export class AccountLinkTrips {
  constructor(
    private readonly upstreamTrips: UpstreamTrips,
    private readonly trips: RoundTrips,
    private readonly idps: IdentityProvidersService,
  ) {}

  /** The organization's IdP of this id, or undefined. */
  async idpOf(orgId: string, idpId: string): Promise<IdpRow | undefined> {
    return (await this.idps.ofOrganization(orgId)).find((row) => row.id === idpId);
  }

  /** Where the browser goes upstream; throws when the upstream cannot be reached. */
  start(idp: IdpRow, sessionUid: string): Promise<URL> {
    return this.upstreamTrips.start(idp, accountLinkTrip(sessionUid));
  }

  /** The identity this session's trip vouches for, at an IdP of the user's organization. */
  async finish(tripId: string, sessionUid: string, orgId: string): Promise<LinkTripResult> {
    const trip = await this.trips.finish(tripId, accountLinkTrip(sessionUid));
    const idp = trip && (await this.idpOf(orgId, trip.idpId));
    if (!trip || !idp) return 'expired';
    try {
      return { idp, subject: (await this.upstreamTrips.identityOf(idp, trip)).subject };
    } catch {
      return 'refused';
    }
  }
}
