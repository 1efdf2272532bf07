import Provider from 'oidc-provider';
import type { Configuration, OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { DynamicRegistrationBounds } from '../../common/config/config.js';
import { PairwiseSubjects } from '../../common/crypto/pairwise-subjects.js';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import type { SessionEnds } from '../../common/auth/session-ends.js';
import type { InstanceEntity } from '../../users/entities/instance.entity.js';
import type { TokenLifetimes } from '../../settings/settings.values.js';
import type { AccountFinder } from '../account/account.finder.js';
import { findAccountWithinOrganization } from '../account/organization-boundary.js';
import { requestedAudience } from '../account/resource-audience.js';
import { refuseRefreshWithoutSecondFactor } from '../account/refresh-second-factor.js';
import { AuditedRemoval } from '../adapter/audited-removal.js';
import { ClientStore, CLIENT_EXTRA } from '../adapter/client.store.js';
import type { RemoteClientKeys } from '../adapter/remote-client-keys.js';
import type { ClientIdMetadataDocuments } from '../../agents/metadata-documents/client-id-metadata-documents.js';
import { clientServing } from '../../agents/agent-organization.js';
import type { AgentClientPolicy } from '../../agents/agent-organization.js';
import { CLIENT_KEY_ALGS } from '../../common/crypto/client-jwks.js';
import { OidcPayloadAdapter } from '../adapter/oidc-payload.adapter.js';
import { storeSessionBeforeApproval } from '../device/session-before-approval.js';
import type { PrivateJwk } from '../keys/signing-keys.service.js';
import { chooseLocale, messages } from '../../login/messages.js';
import { errorPage, loggedOutPage, logoutPage } from '../../login/login.views.js';
import { ACR_VALUES } from '../../login/authentication-methods.js';
import { audienceOf } from '../tokens/audience.js';
import { JwtTokenIds, jwtPersistingCustomizer } from '../tokens/jwt-access-tokens.js';
import { registerJwtProfileGrant } from '../grants/jwt-profile.grant.js';
import { AssertionReplayGuard } from '../grants/assertion-replay.js';
import { registerTokenExchangeGrant, tokenExtras } from '../grants/token-exchange.grant.js';
import { actOf, impersonationHolds } from '../grants/impersonation.js';
import type { TokenExchangeDeps } from '../grants/token-exchange.grant.js';
import type { IdJagServices } from '../../agents/id-jag/id-jag.services.js';
import { buildInteractionPolicy } from './interaction.policy.js';
import { agentConsentMissing } from '../../agents/consent/agent-consent-gate.js';
import { introspectionPolicy } from './introspection.policy.js';
import { assertClientAssertionLifetime } from './client-assertion.js';
import { OIDC_ROUTES } from './oidc.routes.js';
import { setOAuthError } from './oauth-errors.js';
import { LOGIN_UI_PREFIX } from '../../login/ui-paths.js';
import { accountClient } from './account-client.js';
import { reuseClientsOfUnchangedRegistrations } from './extensions/client-reuse.js';
import { applyLibraryExtensions, applyProviderExtensions } from './extensions/index.js';
import { keepOfflineAccessOfSilentRequest } from './extensions/request-rules.js';
import { countIssuedTokens } from './token-metrics.js';
import { completeImplicitResponses } from './implicit-response.js';
import { resourceIndicators } from './resource-indicators.js';
import { SCOPES } from './scopes.js';
import { requestObjectChecks } from './request-object.js';
import { DPOP_SIGNING_ALGS } from '../../common/auth/dpop-proof.js';
import { DpopReplayGuard, dpopFeature } from './dpop.js';
import { explainDpopRefusals } from './dpop-errors.js';
import { useAtomicReplayDetection } from './extensions/replay-detection.js';
import { applyDeviceFlow, deviceFlowFeature } from '../device/device-flow.js';
import type { UserCodeLimiter } from '../device/device-flow.js';
import { bindAtFirstCode, clientForBoundary, dynamicRegistrationFeatures } from '../../agents/registration/dynamic-registration.js';
import type { DynamicRegistrationDeps, RegistrationLimiter } from '../../agents/registration/dynamic-registration.js';

export interface ProviderDeps extends Pick<TokenExchangeDeps, 'features' | 'access' | 'uow' | 'events' | 'entry'> {
  /** The organization's login policy, read on use (second factor; agent clients, docs/agents.md). */
  loginPolicy: (orgId: string) => Promise<{ mfa: string } & AgentClientPolicy>;
  issuer: string;
  dataSource: DataSource;
  hasher: SecretHasher;
  accounts: AccountFinder;
  keys: PrivateJwk[];
  /** The published keys as they are in the database now (public parts), for JWTs of a newer key. */
  reloadKeys?: () => Promise<object[]>;
  instance: InstanceEntity;
  /** Told when end-session ends a session (the SAML IdP's single logout). */
  sessionEnds: SessionEnds;
  /** The organization's login policy, read on use (the second-factor check of the login prompt). */
  /** RFC 8628 (device-flow.ts): the polling interval a device is told, and the per-IP limit of the user code page. */
  device?: { pollIntervalSeconds: number; userCodeLimiter?: UserCodeLimiter };
  /** Keys applications serve at their jwks_uri (docs/oauth-profiles.md, "Client keys"). */
  remoteClientKeys: RemoteClientKeys;
  /** Clients known by their metadata document (docs/agents.md, "Client ID Metadata Documents"); none without it. */
  agentDocuments?: ClientIdMetadataDocuments;
  /** The per-address limit of dynamic client registrations (docs/agents.md, "Dynamic registration"). */
  registrationLimiter?: RegistrationLimiter;
  /** How many registered clients are held at most, per organization and unbound (docs/agents.md, "Dynamic registration"). */
  registrationBounds: DynamicRegistrationBounds;
  /** Enterprise-managed authorization's external resources, access rule and trusted issuers (src/agents/id-jag/). */
  idJag: IdJagServices;
  /** Token lifetimes of the instance's settings and of a client's application, read on use (src/settings). */
  lifetimes: { refresh(): Promise<void>; of(clientId?: string): TokenLifetimes };
}

/** The part of oidc-provider's Client the ttl functions read. */
type ClientRef = { clientId: string };

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'];

const CLAIMS = {
  // How the user authenticated (docs/product-rules.md, "Multi-factor sign-in"): in every ID token. The
  // account's claims never hold them, so userinfo answers neither.
  openid: ['sub', 'acr', 'amr'],
  profile: ['name', 'given_name', 'family_name', 'nickname', 'preferred_username', 'gender', 'locale', 'zoneinfo', 'profile', 'updated_at'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  address: ['address'],
  // The names of the user's groups (docs/product-rules.md, "Groups").
  groups: ['groups'],
  // The user's roles in the token's project (docs/product-rules.md, "Application access").
  roles: ['roles'],
};

/** Builds oidc-provider for the current signing keys; ProviderHolder rebuilds it when they rotate. */
export function createProvider(deps: ProviderDeps): Provider {
  const { dataSource, hasher, instance } = deps;
  const secure = deps.issuer.startsWith('https:');
  const cookie = { httpOnly: true, sameSite: 'lax', secure, signed: true, path: '/' };
  const clients = new ClientStore(dataSource, deps.issuer, deps.keys[0]?.alg ?? 'RS256', deps.remoteClientKeys, deps.agentDocuments, {
    uow: deps.uow,
    events: deps.events,
    bounds: deps.registrationBounds,
  });
  const jwtIds = new JwtTokenIds(deps.keys.map(publicPart), deps.issuer, deps.reloadKeys);
  const audit = new AuditedRemoval(deps.uow, deps.events, deps.sessionEnds);
  const device = { dataSource, uow: deps.uow, hasher, pollIntervalSeconds: deps.device?.pollIntervalSeconds ?? 5, rateLimiter: deps.device?.userCodeLimiter };
  const pairwise = new PairwiseSubjects(hasher);
  const sessionTtl = instance.refreshTokenAbsoluteLifetime;
  const beforeDeviceApproval = () => storeSessionBeforeApproval(sessionTtl);
  const adapterFor = (name: string) =>
    name === 'Client' ? clients : new OidcPayloadAdapter(name, dataSource, hasher, deps.uow, jwtIds, audit, beforeDeviceApproval);
  const configuration: Configuration = {
    adapter: adapterFor,
    findAccount: async (ctx: OidcContext, sub: string, token?: unknown) => {
      const account = await findAccountWithinOrganization(deps.accounts, dataSource, deps.entry, ctx, sub, token);
      if (account) await refuseRefreshWithoutSecondFactor(account, token, deps.loginPolicy);
      // An impersonation ends with its actor's right to it (impersonation.ts): userinfo refuses the token.
      const act = actOf(token);
      if (account && act && !(await impersonationHolds(deps.access, deps.uow.manager, act, sub))) return undefined;
      return account;
    },
    jwks: { keys: deps.keys },
    clients: [accountClient(deps.issuer)],
    // ID tokens are signed with the signer's algorithm (SIGNING_ALG); no client registers its own.
    clientDefaults: { id_token_signed_response_alg: deps.keys[0]?.alg ?? 'RS256', authorization_signed_response_alg: deps.keys[0]?.alg ?? 'RS256' },
    // Derived from the master key: the same in every process, never random per process (docs/product-rules.md, "Running it").
    cookies: { keys: [hasher.hash('portcullis/oidc/cookie-key/v1')], long: cookie, short: cookie },
    scopes: SCOPES,
    claims: CLAIMS,
    // OIDC Core §8: an application chooses public or pairwise (docs/oauth-profiles.md, "Pairwise subjects"); oidc-provider
    // then gives a pairwise client this `sub` in ID tokens, userinfo, introspection and JWT access tokens.
    subjectTypes: ['public', 'pairwise'],
    pairwiseIdentifier: async (_ctx: OidcContext, accountId: string, client: { subjectType: string; redirectUris: string[] }) =>
      pairwise.subjectFor(client, accountId),
    routes: OIDC_ROUTES,
    responseTypes: ['code', 'id_token', 'id_token token'],
    clientAuthMethods: CLIENT_AUTH_METHODS,
    // docs/product-rules.md, "OpenID Connect and OAuth": redirect_uri is required at the authorization endpoint, and at the token endpoint it
    // must equal the authorization request's (RFC 6749 §4.1.3), even with one registered URI.
    allowOmittingSingleRegisteredRedirectUri: false,
    enabledJWA: {
      // No HS* anywhere: client_secret holds a hash and must never become a MAC key.
      idTokenSigningAlgValues: ['RS256', 'ES256', 'EdDSA'],
      // What the keys an application may hold sign with (docs/oauth-profiles.md, "Client keys"); discovery lists these.
      clientAuthSigningAlgValues: CLIENT_KEY_ALGS,
      userinfoSigningAlgValues: ['RS256', 'ES256', 'EdDSA'],
      introspectionSigningAlgValues: ['RS256', 'ES256', 'EdDSA'],
      authorizationSigningAlgValues: ['RS256', 'ES256', 'EdDSA'],
      requestObjectSigningAlgValues: CLIENT_KEY_ALGS,
      // The same list the admin API and SCIM accept (common/auth/dpop-proof.ts); asymmetric only (RFC 9449 §4.2).
      dPoPSigningAlgValues: DPOP_SIGNING_ALGS,
    },
    // docs/product-rules.md, "OpenID Connect and OAuth": PKCE (S256 only) is required for clients without authentication.
    pkce: { required: (_ctx: OidcContext, client: { clientAuthMethod: string }) => client.clientAuthMethod === 'none' },
    extraClientMetadata: { properties: [...CLIENT_EXTRA] },
    assertJwtClientAuthClaimsAndHeader: assertClientAssertionLifetime,
    features: {
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
      resourceIndicators: resourceIndicators(dataSource, instance, deps.keys[0]?.alg ?? 'RS256', deps.loginPolicy),
      // RFC 8628 (docs/oauth-profiles.md, "Device authorization grant"): the user's pages at
      // OIDC_ROUTES.code_verification (src/oidc/device/).
      deviceFlow: deviceFlowFeature(device),
      // RFC 7591 and RFC 7592 for agents (docs/agents.md, "Dynamic registration"), gated per organization.
      ...dynamicRegistrationFeatures(),
    },
    // RFC 9068 §2.1: JWT access tokens are typed at+jwt (oidc-provider sets it) and persisted so they
    // stay introspectable and revocable like opaque ones (docs/product-rules.md, "OpenID Connect and OAuth").
    extraTokenClaims: (ctx: OidcContext) => tokenExtras(ctx),
    formats: {
      customizers: {
        jwt: jwtPersistingCustomizer(
          adapterFor,
          (clientId, scope, userId) => audienceOf(dataSource, clientId, scope, userId),
          (userId, clientId, scope, resource) => deps.accounts.rolesOf(userId, clientId, scope, resource),
        ),
      },
    },
    // `idp_hint=<idpId>` sends the browser straight to that identity provider (docs/federation.md, "Signing in").
    extraParams: ['idp_hint'],
    interactions: {
      policy: buildInteractionPolicy(
        deps.loginPolicy,
        (ctx: OidcContext) => clientServing(dataSource, ctx.oidc.client, ctx.oidc.params?.resource),
        deps.entry,
        (ctx: OidcContext) => requestedAudience(dataSource, ctx.oidc.client, ctx.oidc.params),
      ),
      url: (_ctx: OidcContext, interaction: { uid: string }) => `${LOGIN_UI_PREFIX}/${interaction.uid}`,
    },
    // What an administrator's client asks for (within its registration) is granted; an agent client gets it only
    // once the person allowed it (docs/agents.md, "Consent and connected agents"), else the consent prompt follows.
    loadExistingGrant: async (ctx: OidcContext) => ((await agentConsentMissing(deps.uow.manager, ctx)) ? undefined : grantRequested(ctx)),
    // Refresh tokens rotate on every use; a reused one revokes the grant (RFC 9700 §4.14.2).
    rotateRefreshToken: true,
    ttl: {
      // The instance's settings and the client's own lifetimes, read on use (docs/operations.md, "Settings").
      AccessToken: (_ctx: OidcContext, _token: unknown, client?: ClientRef) => deps.lifetimes.of(client?.clientId).accessTokenSeconds,
      ClientCredentials: (_ctx: OidcContext, _token: unknown, client?: ClientRef) => deps.lifetimes.of(client?.clientId).accessTokenSeconds,
      IdToken: (_ctx: OidcContext, _token: unknown, client?: ClientRef) => deps.lifetimes.of(client?.clientId).idTokenSeconds,
      AuthorizationCode: 60,
      DeviceCode: 600,
      Interaction: 3600,
      Session: sessionTtl,
      Grant: (_ctx: OidcContext, _grant: unknown, client?: ClientRef) => deps.lifetimes.of(client?.clientId).refreshAbsoluteSeconds,
      RefreshToken: (_ctx: OidcContext, token: { iat: number; iiat?: number }, client?: ClientRef) => {
        const { refreshIdleSeconds, refreshAbsoluteSeconds } = deps.lifetimes.of(client?.clientId);
        const now = Math.floor(Date.now() / 1000);
        const absoluteEnd = (token.iiat ?? token.iat ?? now) + refreshAbsoluteSeconds;
        return Math.max(1, Math.min(refreshIdleSeconds, absoluteEnd - now));
      },
    },
    renderError: async (ctx: OidcContext, out: { error: string; error_description?: string }) => {
      const locale = localeOf(ctx);
      ctx.type = 'html';
      ctx.body = errorPage(locale, messages(locale), out.error, out.error_description);
    },
    // docs/product-rules.md, "Multi-factor sign-in": the acr values a sign-in can reach (discovery's acr_values_supported).
    acrValues: ACR_VALUES,
    clockTolerance: 5,
    // Request objects by value (RFC 9101) and by PAR; no request_uri of the client's own (OIDC Discovery §3: stated explicitly).
    discovery: {
      claim_types_supported: ['normal'],
      request_parameter_supported: true,
      request_uri_parameter_supported: false,
      // RFC 8414 §2: the methods each endpoint accepts (docs/product-rules.md, "OpenID Connect and OAuth": introspection only basic and private_key_jwt).
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'private_key_jwt'],
      revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    },
  };
  applyLibraryExtensions();
  const provider = new Provider(deps.issuer, configuration);
  // The ttl functions above answer synchronously: each request first brings the settings up to date.
  provider.use(async (_ctx: unknown, next: () => Promise<void>) => {
    await deps.lifetimes.refresh();
    await next();
  });
  useAtomicReplayDetection(provider, new DpopReplayGuard(deps.uow));
  reuseClientsOfUnchangedRegistrations(provider, clients, new Set(configuration.clients?.map((c: { client_id: string }) => c.client_id)));
  const registration = registrationDeps(deps);
  applyProviderExtensions(provider, hasher, (client, code) => bindAtFirstCode(registration, client, code));
  countIssuedTokens(provider);
  explainDpopRefusals(provider);
  applyDeviceFlow(provider, device);
  completeImplicitResponses(provider, deps.instance.idTokenLifetime);
  registerJwtProfileGrant(provider, {
    dataSource,
    uow: deps.uow,
    accounts: deps.accounts,
    idJag: deps.idJag,
    issuer: deps.issuer,
    get accessTokenTtl() {
      return deps.lifetimes.of().accessTokenSeconds;
    },
    alg: deps.keys[0]?.alg ?? 'RS256',
  });
  registerTokenExchangeGrant(provider, {
    ...deps,
    pairwise,
    ownJwts: jwtIds,
    signingKey: deps.keys[0],
    get accessTokenTtl() {
      return deps.lifetimes.of().accessTokenSeconds;
    },
    alg: deps.keys[0]?.alg ?? 'RS256',
  });
  return provider;
}

/** What dynamic registration (src/agents/registration) needs of the provider's inputs. */
export function registrationDeps(deps: ProviderDeps): DynamicRegistrationDeps {
  return {
    dataSource: deps.dataSource,
    uow: deps.uow,
    events: deps.events,
    hasher: deps.hasher,
    limiter: deps.registrationLimiter,
    bounds: deps.registrationBounds,
    oauthError: setOAuthError,
  };
}

async function grantRequested(ctx: OidcContext) {
  const { oidc } = ctx;
  const grantId = oidc.result?.consent?.grantId || oidc.session.grantIdFor(oidc.client.clientId);
  const existing = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
  const grant = existing ?? new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
  keepOfflineAccessOfSilentRequest(ctx);
  const scope = [...oidc.requestParamScopes].join(' ');
  const before = existing && grantScopes(existing);
  grant.addOIDCScope(scope);
  for (const resource of Object.keys(oidc.resourceServers ?? {})) grant.addResourceScope(resource, scope);
  // The login UI saved this grant with these scopes a moment ago: a write that changes nothing is skipped.
  if (!existing || grantScopes(grant) !== before) await grant.save();
  return grant;
}

/** What a grant allows (OIDC scope and claims, resource scopes), comparable as a string. */
function grantScopes(grant: { openid?: unknown; resources?: unknown }): string {
  return JSON.stringify([grant.openid, grant.resources]);
}

function localeOf(ctx: OidcContext) {
  return chooseLocale(ctx.oidc?.params?.ui_locales, ctx.headers?.['accept-language']);
}

/** The public members of a private JWK (RFC 7518 §6.2.2, §6.3.2, RFC 8037 §2). */
export function publicPart(jwk: PrivateJwk): object {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
  return pub;
}
