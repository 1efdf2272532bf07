import { createHash } from 'node:crypto';
import { EmbeddedJWK, calculateJwkThumbprint, jwtVerify } from 'jose';
import type { JWK } from 'jose';
import { DomainError, ErrorCode } from '../errors/domain-error.js';
import type { DpopNonces } from './dpop-nonce.js';

/**
 * Asymmetric algorithms only (RFC 9449 §4.2: "MUST NOT be none or an identifier for a symmetric
 * algorithm"); the same list oidc-provider is configured with (provider-configuration.ts), advertised in
 * discovery's `dpop_signing_alg_values_supported`.
 */
export const DPOP_SIGNING_ALGS = ['ES256', 'ES384', 'EdDSA', 'Ed25519', 'PS256', 'RS256'];

/**
 * How far a proof's `iat` may be from now, in seconds (RFC 9449 §11.1); oidc-provider's window
 * (helpers/challenge.js, CHALLENGE_OK_WINDOW), and how long a proof's `jti` is remembered.
 */
export const DPOP_IAT_WINDOW_SECONDS = 300;

/**
 * What a resource answers a DPoP-bound token presented without its key (RFC 9449 §7.2), in the same words on every
 * surface: the admin API and SCIM (bearer.strategy.ts) and userinfo (oidc/provider/dpop-errors.ts).
 */
export const DPOP_TOKEN_REFUSALS = {
  asBearer: 'the access token is DPoP-bound: present it as "Authorization: DPoP" with a proof',
  otherKey: 'the DPoP proof is signed with another key than the token is bound to',
} as const;

type DpopErrorCode = 'invalid_dpop_proof' | 'use_dpop_nonce' | 'invalid_token';

/**
 * A 401 with a DPoP challenge (RFC 9449 §7.1, §9): `WWW-Authenticate: DPoP error="…"`, and with
 * `use_dpop_nonce` (or any answer after which the client needs a fresh nonce) a `DPoP-Nonce` header.
 */
export class DpopChallenge extends DomainError {
  constructor(
    readonly error: DpopErrorCode,
    description: string,
    readonly nonce?: string,
  ) {
    super(ErrorCode.Unauthenticated, description);
    this.name = 'DpopChallenge';
  }

  /** The response headers of this challenge. */
  headers(): Record<string, string> {
    const challenge = `DPoP error="${this.error}", error_description="${this.message.replace(/["\\]/g, '')}", algs="${DPOP_SIGNING_ALGS.join(' ')}"`;
    return { 'WWW-Authenticate': challenge, ...(this.nonce ? { 'DPoP-Nonce': this.nonce } : {}) };
  }
}

export interface DpopRequest {
  /** The HTTP method of the request (`htm`, RFC 9449 §4.3 check 8). */
  method: string;
  /** PUBLIC_URL and the request's path, without query and fragment (`htu`, RFC 9449 §4.3 check 9). */
  url: string;
  /** The access token the proof must name by its hash (`ath`, RFC 9449 §4.3 check 12). */
  accessToken: string;
  nonces: DpopNonces;
  /** Milliseconds since the epoch. */
  now: number;
}

export interface VerifiedProof {
  /** The JWK SHA-256 thumbprint of the proof's key (RFC 7638), to compare with the token's `cnf.jkt`. */
  jkt: string;
  jti: string;
}

/**
 * Checks a DPoP proof presented to a resource of this instance, as RFC 9449 §4.3 lists the checks, with
 * `jose` (signature, `typ`, algorithm, the embedded public key). The caller still has to compare `jkt` with
 * the token's binding and record `jti` as used (bearer.strategy.ts). A server nonce is required (§9).
 */
export async function verifyDpopProof(proof: string, request: DpopRequest): Promise<VerifiedProof> {
  let verified;
  try {
    // §4.3 checks 3–7: one JWT, typ dpop+jwt, an asymmetric alg of ours, a public `jwk` header (EmbeddedJWK
    // refuses a private or symmetric key), a valid signature.
    verified = await jwtVerify(proof, EmbeddedJWK, { algorithms: DPOP_SIGNING_ALGS, typ: 'dpop+jwt' });
  } catch {
    throw new DpopChallenge('invalid_dpop_proof', 'DPoP proof is not a valid dpop+jwt signed with its embedded public key');
  }
  const { payload, protectedHeader } = verified;
  const refuse = (what: string) => new DpopChallenge('invalid_dpop_proof', what, request.nonces.next());
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 256) throw refuse('DPoP proof must have a jti');
  if (payload.htm !== request.method) throw refuse('DPoP proof htm mismatch');
  if (!sameUrl(payload.htu, request.url)) throw refuse('DPoP proof htu mismatch');
  // §4.3 check 12: the proof names this token.
  if (payload.ath !== createHash('sha256').update(request.accessToken).digest('base64url')) throw refuse('DPoP proof ath mismatch');
  // §4.3 check 10 and §9: the server's nonce; answered with a fresh one (use_dpop_nonce) when missing or old.
  if (!request.nonces.accepts(payload.nonce)) {
    throw new DpopChallenge('use_dpop_nonce', 'a DPoP nonce from this server is required', request.nonces.next());
  }
  // §4.3 check 11: created within an acceptable window, even with a nonce.
  if (typeof payload.iat !== 'number' || Math.abs(request.now / 1000 - payload.iat) > DPOP_IAT_WINDOW_SECONDS) {
    throw refuse('DPoP proof iat is not recent enough');
  }
  return { jkt: await calculateJwkThumbprint(protectedHeader.jwk as JWK, 'sha256'), jti: payload.jti };
}

/** `htu` without its query and fragment equals the expected URL (RFC 9449 §4.3 check 9, syntax-normalised). */
function sameUrl(htu: unknown, expected: string): boolean {
  if (typeof htu !== 'string') return false;
  const actual = URL.parse(htu);
  if (!actual) return false;
  actual.search = '';
  actual.hash = '';
  return actual.href === new URL(expected).href;
}
