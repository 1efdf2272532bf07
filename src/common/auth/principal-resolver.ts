import type { Principal } from './principal.js';

/**
 * Resolves a bearer token to its principal, or null when the token is not valid. `common` declares it;
 * the users domain provides it (personal access tokens), asking the OIDC layer through
 * ACCESS_TOKEN_VERIFIER for access tokens, so the import arrow keeps pointing down.
 */
export interface PrincipalResolver {
  resolve(token: string): Promise<Principal | null>;
}

export const PRINCIPAL_RESOLVER = Symbol('PRINCIPAL_RESOLVER');

/**
 * Verifies an access token issued by this instance whose audience includes the Portcullis API; `jkt` is
 * the thumbprint of the key a DPoP-bound token is bound to (RFC 9449 §6).
 */
export interface AccessTokenVerifier {
  verify(token: string): Promise<{ userId: string; clientId: string; jkt?: string } | null>;
}

export const ACCESS_TOKEN_VERIFIER = Symbol('ACCESS_TOKEN_VERIFIER');
