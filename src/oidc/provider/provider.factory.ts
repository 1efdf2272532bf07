import { hash, timingSafeEqual } from 'node:crypto';
import Provider, { errors } from 'oidc-provider';
import type { Configuration, OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import type { InstanceEntity } from '../../users/entities/instance.entity.js';
import type { AccountFinder } from '../account/account.finder.js';
import { findAccountWithinOrganization } from '../account/organization-boundary.js';
import { AuditedRemoval } from '../adapter/audited-removal.js';
import { ClientStore, CLIENT_EXTRA } from '../adapter/client.store.js';
import { TypeOrmAdapter } from '../adapter/typeorm.adapter.js';
import type { PrivateJwk } from '../keys/signing-keys.service.js';
import { chooseLocale, messages } from '../login/messages.js';
import { errorPage, loggedOutPage, logoutPage } from '../login/login.views.js';
import { API_AUDIENCE, apiAudienceAllowed, audienceOf, projectsOfOrganization, requestedProjects } from '../tokens/audience.js';
import { JwtTokenIds, jwtPersistingCustomizer } from '../tokens/jwt-access-tokens.js';
import { honourJwtAccessTokensAtUserinfo } from '../tokens/jwt-userinfo.js';
import { registerJwtProfileGrant } from '../grants/jwt-profile.grant.js';
import { actClaim, registerTokenExchangeGrant } from '../grants/token-exchange.grant.js';
import type { TokenExchangeDeps } from '../grants/token-exchange.grant.js';
import { buildInteractionPolicy } from './interaction.policy.js';
import { introspectionPolicy } from './introspection.policy.js';
import { OIDC_ROUTES, LOGIN_UI_PREFIX } from './oidc.routes.js';
import { SCOPES } from './scopes.js';

export interface ProviderDeps extends Pick<TokenExchangeDeps, 'features' | 'access' | 'uow' | 'events'> {
  issuer: string;
  dataSource: DataSource;
  hasher: SecretHasher;
  accounts: AccountFinder;
  keys: PrivateJwk[];
  /** The published keys as they are in the database now (public parts), for JWTs of a newer key. */
  reloadKeys?: () => Promise<object[]>;
  instance: InstanceEntity;
}

const CLAIMS = {
  openid: ['sub'],
  profile: ['name', 'given_name', 'family_name', 'nickname', 'preferred_username', 'gender', 'locale', 'zoneinfo', 'profile', 'updated_at'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  address: ['address'],
};

/** Builds oidc-provider for the current signing keys; ProviderHolder rebuilds it when they rotate. */
export function createProvider(deps: ProviderDeps): Provider {
  const { dataSource, hasher, instance } = deps;
  const secure = deps.issuer.startsWith('https:');
  const cookie = { httpOnly: true, sameSite: 'lax', secure, signed: true, path: '/' };
  const clients = new ClientStore(dataSource);
  const jwtIds = new JwtTokenIds(deps.keys.map(publicPart), deps.issuer, deps.reloadKeys);
  const audit = new AuditedRemoval(deps.uow, deps.events);
  const adapterFor = (name: string) => (name === 'Client' ? clients : new TypeOrmAdapter(name, dataSource, hasher, deps.uow, jwtIds, audit));
  const configuration: Configuration = {
    adapter: adapterFor,
    findAccount: (ctx: OidcContext, sub: string, token?: unknown) => findAccountWithinOrganization(deps.accounts, ctx, sub, token),
    jwks: { keys: deps.keys },
    // Derived from the master key: the same in every process, never random per process (DESIGN §2).
    cookies: { keys: [hasher.hash('portcullis/oidc/cookie-key/v1')], long: cookie, short: cookie },
    scopes: SCOPES,
    claims: CLAIMS,
    routes: OIDC_ROUTES,
    responseTypes: ['code', 'id_token', 'id_token token'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
    enabledJWA: {
      // No HS* anywhere: client_secret holds a hash and must never become a MAC key.
      idTokenSigningAlgValues: ['RS256', 'ES256', 'EdDSA'],
      clientAuthSigningAlgValues: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'EdDSA'],
      userinfoSigningAlgValues: ['RS256', 'ES256', 'EdDSA'],
      introspectionSigningAlgValues: ['RS256', 'ES256', 'EdDSA'],
      authorizationSigningAlgValues: ['RS256', 'ES256', 'EdDSA'],
      requestObjectSigningAlgValues: ['RS256', 'ES256', 'EdDSA'],
    },
    // Spec §B: PKCE (S256 only) is required for clients without authentication.
    pkce: { required: (_ctx: OidcContext, client: { clientAuthMethod: string }) => client.clientAuthMethod === 'none' },
    extraClientMetadata: { properties: [...CLIENT_EXTRA] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: introspectionPolicy(dataSource) },
      revocation: { enabled: true },
      // RFC 9449 §7.2 wants a DPoP-bound token refused without its proof wherever it is accepted (the
      // admin API, SCIM, userinfo, introspection); until every one of them checks proofs, no token is
      // bound and discovery advertises no DPoP.
      dPoP: { enabled: false },
      userinfo: { enabled: true },
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
      resourceIndicators: {
        enabled: true,
        // Machine users' tokens are for the Portcullis API (DESIGN §4); JWT-format application tokens
        // need a resource server too, since oidc-provider only issues JWTs for one.
        defaultResource: async (ctx: OidcContext, client: ClientMeta) => {
          await assertOwnProjects(dataSource, ctx, client);
          return defaultResource(ctx, client);
        },
        useGrantedResource: () => true,
        getResourceServerInfo: async (ctx: OidcContext, resource: string, client: ClientMeta) => {
          // An application gets no more than its owner: the API only for first-party applications and machine users.
          if (resource === API_AUDIENCE && !apiAudienceAllowed(client)) throw new errors.InvalidTarget('this client may not obtain tokens for the Portcullis API');
          return resourceServerInfo(ctx, resource, client, instance, deps.keys[0]?.alg ?? 'RS256');
        },
      },
    },
    // RFC 9068 §2.1: JWT access tokens are typed at+jwt (oidc-provider sets it) and persisted so they
    // stay introspectable and revocable like opaque ones (DESIGN §5).
    extraTokenClaims: (ctx: OidcContext) => actClaim(ctx),
    formats: { customizers: { jwt: jwtPersistingCustomizer(adapterFor, (clientId, scope) => audienceOf(dataSource, clientId, scope)) } },
    interactions: {
      policy: buildInteractionPolicy(),
      url: (_ctx: OidcContext, interaction: { uid: string }) => `${LOGIN_UI_PREFIX}/${interaction.uid}`,
    },
    // First-party clients only: what the client asks for (within its registration) is granted.
    loadExistingGrant: (ctx: OidcContext) => grantRequested(ctx),
    // Refresh tokens rotate on every use; a reused one revokes the grant (RFC 9700 §4.14.2).
    rotateRefreshToken: true,
    ttl: {
      AccessToken: instance.accessTokenLifetime,
      ClientCredentials: instance.accessTokenLifetime,
      IdToken: instance.idTokenLifetime,
      AuthorizationCode: 60,
      Interaction: 3600,
      Session: instance.refreshTokenAbsoluteLifetime,
      Grant: instance.refreshTokenAbsoluteLifetime,
      RefreshToken: (_ctx: OidcContext, token: { iat: number; iiat?: number }) => {
        const now = Math.floor(Date.now() / 1000);
        const absoluteEnd = (token.iiat ?? token.iat ?? now) + instance.refreshTokenAbsoluteLifetime;
        return Math.max(1, Math.min(instance.refreshTokenIdleLifetime, absoluteEnd - now));
      },
    },
    renderError: async (ctx: OidcContext, out: { error: string; error_description?: string }) => {
      const locale = localeOf(ctx);
      ctx.type = 'html';
      ctx.body = errorPage(locale, messages(locale), out.error, out.error_description);
    },
    clockTolerance: 5,
    // Request objects are not supported (OIDC Discovery §3: stated explicitly rather than by omission).
    discovery: { claim_types_supported: ['normal'], request_parameter_supported: false, request_uri_parameter_supported: false },
  };
  const provider = new Provider(deps.issuer, configuration);
  // Client secrets are stored as keyed hashes (DESIGN §5): compare the presented secret's hash.
  // oidc-provider treats client_secret_basic and _post as one; Portcullis holds each client to its
  // registered method (machine users excepted: spec §B allows both for client_credentials).
  // A client sends the same secret on every request: a Client (one per registration and stored hash)
  // remembers the SHA-256 of the secret it last accepted, so a repeat costs a plain hash, not an HMAC.
  const accepted = new WeakMap<SecretClient, Buffer>();
  provider.Client.prototype.compareClientSecret = function compare(this: SecretClient, actual: string) {
    if (typeof this.clientSecret !== 'string') return false;
    if (this.portcullis_kind !== 'machine' && presentedSecretMethod() !== registeredMethod(this)) return false;
    const digest = hash('sha256', actual, 'buffer');
    const known = accepted.get(this);
    if (known && timingSafeEqual(known, digest)) return true;
    if (!hasher.matches(actual, this.clientSecret)) return false;
    accepted.set(this, digest);
    return true;
  };
  allowLoopbackForDevMode(provider);
  honourUserinfoAssertion(provider);
  honourJwtAccessTokensAtUserinfo(provider);
  registerJwtProfileGrant(provider, {
    dataSource,
    uow: deps.uow,
    accounts: deps.accounts,
    issuer: deps.issuer,
    accessTokenTtl: instance.accessTokenLifetime,
    alg: deps.keys[0]?.alg ?? 'RS256',
  });
  registerTokenExchangeGrant(provider, {
    ...deps,
    ownJwts: jwtIds,
    accessTokenTtl: instance.accessTokenLifetime,
    alg: deps.keys[0]?.alg ?? 'RS256',
  });
  return provider;
}

interface SecretClient {
  clientSecret?: string;
  portcullis_kind?: string;
  tokenEndpointAuthMethod: string;
  introspectionEndpointAuthMethod?: string;
  revocationEndpointAuthMethod?: string;
}

function presentedSecretMethod(): string {
  return Provider.ctx?.headers?.authorization ? 'client_secret_basic' : 'client_secret_post';
}

function registeredMethod(client: SecretClient): string {
  const route = Provider.ctx?.oidc?.route;
  if (route === 'introspection') return client.introspectionEndpointAuthMethod ?? client.tokenEndpointAuthMethod;
  if (route === 'revocation') return client.revocationEndpointAuthMethod ?? client.tokenEndpointAuthMethod;
  return client.tokenEndpointAuthMethod;
}

interface ClientMeta {
  clientId: string;
  portcullis_kind?: string;
  portcullis_org_id?: string;
  portcullis_api_access?: boolean;
  portcullis_access_token_type?: string;
  portcullis_project_id?: string;
}

/** What oidc-provider needs to issue a token for a resource (RFC 8707). */
function resourceServerInfo(ctx: OidcContext, resource: string, client: ClientMeta, instance: InstanceEntity, alg: string) {
  return {
    scope: resourceServerScope(ctx, client),
    // oidc-provider takes one audience string; the full audience is computed from the client and scopes
    // where it matters (JWT claim, introspection, API access): tokens/audience.ts.
    audience: resource,
    accessTokenTTL: instance.accessTokenLifetime,
    accessTokenFormat: client.portcullis_access_token_type === 'jwt' ? 'jwt' : 'opaque',
    jwt: { sign: { alg } },
    resource,
  };
}

/**
 * Project audience scopes name only projects of the client's own organization: another organization's
 * project id is refused with invalid_scope in every flow (SECURITY.md, "Applications get no more than
 * their owners"). Run where oidc-provider resolves a request's resources, before anything is issued.
 */
async function assertOwnProjects(dataSource: DataSource, ctx: OidcContext, client: ClientMeta): Promise<void> {
  const projects = [...new Set(requestedProjects(requestedScope(ctx)))];
  if (projects.length === 0 || client.portcullis_kind === 'machine') return;
  const own = await projectsOfOrganization(dataSource, client.portcullis_org_id ?? '', projects);
  const foreign = projects.filter((p) => !own.has(p));
  if (foreign.length > 0) throw new errors.InvalidScope(`no project ${foreign.join(', ')} in the organization of this client`, foreign.map((p) => `urn:portcullis:iam:org:project:id:${p}:aud`).join(' '));
}

function defaultResource(_ctx: OidcContext, client: ClientMeta): string | undefined {
  if (client.portcullis_kind === 'machine') return API_AUDIENCE;
  if (client.portcullis_access_token_type === 'jwt' && client.portcullis_project_id) return `urn:portcullis:project:${client.portcullis_project_id}`;
  return undefined;
}

function requestedScope(ctx: OidcContext): string {
  return String(ctx.oidc?.params?.scope ?? '');
}

/**
 * The scopes a resource server accepts; oidc-provider narrows a token's scope to them. A user's token
 * issued for a resource server (every JWT access token of an application is) keeps the OIDC scopes and
 * audience scopes of its code or refresh token, so userinfo can answer with the claims of its granted
 * scopes (DESIGN §5); the grant still filters what is actually granted. Machine users keep the scopes
 * of the request.
 */
function resourceServerScope(ctx: OidcContext, client: ClientMeta): string {
  const requested = requestedScope(ctx);
  if (client.portcullis_kind === 'machine') return requested;
  const entities = ctx.oidc?.entities ?? {};
  const source = String(entities.AuthorizationCode?.scope ?? entities.RefreshToken?.scope ?? '');
  return [...new Set([...SCOPES, ...requested.split(' '), ...source.split(' ')].filter(Boolean))].join(' ');
}

async function grantRequested(ctx: OidcContext) {
  const { oidc } = ctx;
  const grantId = oidc.result?.consent?.grantId || oidc.session.grantIdFor(oidc.client.clientId);
  const existing = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
  const grant = existing ?? new oidc.provider.Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId });
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

