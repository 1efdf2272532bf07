import type Provider from 'oidc-provider';

/**
 * `Client#includeSid`, asked where a sign-in's code or ID token is made (lib/helpers/process_response_types.js)
 * and copied on through codes and refresh tokens (lib/helpers/grant_common.js). oidc-provider adds the
 * `sid` claim (OpenID Connect Back-Channel Logout 1.0 §2.1, the session's id for this client, not the
 * session's own id) only for clients registered for back-channel logout with sessions. Every ID token
 * carries it here, so an ID token presented as a token-exchange subject can be traced to the sign-in it
 * came from and refused once that ended (docs/product-rules.md, "OpenID Connect and OAuth"; grants/token-exchange.parties.ts).
 */
export function includeSessionIdInIdTokens(provider: Provider): void {
  provider.Client.prototype.includeSid = () => true;
}
