import { Injectable } from '@nestjs/common';
import type { Request, Response, Router } from 'express';
import { LoginInteractions } from '../../login/login-interactions.js';
import { LoginUsers } from '../../login/login-users.js';
import { messages } from '../../login/messages.js';
import { chooseLocale } from '../../texts/locales.js';
import { FederatedAccounts, accountRulesOf } from '../federated-accounts.service.js';
import { IdentityProvidersService } from '../identity-providers.service.js';
import { LOGIN_IDP_PREFIX } from '../idp-paths.js';
import { TEST_SIGN_IN } from '../idp-tests.service.js';
import { RoundTrips } from '../round-trips.js';
import { samlSettingsOf } from '../saml/upstream-saml.js';
import { settingsOf } from '../upstream-oidc.js';
import type { UpstreamIdentity } from '../upstream-oidc.js';
import { idpTestPage } from './idp-test.views.js';
import { classifyUpstreamFailure, REFUSALS, upstreamErrorCode } from './upstream-refusals.js';
import { UpstreamTrips } from './upstream-trips.js';

/**
 * A test sign-in's result (docs/federation.md, "Testing an IdP"): the identity, checked as for a sign-in, and what
 * the rules would do with it — read only: nothing linked or created, no session, no login event.
 */
@Injectable()
export class IdpTestSignInUi {
  constructor(
    private readonly interactions: LoginInteractions,
    private readonly upstreamTrips: UpstreamTrips,
    private readonly trips: RoundTrips,
    private readonly idps: IdentityProvidersService,
    private readonly accounts: FederatedAccounts,
    private readonly loginUsers: LoginUsers,
  ) {}

  routes(router: Router): void {
    router.get(
      `${LOGIN_IDP_PREFIX}/:idpId/test-result`,
      this.interactions.wrap((req, res) => this.testResult(req, res)),
    );
  }

  private async testResult(req: Request, res: Response): Promise<void> {
    const trip = await this.trips.finish(String(req.query.trip ?? ''), TEST_SIGN_IN);
    const idp = trip ? await this.idps.byId(trip.idpId) : undefined;
    if (!trip || !idp || idp.id !== req.params.idpId)
      return this.interactions.showError(req, res, 400, 'invalid_request', 'this test sign-in has expired or was shown already; start a new one');
    const locale = chooseLocale(undefined, req.headers['accept-language']);
    const t = messages(locale);
    if (idp.type === 'oidc' && trip.answer.code === undefined)
      return this.interactions.showError(req, res, 502, upstreamErrorCode(trip.answer.error), t.idpUnavailable);
    let identity: UpstreamIdentity | undefined;
    try {
      identity = idp.type === 'oidc' ? await this.upstreamTrips.identify(idp, trip) : trip.answer.identity;
    } catch (error) {
      const reason = classifyUpstreamFailure(idp, error);
      return this.interactions.showError(req, res, REFUSALS[reason].status, reason, error instanceof Error ? error.message : String(error));
    }
    if (!identity) return this.interactions.showError(req, res, 400, 'invalid_response', t.idpRefused);
    const settings = idp.type === 'saml' ? samlSettingsOf(idp) : settingsOf(idp);
    const decision = await this.accounts.preview(idp, accountRulesOf(settings), identity);
    const userId = decision.kind === 'linked' || decision.kind === 'link' ? decision.userId : undefined;
    const user = userId ? await this.loginUsers.findById(userId) : null;
    this.interactions.render(res, () => idpTestPage(locale, t, idp.name, identity, decision, user?.loginName));
  }
}
