import { errors } from 'oidc-provider';

/** The longest a request object may live (RFC 9101 §10.2 wants it short; an hour, as FAPI allows). */
const MAX_LIFETIME_S = 3600;

/**
 * RFC 9101 §10.8 and §6.3: a request object names its audience and expires. oidc-provider verifies the signature
 * with the application's keys (only asymmetric algorithms are enabled, never `none`), `iss`, `aud` when present and
 * `exp`; this makes `aud` and `exp` required and bounds the lifetime, so a signed request cannot be replayed for days.
 */
export async function assertRequestObjectClaims(_ctx: unknown, claims: Record<string, unknown>): Promise<void> {
  for (const claim of ['aud', 'exp'] as const) {
    if (claims[claim] === undefined) throw new errors.InvalidRequestObject(`Request Object is missing the '${claim}' claim`);
  }
  const exp = Number(claims.exp);
  const start = Number(claims.nbf ?? claims.iat ?? Math.floor(Date.now() / 1000));
  if (!Number.isFinite(exp) || exp - start > MAX_LIFETIME_S) {
    throw new errors.InvalidRequestObject(`Request Object lives longer than ${MAX_LIFETIME_S} seconds`);
  }
}
