import Provider, { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import { agentKindOf } from '../../../agents/consent/agent-consent-gate.js';
import { ACCOUNT_CLIENT_ID } from '../account-client.js';

interface RequestClient {
  clientId: string;
  responseTypeAllowed(type: string): boolean;
  grantTypeAllowed(type: string): boolean;
}

/**
 * Rules of docs/product-rules.md, "OpenID Connect and OAuth" that oidc-provider has no setting for, applied where it asks the client about the
 * request. It does so at exactly one place each: `responseTypeAllowed` in the authorization (and
 * pushed authorization) endpoint's response-type check — the client is known, prompt and scope not yet
 * checked — and `grantTypeAllowed(grant_type)` first in the token endpoint's grant check. Every other
 * caller gets the boolean as before. The authorization error handler still validates the redirect URI
 * before it delivers an error there.
 *
 * - No `openid` → `invalid_scope`, unless the request names a `resource` (RFC 8707): an OAuth request for a resource
 *   server, as MCP clients make it with the scopes of the server's RFC 9728 metadata (docs/agents.md, "Resources");
 *   its token is for that resource and no ID token is issued. `require_auth_time`, which every application has for
 *   its ID tokens, is then not in force: oidc-provider would refuse the request for it (`Client#requireAuthTime`,
 *   read only by the authorization endpoint's openid-scope and claims checks). The device authorization endpoint
 *   (RFC 8628 §3.1) has the same openid-scope check and the same rule, applied at its grant-type check. A response type the application is not registered for →
 *   `unauthorized_client` (RFC 6749 §4.1.2.1); a grant type it is not registered for →
 *   `unauthorized_client` (RFC 6749 §5.2), also at the device authorization endpoint (RFC 8628 §3.2). oidc-provider answers `invalid_request` for all three.
 *   The account page's static client redeems nothing at the token endpoint: `unauthorized_client` for every grant.
 * - `offline_access` yields a refresh token whenever it is asked for. OIDC Core §11 lets a provider
 *   grant it without `prompt=consent` when other conditions permit it (Portcullis applications are
 *   first-party; the login UI answers consent itself); oidc-provider drops it unless `consent` is
 *   prompted, so `consent` is added to the request. A silent `prompt=none` request cannot carry it: its
 *   scope is put back when the existing grant is loaded (keepOfflineAccessOfSilentRequest).
 */
export function enforceRequestRules(provider: Provider): void {
  const proto = provider.Client.prototype as RequestClient;
  const responseTypeAllowed = proto.responseTypeAllowed;
  proto.responseTypeAllowed = function (this: RequestClient, type: string): boolean {
    if (!responseTypeAllowed.call(this, type)) throw new errors.UnauthorizedClient('requested response_type is not allowed for this client');
    const params = Provider.ctx?.oidc?.params;
    openidOrResource(Provider.ctx!, params);
    if (
      String(params?.scope ?? '')
        .split(' ')
        .includes('offline_access')
    )
      impliedConsent(Provider.ctx!, params);
    return true;
  };
  requireAuthTimeOnlyForOpenid(proto);
  const grantTypeAllowed = proto.grantTypeAllowed;
  proto.grantTypeAllowed = function (this: RequestClient, type: string): boolean {
    // The account page reads the login UI's session and never redeems its code (account-client.ts); a person who
    // copies the code from their address bar gets no token of a client that serves every organization.
    if (this.clientId === ACCOUNT_CLIENT_ID && isTheTokenRequestsGrant(Provider.ctx, this, type))
      throw new errors.UnauthorizedClient("the account page's sign-in is not redeemed at the token endpoint");
    if (grantTypeAllowed.call(this, type)) {
      if (isDeviceAuthorization(Provider.ctx, this, type)) deviceAuthorizationRules(Provider.ctx!, this);
      return true;
    }
    if (isTheTokenRequestsGrant(Provider.ctx, this, type)) throw new errors.UnauthorizedClient('requested grant type is not allowed for this client');
    return false;
  };
}

/** No `openid` → `invalid_scope`, unless the request names a resource: then it is one of `resourceRequests`. */
function openidOrResource(ctx: OidcContext, params: { scope?: string; resource?: unknown } | undefined): void {
  if (
    String(params?.scope ?? '')
      .split(' ')
      .includes('openid')
  )
    return;
  if (!params?.resource) throw new errors.InvalidScope('the openid scope is required', 'openid');
  resourceRequests.add(ctx);
}

/**
 * The device authorization request (RFC 8628 §3.1) follows the authorization endpoint's rules: `openid`, or a
 * `resource` instead. A client that registered itself (docs/agents.md, "Device authorization for agents") must name
 * the resource it asks for, as at the authorization endpoint: `invalid_target` (RFC 8707 §2) without one. Asked here,
 * at the endpoint's grant-type check, which comes before its scope and resource checks.
 */
function deviceAuthorizationRules(ctx: OidcContext, client: RequestClient): void {
  const params = ctx.oidc.params as { scope?: string; resource?: unknown };
  if (agentKindOf(client) && !params.resource) throw new errors.InvalidTarget('a resource is required for this client');
  openidOrResource(ctx, params);
}

function isDeviceAuthorization(ctx: OidcContext | undefined, client: RequestClient, type: string): ctx is OidcContext {
  return ctx?.oidc?.route === 'device_authorization' && ctx.oidc.client === client && type === DEVICE_CODE_GRANT;
}

const silentOfflineRequests = new WeakSet<object>();
/** Authorization and device authorization requests without `openid` that name a resource: no ID token, so no `auth_time` to require. */
const resourceRequests = new WeakSet<object>();
const requireAuthTimes = new WeakMap<object, boolean>();

/** The client's `requireAuthTime`, assigned by its constructor, read as false during a request of `resourceRequests`. */
function requireAuthTimeOnlyForOpenid(proto: RequestClient): void {
  Object.defineProperty(proto, 'requireAuthTime', {
    configurable: true,
    get(this: object): boolean {
      const ctx = Provider.ctx;
      return requireAuthTimes.get(this) === true && !(ctx && resourceRequests.has(ctx));
    },
    set(this: object, value: boolean) {
      requireAuthTimes.set(this, value);
    },
  });
}

function impliedConsent(ctx: OidcContext, params: { prompt?: string }): void {
  const prompts = new Set(
    String(params.prompt ?? '')
      .split(' ')
      .filter(Boolean),
  );
  if (prompts.has('none')) silentOfflineRequests.add(ctx);
  else if (!prompts.has('consent')) params.prompt = [...prompts, 'consent'].join(' ');
}

/** Called as the existing grant is loaded: a silent request keeps the `offline_access` it asked for. */
export function keepOfflineAccessOfSilentRequest(ctx: OidcContext): void {
  if (!silentOfflineRequests.has(ctx)) return;
  const { oidc } = ctx;
  const scopes: string[] = String(oidc.params.scope ?? '')
    .split(' ')
    .filter(Boolean);
  if (scopes.includes('offline_access')) return;
  if (!String(oidc.params.response_type).split(' ').includes('code') || !oidc.client.grantTypeAllowed('refresh_token')) return;
  oidc.params.scope = [...scopes, 'offline_access'].join(' ');
}

function isTheTokenRequestsGrant(ctx: OidcContext | undefined, client: RequestClient, type: string): boolean {
  const oidc = ctx?.oidc;
  if (oidc?.client !== client) return false;
  // RFC 8628 §3.2: the device authorization endpoint answers RFC 6749 §5.2's errors, so a client not registered
  // for the device grant is `unauthorized_client` there too (its one call site, checkClientGrantType).
  if (oidc.route === 'device_authorization') return type === DEVICE_CODE_GRANT;
  return oidc.route === 'token' && oidc.params?.grant_type === type;
}

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
