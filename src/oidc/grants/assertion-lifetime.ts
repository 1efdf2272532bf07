/**
 * How long a JWT a client signs for itself may be used: client assertions (`private_key_jwt`, RFC 7523
 * §2.2), JWT-profile grants (§2.1) and token-exchange `jwt` subjects (RFC 8693 §2.1). RFC 7523 §3 lets the
 * server bound it ("the authorization server MAY reject JWTs with an "exp" claim value that is
 * unreasonably far in the future"); this service sets one hour from issue, so a stolen assertion
 * is worth at most that, and the set of used `jti` values stays small.
 */
export const MAX_ASSERTION_LIFETIME_S = 3600;
export const ASSERTION_CLOCK_TOLERANCE_S = 5;

interface TimeClaims {
  exp?: unknown;
  iat?: unknown;
}

/** Why the assertion's time claims are refused, or undefined when they are within the bound. `iat` is optional (RFC 7523 §3). */
export function assertionLifetimeProblem(claims: TimeClaims, nowS = Math.floor(Date.now() / 1000)): string | undefined {
  const { exp, iat } = claims;
  if (typeof exp !== 'number') return '"exp" is required';
  if (exp - nowS > MAX_ASSERTION_LIFETIME_S + ASSERTION_CLOCK_TOLERANCE_S) return `"exp" is more than ${MAX_ASSERTION_LIFETIME_S} seconds away`;
  if (iat === undefined) return undefined;
  if (typeof iat !== 'number') return '"iat" must be a number';
  if (nowS - iat > MAX_ASSERTION_LIFETIME_S + ASSERTION_CLOCK_TOLERANCE_S) return `"iat" is more than ${MAX_ASSERTION_LIFETIME_S} seconds ago`;
  if (exp - iat > MAX_ASSERTION_LIFETIME_S) return `"exp" - "iat" exceeds ${MAX_ASSERTION_LIFETIME_S} seconds`;
  return undefined;
}
