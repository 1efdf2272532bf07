import type { OidcContext } from 'oidc-provider';
import { messages } from '../../login/messages.js';
import { loggedOutPage, logoutPage } from '../../login/login.views.js';
import { AssertionReplayGuard } from '../grants/assertion-replay.js';
import { impersonationHolds } from '../grants/impersonation.js';
import { deviceFlowFeature } from '../device/device-flow.js';
import type { DeviceFlowDeps } from '../device/device-flow.js';
import { introspectionPolicy } from './introspection.policy.js';
import { requestObjectChecks } from './request-object.js';
import { dpopFeature } from './dpop.js';
import { resourceIndicators } from './resource-indicators.js';
import { localeOf } from './provider-configuration.js';
import { signingAlg } from './provider-deps.js';
import type { ProviderDeps } from './provider-deps.js';
import type { ProviderAgentParts } from './provider-agents.js';

/** What the device flow needs, shared by its feature here and its routes (applyDeviceFlow, provider-extensions.ts). */
export function deviceInputs(deps: ProviderDeps): DeviceFlowDeps {
  const { dataSource, uow, hasher } = deps;
  return { dataSource, uow, hasher, pollIntervalSeconds: deps.device?.pollIntervalSeconds ?? 5, rateLimiter: deps.device?.userCodeLimiter };
}

/** The features part: which of oidc-provider's features are on, and how each is set for this instance. */
export function providerFeatures(deps: ProviderDeps, device: DeviceFlowDeps, agents: ProviderAgentParts) {
  const { dataSource, hasher } = deps;
  return {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: {
      enabled: true,
      allowedPolicy: introspectionPolicy(
        dataSource,
        deps.accounts,
        (act, subjectId) => impersonationHolds(deps.access, deps.uow.manager, act, subjectId),
        deps.entry,
      ),
    },
    revocation: { enabled: true },
    // JAR (RFC 9101; docs/oauth-profiles.md, "Signed request objects (JAR, RFC 9101)"), signed with the
    // application's own keys; required per application.
    requestObjects: { enabled: true, requireSignedRequestObject: false, assertJwtClaimsAndHeader: requestObjectChecks(new AssertionReplayGuard(deps.uow)) },
    // JARM (docs/oauth-profiles.md, "Signed authorization responses (JARM)"), response_mode=jwt and its variants,
    // signed with the instance's key (or the application's alg).
    jwtResponseModes: { enabled: true },
    // RFC 9449 (docs/oauth-profiles.md, "DPoP"): nonce required, proofs single-use across processes (dpop.ts). A bound token is
    // refused as a Bearer token by userinfo (oidc-provider) and by the admin API and SCIM (bearer.strategy.ts).
    dPoP: dpopFeature(hasher),
    userinfo: { enabled: true },
    // OIDC Back-Channel Logout 1.0 (docs/oauth-profiles.md, "Back-channel logout"), for its discovery and client
    // metadata; the logout tokens go through
    // the outbox (src/oidc/logout), never inline (extensions/backchannel-logout.ts).
    backchannelLogout: { enabled: true },
    rpInitiatedLogout: {
      enabled: true,
      logoutSource: async (ctx: OidcContext, form: string) => {
        const locale = localeOf(ctx);
        ctx.type = 'html';
        ctx.body = logoutPage(locale, messages(locale), form);
      },
      postLogoutSuccessSource: async (ctx: OidcContext) => {
        const locale = localeOf(ctx);
        ctx.type = 'html';
        ctx.body = loggedOutPage(locale, messages(locale));
      },
    },
    resourceIndicators: resourceIndicators(dataSource, deps.instance, signingAlg(deps), deps.loginPolicy),
    // RFC 8628 (docs/oauth-profiles.md, "Device authorization grant"): the user's pages at
    // OIDC_ROUTES.code_verification (src/oidc/device/).
    deviceFlow: deviceFlowFeature(device),
    ...agents.features,
  };
}
