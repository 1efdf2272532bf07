/**
 * A client's own access token (the client credentials grant, RFC 6749 §4.4) as this instance issued it: `common`
 * declares the port and the OIDC layer provides it, so a surface that admits clients by token (the Shared Signals
 * stream management endpoints, docs/signals.md) reads one without importing the provider.
 */
export interface ClientTokens {
  /**
   * The client and scopes of a live client credentials token of this instance; null for anything else: unknown,
   * expired or revoked, a user's token, or one bound to a key (RFC 9449), which is no Bearer token.
   */
  heldBy(token: string): Promise<{ clientId: string; scopes: string[] } | null>;
}

export const CLIENT_TOKENS = Symbol('CLIENT_TOKENS');

/** The scope of a receiver application's token for the Shared Signals stream management endpoints (docs/signals.md, "Receivers"). */
export const SSF_MANAGE_SCOPE = 'ssf.manage';
