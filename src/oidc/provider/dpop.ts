import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { decodeJwt } from 'jose';
import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import { dpopNonceSecret } from '../../common/auth/dpop-nonce.js';
import { DPOP_IAT_WINDOW_SECONDS, DPOP_SIGNING_ALGS } from '../../common/auth/dpop-proof.js';
import type { DpopReplays } from '../../common/auth/dpop-replay.js';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { AssertionReplayGuard } from '../grants/assertion-replay.js';
import { writeOAuthError } from './oauth-errors.js';
import { OIDC_ROUTES } from './oidc.routes.js';

/**
 * oidc-provider's `features.dPoP` (RFC 9449; docs/oauth-profiles.md, "DPoP"): on, with a server nonce required at every
 * endpoint (§8, §9) from a secret derived from the master key, so every process issues and accepts the
 * same nonces (the admin API and SCIM too: common/auth/dpop-nonce.ts), and no proof accepted twice.
 *
 * `htu` is compared with the endpoint's URL built from the request's origin (helpers/validate_dpop.js,
 * `ctx.oidc.urlFor`), and that origin is PUBLIC_URL's whatever the client sends: every request's Host is
 * pinned to it before oidc-provider sees the request (common/http/public-origin.ts).
 */
export function dpopFeature(hasher: SecretHasher) {
  return { enabled: true, nonceSecret: dpopNonceSecret(hasher), requireNonce: () => true, allowReplay: false };
}

/** The replay store's key space shared by oidc-provider's ReplayDetection and the resources' proofs. */
const replayKey = (clientId: string) => `replay:${clientId}`;

/**
 * The used DPoP proofs (RFC 9449 §11.1), client assertions' jtis (RFC 7523 §3) included: rows of oidc_payloads
 * inserted under their primary key (assertion-replay.ts), so that of two processes seeing one proof exactly one
 * accepts it.
 */
@Injectable()
export class DpopReplayGuard implements DpopReplays {
  private readonly guard: AssertionReplayGuard;

  constructor(uow: UnitOfWork) {
    this.guard = new AssertionReplayGuard(uow);
  }

  firstUse(clientId: string, jti: string, usableUntilMs: number): Promise<boolean> {
    return this.guard.firstUse(replayKey(clientId), jti, usableUntilMs);
  }
}

/**
 * The grants registered by Portcullis (JWT profile, token exchange) bind no token to a DPoP key; a client
 * registered with `dpop_bound_access_tokens` gets none of theirs (RFC 9449 §5.2: its tokens are bound).
 */
export function refuseUnboundGrantOfDpopClient(ctx: OidcContext): void {
  if ((ctx.oidc.client as { dpopBoundAccessTokens?: boolean } | undefined)?.dpopBoundAccessTokens) {
    throw new errors.InvalidGrant('this client receives DPoP-bound access tokens only, which this grant does not issue');
  }
}

/**
 * RFC 9449 §4.3 check 11 (`iat` within an acceptable window) at oidc-provider's endpoints too: it checks `iat` only
 * for a proof without a nonce (helpers/validate_dpop.js) and relies on the nonce otherwise, while the admin API and
 * SCIM check both (common/auth/dpop-proof.ts). Run before the provider on the proof as sent, unverified: it can
 * only refuse, and the provider verifies everything else. A proof without a nonce is left to the provider, which
 * answers `use_dpop_nonce` to a stale one. True when it answered the request.
 */
export function refuseStaleDpopProof(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const proof = req.headers.dpop;
  if (typeof proof !== 'string') return false;
  let claims;
  try {
    claims = decodeJwt(proof);
  } catch {
    return false; // not a JWT: the provider answers invalid_dpop_proof
  }
  if (claims.nonce === undefined || typeof claims.iat !== 'number' || Math.abs(Date.now() / 1000 - claims.iat) <= DPOP_IAT_WINDOW_SECONDS) return false;
  const description = 'DPoP proof iat is not recent enough';
  // At userinfo, a resource, the refusal is a 401 with its challenge (RFC 9449 §7.1); elsewhere a 400 (§5).
  const atResource = path === OIDC_ROUTES.userinfo;
  if (atResource)
    res.setHeader('WWW-Authenticate', `DPoP error="invalid_dpop_proof", error_description="${description}", algs="${DPOP_SIGNING_ALGS.join(' ')}"`);
  writeOAuthError(res, atResource ? 401 : 400, 'invalid_dpop_proof', description);
  return true;
}
