import { DomainError } from '../common/errors/domain-error.js';
import type { ErrorDetail } from '../common/errors/domain-error.js';
import type { NewOidcApplication } from './projects.service.js';
import { checkEndpointUrl } from './rules/endpoint-url.js';
import { checkOwnKeys } from './client-keys.rules.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A refresh token is issued only by a grant that signs a user in: the code flow (RFC 6749 §1.5) or the device flow
 * (RFC 8628 §3.5: the authorization server "MAY issue a refresh token").
 */
export function grantsIssueRefreshTokens(grantTypes: string[]): boolean {
  return grantTypes.includes('authorization_code') || grantTypes.includes('urn:ietf:params:oauth:grant-type:device_code');
}

/**
 * Consistency rules of an OIDC application beyond field types: response types need their grant,
 * public clients use PKCE with the code flow, and only devMode may redirect to http or loopback (docs/product-rules.md, "OpenID Connect and OAuth").
 */
export function validateOidcApplication(app: NewOidcApplication, signingAlg: string): void {
  const problems: ErrorDetail[] = [];
  const implicit = app.responseTypes.some((t) => t !== 'code');
  if (app.responseTypes.includes('code') && !app.grantTypes.includes('authorization_code')) {
    problems.push({ field: 'grantTypes', message: 'response type "code" needs the grant type authorization_code' });
  }
  if (implicit && !app.grantTypes.includes('implicit')) {
    problems.push({ field: 'grantTypes', message: 'response types "id_token" and "id_token token" need the grant type implicit' });
  }
  if (app.grantTypes.includes('refresh_token') && !grantsIssueRefreshTokens(app.grantTypes)) {
    problems.push({ field: 'grantTypes', message: 'refresh_token is only issued with authorization_code or urn:ietf:params:oauth:grant-type:device_code' });
  }
  const interactive = app.responseTypes.length > 0;
  if (interactive && app.redirectUris.length === 0) {
    problems.push({ field: 'redirectUris', message: 'at least one redirect URI is needed' });
  }
  app.redirectUris.forEach((uri, i) => checkRedirect(uri, app.devMode, `redirectUris.${i}`, problems));
  app.postLogoutRedirectUris.forEach((uri, i) => checkRedirect(uri, app.devMode, `postLogoutRedirectUris.${i}`, problems));
  checkProfiles(app, interactive, signingAlg, problems);
  checkOwnKeys(app, problems);
  if (problems.length > 0) throw DomainError.invalid('the application configuration is invalid', problems);
}

/** Each profile of docs/oauth-profiles.md where it means something, and with what it needs. */
function checkProfiles(app: NewOidcApplication, interactive: boolean, signingAlg: string, problems: ErrorDetail[]): void {
  if (app.requirePushedAuthorizationRequests && !interactive) {
    problems.push({ field: 'requirePushedAuthorizationRequests', message: 'PAR applies to applications with a response type' });
  }
  if (app.requireSignedRequestObject && app.authMethod !== 'private_key_jwt') {
    // RFC 9101 §10.5: request objects are signed with keys the server knows; an application has keys under private_key_jwt only.
    problems.push({
      field: 'requireSignedRequestObject',
      message: "signed request objects are verified with the application's keys: needs authMethod private_key_jwt",
    });
  }
  if (app.requestObjectRequiresExp && app.authMethod !== 'private_key_jwt') {
    problems.push({ field: 'requestObjectRequiresExp', message: "request objects are verified with the application's keys: needs authMethod private_key_jwt" });
  }
  if (app.authorizationSignedResponseAlg !== null && app.authorizationSignedResponseAlg !== signingAlg) {
    // The instance signs with one algorithm (SIGNING_ALG); a response signed with another would need a key it does not have.
    problems.push({ field: 'authorizationSignedResponseAlg', message: `this instance signs with ${signingAlg} (SIGNING_ALG)` });
  }
  if (app.dpopBoundAccessTokens && app.responseTypes.includes('id_token token')) {
    // RFC 9449 §5.2 binds tokens at the token endpoint; one from the authorization endpoint could not be bound.
    problems.push({ field: 'dpopBoundAccessTokens', message: 'DPoP-bound access tokens exclude the response type "id_token token"' });
  }
  if (app.backchannelLogoutSessionRequired && app.backchannelLogoutUri === null) {
    problems.push({ field: 'backchannelLogoutSessionRequired', message: 'needs a backchannelLogoutUri' });
  }
  if (app.backchannelLogoutUri !== null) checkBackchannelUri(app.backchannelLogoutUri, app.devMode, problems);
  if (app.subjectType === 'pairwise') checkPairwise(app, problems);
}

