import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { LOGIN_IDP_PREFIX } from './idp-paths.js';
import { IdentityProvidersService } from './identity-providers.service.js';
import { ROUND_TRIP_MS, RoundTrips } from './round-trips.js';
import { UpstreamSaml } from './saml/upstream-saml.js';
import { UpstreamOidc } from './upstream-oidc.js';

/** The interaction a test sign-in's round trip names instead of a browser's (no session is ever made from it). */
export const TEST_SIGN_IN = 'idp-test';

/**
 * A test sign-in (docs/federation.md, "Testing an IdP"): an ORG_OWNER gets a one-time link to the upstream; whoever
 * signs in there sees who the upstream says they are, the mapped claims and which user the rules would pick — a dry
 * run: nothing is linked or created and no session is made, so the operator's own sign-in is untouched.
 */
@Injectable()
export class IdpTests {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly idps: IdentityProvidersService,
    private readonly trips: RoundTrips,
    private readonly oidc: UpstreamOidc,
    private readonly saml: UpstreamSaml,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  async start(editorUserId: string | null, orgId: string, idpId: string): Promise<{ url: string; expiresAt: string }> {
    const idp = await this.idps.find(this.uow.manager, orgId, idpId);
    const expiresAt = new Date(Date.now() + ROUND_TRIP_MS).toISOString();
    let url: URL;
    try {
      // An upstream whose host did not resolve when it was set is reached now, or not (docs/federation.md, "Not reached yet").
      const ready = await this.idps.readyForSignIn(idp);
      if (ready.type === 'saml') {
        const requestId = `_${randomBytes(20).toString('hex')}`;
        url = await this.saml.authorizationUrl(ready, await this.trips.begin(ready.id, TEST_SIGN_IN, { requestId }), requestId);
      } else {
        const secrets = { verifier: client.randomPKCECodeVerifier(), nonce: client.randomNonce() };
        const state = await this.trips.begin(ready.id, TEST_SIGN_IN, secrets);
        url = await this.oidc.authorizationUrl(ready, `${this.config.publicUrl}${LOGIN_IDP_PREFIX}/${ready.id}/callback`, state, secrets);
        await this.idps.reached(ready);
      }
    } catch (error) {
      throw new DomainError(ErrorCode.Unavailable, `the identity provider could not be reached: ${error instanceof Error ? error.message : String(error)}`);
    }
    await this.uow.run((manager) =>
      this.events.push(manager, {
        type: 'org.idp.tested',
        aggregateType: 'idp',
        aggregateId: idp.id,
        resourceOwner: orgId,
        editorUserId,
        payload: { idpId: idp.id },
      }),
    );
    return { url: url.href, expiresAt };
  }
}
