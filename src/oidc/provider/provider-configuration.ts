import type { Configuration, OidcContext } from 'oidc-provider';
import type { PairwiseSubjects } from '../../common/crypto/pairwise-subjects.js';
import { CLIENT_KEY_ALGS } from '../../common/crypto/client-jwks.js';
import { DPOP_SIGNING_ALGS } from '../../common/auth/dpop-proof.js';
import { messages } from '../../login/messages.js';
import { chooseLocale } from '../../texts/locales.js';
import { errorPage } from '../../login/login.views.js';
import { ACR_VALUES } from '../../login/authentication-methods.js';
import { CLIENT_EXTRA } from '../adapter/client.store.js';
import { accountClient } from './account-client.js';
import { assertClientAssertionLifetime } from './client-assertion.js';
import { OIDC_ROUTES } from './oidc.routes.js';
import { SCOPES } from './scopes.js';
import { signingAlg } from './provider-deps.js';
import type { ProviderDeps } from './provider-deps.js';

/** The part of oidc-provider's Client the ttl functions read. */
type ClientRef = { clientId: string };

export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'];

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

/**
 * The provider's configuration part: keys, cookies, scopes and claims, the algorithms, the clients' defaults, the
 * lifetimes and the discovery document. The adapters, features, tokens and interactions are parts of their own
 * (provider.factory.ts lists them).
 */
export function providerConfiguration(deps: ProviderDeps, pairwise: PairwiseSubjects): Configuration {
  const secure = deps.issuer.startsWith('https:');
  const cookie = { httpOnly: true, sameSite: 'lax', secure, signed: true, path: '/' };
  return {
    jwks: { keys: deps.keys },
    clients: [accountClient(deps.issuer)],
    // ID tokens are signed with the signer's algorithm (SIGNING_ALG); no client registers its own.
    clientDefaults: { id_token_signed_response_alg: signingAlg(deps), authorization_signed_response_alg: signingAlg(deps) },
    // Derived from the master key: the same in every process, never random per process (docs/product-rules.md, "Running it").
    cookies: { keys: [deps.hasher.hash('portcullis/oidc/cookie-key/v1')], long: cookie, short: cookie },
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
    // `idp_hint=<idpId>` sends the browser straight to that identity provider (docs/federation.md, "Signing in").
    extraParams: ['idp_hint'],
    // Refresh tokens rotate on every use; a reused one revokes the grant (RFC 9700 §4.14.2).
    rotateRefreshToken: true,
    ttl: lifetimes(deps),
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
}

/** The instance's settings and the client's own lifetimes, read on use (docs/operations.md, "Settings"). */
function lifetimes(deps: ProviderDeps): Configuration['ttl'] {
  return {
    AccessToken: (_ctx: OidcContext, _token: unknown, client?: ClientRef) => deps.lifetimes.of(client?.clientId).accessTokenSeconds,
    ClientCredentials: (_ctx: OidcContext, _token: unknown, client?: ClientRef) => deps.lifetimes.of(client?.clientId).accessTokenSeconds,
    IdToken: (_ctx: OidcContext, _token: unknown, client?: ClientRef) => deps.lifetimes.of(client?.clientId).idTokenSeconds,
    AuthorizationCode: 60,
    DeviceCode: 600,
    Interaction: 3600,
    Session: deps.instance.refreshTokenAbsoluteLifetime,
    Grant: (_ctx: OidcContext, _grant: unknown, client?: ClientRef) => deps.lifetimes.of(client?.clientId).refreshAbsoluteSeconds,
    RefreshToken: (_ctx: OidcContext, token: { iat: number; iiat?: number }, client?: ClientRef) => {
      const { refreshIdleSeconds, refreshAbsoluteSeconds } = deps.lifetimes.of(client?.clientId);
      const now = Math.floor(Date.now() / 1000);
      const absoluteEnd = (token.iiat ?? token.iat ?? now) + refreshAbsoluteSeconds;
      return Math.max(1, Math.min(refreshIdleSeconds, absoluteEnd - now));
    },
  };
}

/** The language of the provider's own pages (error, logout), from ui_locales or the browser's. */
export function localeOf(ctx: OidcContext) {
  return chooseLocale(ctx.oidc?.params?.ui_locales, ctx.headers?.['accept-language']);
}