/**
 * OIDC Core §8.1: a pairwise `sub` is computed per sector, here the host of the redirect URIs (no
 * sector_identifier_uri is offered), so they must share one host; an application without redirect URIs has no sector.
 * oidc-provider would want a jwks_uri for a pairwise device-flow client, which applications do not register.
 */
function checkPairwise(app: NewOidcApplication, problems: ErrorDetail[]): void {
  if (app.responseTypes.length === 0 || app.redirectUris.length === 0) {
    problems.push({ field: 'subjectType', message: 'pairwise subjects need redirect URIs: their host is the sector identifier (OIDC Core §8.1)' });
  } else if (new Set(app.redirectUris.map(hostOf)).size > 1) {
    problems.push({
      field: 'redirectUris',
      message: 'the redirect URIs of a pairwise application must share one host, the sector identifier (OIDC Core §8.1)',
    });
  }
  if (app.grantTypes.includes('urn:ietf:params:oauth:grant-type:device_code')) {
    problems.push({ field: 'subjectType', message: 'pairwise subjects are not offered with the device authorization grant' });
  }
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri; // reported by checkRedirect
  }
}

/**
 * OIDC Back-Channel Logout 1.0 §2.2: an absolute URL without a fragment, https unless devMode; where it points is
 * checked again against the outbound address rules when a logout token is sent (docs/oauth-profiles.md, "Delivery").
 */
function checkBackchannelUri(uri: string, devMode: boolean, problems: ErrorDetail[]): void {
  checkEndpointUrl(uri, 'backchannelLogoutUri', { allows: () => devMode, refusal: 'https is needed (http needs devMode)' }, problems);
}

function checkRedirect(uri: string, devMode: boolean, field: string, problems: ErrorDetail[]): void {
  // Checked on the string as given: the WHATWG URL parser turns `\` into `/` and drops tabs and an
  // empty `#`, so the stored value would differ from what was approved, and browsers resolve such URIs
  // differently from servers.
  if (uri.includes('\\')) {
    problems.push({ field, message: 'a redirect URI must not contain a backslash' });
    return;
  }
  if (/[\u0000-\u0020\u007f]/.test(uri)) {
    problems.push({ field, message: 'a redirect URI must not contain spaces or control characters' });
    return;
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    problems.push({ field, message: `"${uri}" is not an absolute URI` });
    return;
  }
  if (url.hash || uri.includes('#')) problems.push({ field, message: 'a redirect URI must not contain a fragment (RFC 6749 §3.1.2)' });
  // Credentials in a URI (RFC 3986 §3.2.1 deprecates them) make a registered URI show one host to a
  // reader and mean another.
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(uri))
    problems.push({ field, message: 'a redirect URI must not contain user information' });
  if (url.protocol === 'http:' && !devMode) {
    problems.push({ field, message: 'http redirect URIs need devMode (use https)' });
  } else if (url.protocol === 'https:' && LOOPBACK.has(url.hostname) && !devMode) {
    problems.push({ field, message: 'loopback redirect URIs need devMode' });
  }
  if (url.protocol === 'javascript:' || url.protocol === 'data:') problems.push({ field, message: `the scheme ${url.protocol} is not allowed` });
}
