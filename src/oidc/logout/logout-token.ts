import { importJWK, SignJWT } from 'jose';
import type { PrivateJwk } from '../keys/signing-keys.service.js';

/** OIDC Back-Channel Logout 1.0 §2.4: the member of `events` that makes a JWT a Logout Token. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** §2.4: "short", as RPs check `exp` and `iat`; a retry signs a new token, so an attempt never sends a stale one. */
export const LOGOUT_TOKEN_LIFETIME_S = 120;

export interface LogoutTokenFacts {
  issuer: string;
  clientId: string;
  /** The user: the ID tokens' `sub`. */
  sub: string;
  /** The session's id for this client: the ID tokens' `sid` (§2.1), when it is known. */
  sid: string | null;
  /** The same on every retry of one logout, so an RP that already acted on it may refuse the repeat (§2.6). */
  jti: string;
}

/**
 * A Logout Token (§2.4), signed with the instance's current signing key as ID tokens are (`kid` names it in the
 * JWKS): typed `logout+jwt` (§2.4, as RFC 8725 §3.11 recommends), `iss`, `aud`, `iat`, `exp`, `jti`, `events`, `sub`
 * and, when known, `sid` — both, which §2.4 allows ("MAY contain both"), so an RP that keys sessions either way finds
 * its own. Never a `nonce` (§2.4: "PROHIBITED").
 */
export async function signLogoutToken(signer: PrivateJwk, facts: LogoutTokenFacts, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  const claims = { events: { [BACKCHANNEL_LOGOUT_EVENT]: {} }, ...(facts.sid ? { sid: facts.sid } : {}) };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, typ: 'logout+jwt' })
    .setIssuer(facts.issuer)
    .setAudience(facts.clientId)
    .setSubject(facts.sub)
    .setIssuedAt(iat)
    .setExpirationTime(iat + LOGOUT_TOKEN_LIFETIME_S)
    .setJti(facts.jti)
    .sign(await importJWK(signer, signer.alg));
}
