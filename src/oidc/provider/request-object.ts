import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import { verify } from 'oidc-provider/lib/helpers/jwt.js';
import type { AssertionReplayGuard } from '../grants/assertion-replay.js';
import { usePushedRequestOnce } from './pushed-request-once.js';

/** The longest a request object may live (RFC 9101 §10.2 wants it short; an hour, as FAPI allows). */
const MAX_LIFETIME_S = 3600;

/** What the checks read of the client oidc-provider found (client.store.ts). */
interface RequestObjectClient {
  clientId: string;
  asymmetricKeyStore: unknown;
  portcullis_request_object_requires_exp?: boolean;
}

/**
 * oidc-provider's `features.requestObjects.assertJwtClaimsAndHeader`, called with the request object's claims after
 * it checked `iss`, `aud` when present, `exp` when present and `nbf` (docs/oauth-profiles.md, "Signed request
 * objects"): the claims rules below, a pushed request's `request_uri` used once, then the `jti` used once.
 */
export function requestObjectChecks(usedJtis: AssertionReplayGuard) {
  return async (ctx: OidcContext, claims: Record<string, unknown>, _header: unknown, client: RequestObjectClient): Promise<void> => {
    assertRequestObjectClaims(claims, client.portcullis_request_object_requires_exp === true);
    await usePushedRequestOnce(ctx, usedJtis, client.clientId);
    await useJtiOnce(ctx, usedJtis, claims, client);
  };
}

/**
 * RFC 9101 §10.8 and §6.3: a request object names its audience, and lives at most an hour. RFC 9101 requires no `exp`,
 * and some clients send none (Apache's mod_auth_openidc 2.4): such an object is accepted unless the application asks
 * for `exp` (`requestObjectRequiresExp`), bounded by its `iat` when it has one. Its `jti`, when it has one, is used once.
 */
function assertRequestObjectClaims(claims: Record<string, unknown>, requiresExp: boolean): void {
  if (claims.aud === undefined) throw new errors.InvalidRequestObject("Request Object is missing the 'aud' claim");
  const now = Math.floor(Date.now() / 1000);
  if (claims.exp === undefined) {
    if (requiresExp) throw new errors.InvalidRequestObject("Request Object is missing the 'exp' claim");
    if (claims.iat !== undefined && now - Number(claims.iat) > MAX_LIFETIME_S) {
      throw new errors.InvalidRequestObject(`Request Object without 'exp' was issued more than ${MAX_LIFETIME_S} seconds ago`);
    }
    return;
  }
  const exp = Number(claims.exp);
  const start = Number(claims.nbf ?? claims.iat ?? now);
  if (!Number.isFinite(exp) || exp - start > MAX_LIFETIME_S) {
    throw new errors.InvalidRequestObject(`Request Object lives longer than ${MAX_LIFETIME_S} seconds`);
  }
}

/**
 * RFC 9101 §10.8: a request object's `jti` is accepted once, in every process (a row of the used-`jti` store, as DPoP
 * proofs and client assertions), for as long as the object could be accepted: until its `exp`, else an hour after its
 * `iat` or after now. oidc-provider verifies the signature only after this hook (process_request_object.js), so the
 * object is verified here first with its own helper and key store: only a request object the client signed uses up a
 * `jti`, never a forged one naming it. A pushed object's `jti` was used at the PAR endpoint, and its `request_uri` is
 * single use (RFC 9126 §4).
 */
async function useJtiOnce(ctx: OidcContext, usedJtis: AssertionReplayGuard, claims: Record<string, unknown>, client: RequestObjectClient): Promise<void> {
  if (typeof claims.jti !== 'string' || 'PushedAuthorizationRequest' in ctx.oidc.entities) return;
  try {
    await verify(ctx.oidc.params.request, client.asymmetricKeyStore);
  } catch {
    return; // oidc-provider refuses it next, with its own error
  }
  const until = claims.exp !== undefined ? Number(claims.exp) : Number(claims.iat ?? Math.floor(Date.now() / 1000)) + MAX_LIFETIME_S;
  if (!(await usedJtis.firstUse(`request-object:${client.clientId}`, claims.jti, until * 1000))) {
    throw new errors.InvalidRequestObject('Request Object was already used (its jti was seen before)');
  }
}