/**
 * DESIGN §5: devMode applications may register http and loopback redirect URIs, also with the implicit
 * flow, which oidc-provider otherwise refuses for web clients (its documented extension point).
 */
function allowLoopbackForDevMode(provider: Provider): void {
  const schema = provider.Client.Schema.prototype;
  const invalidate = schema.invalidate;
  schema.invalidate = function (this: { portcullis_dev_mode?: boolean }, message: string, code?: string) {
    if (this.portcullis_dev_mode && (code === 'implicit-force-https' || code === 'implicit-forbid-localhost')) return;
    invalidate.call(this, message, code);
  };
}

/** The public members of a private JWK (RFC 7518 §6.2.2, §6.3.2, RFC 8037 §2). */
export function publicPart(jwk: PrivateJwk): object {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
  return pub;
}

/**
 * Spec §B: with an access token, the id_token omits the profile/email/phone/address claims unless the
 * application sets `idTokenUserinfoAssertion`. oidc-provider applies the omission (conformIdTokenClaims)
 * by narrowing the ID token's scope to `openid`; for those applications it is widened back to the
 * scope of the code, refresh token or request the claims were read for.
 */
function honourUserinfoAssertion(provider: Provider): void {
  const proto = provider.IdToken.prototype;
  const issue = proto.issue;
  proto.issue = function (this: { ctx?: OidcContext; scope?: string }, ...args: unknown[]) {
    const oidc = this.ctx?.oidc;
    if (oidc?.client?.portcullis_userinfo_assertion && this.scope === 'openid') {
      const source = oidc.entities?.AuthorizationCode ?? oidc.entities?.RefreshToken;
      const scope = source?.scope ?? oidc.params?.scope;
      if (typeof scope === 'string') this.scope = scope;
    }
    return issue.apply(this, args);
  };
}
