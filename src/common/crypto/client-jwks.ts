import { createPublicKey } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';
import type { ErrorDetail } from '../errors/domain-error.js';

/**
 * The public keys an application brings for `private_key_jwt` (RFC 7523 §2.2) and signed request objects (RFC 9101
 * §10.5), inline (`jwks`) or served at its `jwks_uri` (RFC 7591 §2), checked alike wherever they come from
 * (docs/oauth-profiles.md, "Client keys").
 */

/**
 * The algorithms such keys sign with, each by the key type it needs. Discovery's
 * `token_endpoint_auth_signing_alg_values_supported` and `request_object_signing_alg_values_supported` list exactly
 * these: every application may register any accepted key type. `Ed25519` is RFC 9864's fully specified name of EdDSA
 * with Ed25519, which openid-client 6 sends.
 */
const ALGS_BY_KEY = { RSA: ['RS256', 'RS384', 'RS512', 'PS256'], 'P-256': ['ES256'], 'P-384': ['ES384'], Ed25519: ['EdDSA', 'Ed25519'] } as const;
export const CLIENT_KEY_ALGS: string[] = Object.values(ALGS_BY_KEY).flat();

/** More keys than a rotation needs (the current, the next, one being retired) only slow every verification down. */
export const MAX_CLIENT_KEYS = 10;
const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 8192;
const MAX_KID_LENGTH = 200;

/** Members of private or symmetric keys (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2): never accepted, not even to be dropped. */
const SECRET_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
/** The members kept; others (x5c, key_ops, …) are dropped, since nothing here reads them. */
const KEPT_MEMBERS = ['kty', 'kid', 'use', 'alg', 'crv', 'x', 'y', 'n', 'e'];

export type ClientJwk = Record<string, string>;
export type ClientJwks = { keys: ClientJwk[] };

/** The key set as it is stored and handed to oidc-provider, or the problems that refuse it, each naming `field`'s member. */
export function checkClientJwks(value: unknown, field: string): { jwks: ClientJwks; problems: [] } | { jwks?: undefined; problems: ErrorDetail[] } {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Array.isArray(keys)) {
    return { problems: [{ field, message: 'a JSON Web Key Set: an object with a "keys" array (RFC 7517 §5)' }] };
  }
  if (keys.length === 0 || keys.length > MAX_CLIENT_KEYS) return { problems: [{ field: `${field}.keys`, message: `between 1 and ${MAX_CLIENT_KEYS} keys` }] };
  const problems: ErrorDetail[] = [];
  const kids = new Set<string>();
  const checked = keys.map((key, i) => {
    const problem = keyProblem(key);
    if (problem) return void problems.push({ field: `${field}.keys.${i}${problem.member ? `.${problem.member}` : ''}`, message: problem.message });
    const jwk = key as ClientJwk;
    if (jwk.kid !== undefined && kids.has(jwk.kid))
      return void problems.push({ field: `${field}.keys.${i}.kid`, message: `the kid "${jwk.kid}" is used by another key of the set` });
    if (jwk.kid !== undefined) kids.add(jwk.kid);
    return Object.fromEntries(KEPT_MEMBERS.filter((member) => jwk[member] !== undefined).map((member) => [member, jwk[member]]));
  });
  return problems.length > 0 ? { problems } : { jwks: { keys: checked as ClientJwk[] }, problems: [] };
}

/**
 * The keys as oidc-provider is given them to verify with. RFC 9864 §2.2 names EdDSA with Ed25519 `Ed25519`; `EdDSA` is
 * the older name of the same signatures, and both are accepted (the table in docs/oauth-profiles.md, "Client keys").
 * oidc-provider's key selection and jose both take a key only when its `alg` equals the JWS header's, so an Ed25519 key
 * saying one name would refuse a client that signs with the other (openid-client 6 signs `Ed25519`). Its `alg` is
 * left out here: its `crv` alone limits it to those signatures, as oidc-provider selects Ed25519 keys by `crv` for
 * both names. The key set as stored and read back keeps the `alg` it was given.
 */
export function verificationKeys<T extends object>(keys: T[]): T[] {
  return keys.map((key) => {
    const jwk = key as Partial<ClientJwk>;
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || jwk.alg === undefined) return key;
    const { alg: _sameSignatures, ...rest } = jwk;
    return rest as T;
  });
}

interface KeyProblem {
  member?: string;
  message: string;
}

function keyProblem(key: unknown): KeyProblem | undefined {
  if (typeof key !== 'object' || key === null || Array.isArray(key)) return { message: 'a JSON Web Key object' };
  const jwk = key as Record<string, unknown>;
  const secret = SECRET_MEMBERS.find((member) => member in jwk);
  if (jwk.kty === 'oct') return { member: 'kty', message: 'symmetric keys (kty "oct") are refused: only public keys are registered' };
  if (secret) return { member: secret, message: `a private key member ("${secret}"): register the public key only` };
  const notString = KEPT_MEMBERS.find((member) => member in jwk && typeof jwk[member] !== 'string');
  if (notString) return { member: notString, message: 'a string' };
  if (typeof jwk.kid === 'string' && (jwk.kid.length === 0 || jwk.kid.length > MAX_KID_LENGTH))
    return { member: 'kid', message: `1 to ${MAX_KID_LENGTH} characters` };
  if (jwk.use !== undefined && jwk.use !== 'sig') return { member: 'use', message: 'a signing key ("use": "sig")' };
  const type = keyType(jwk as ClientJwk);
  if ('message' in type) return type;
  if (jwk.alg !== undefined && !(ALGS_BY_KEY[type.name] as readonly string[]).includes(jwk.alg as string)) {
    return { member: 'alg', message: `a ${type.name} key signs with ${ALGS_BY_KEY[type.name].join(', ')}` };
  }
  return undefined;
}

/** Which accepted kind of key this is, its material checked by parsing it. */
function keyType(jwk: ClientJwk): { name: keyof typeof ALGS_BY_KEY } | KeyProblem {
  const allowed = 'RSA (at least 2048 bits), EC (P-256, P-384) or OKP (Ed25519)';
  if (jwk.kty === 'EC' && jwk.crv !== 'P-256' && jwk.crv !== 'P-384')
    return { member: 'crv', message: `EC keys on P-256 or P-384 only; allowed keys: ${allowed}` };
  if (jwk.kty === 'OKP' && jwk.crv !== 'Ed25519') return { member: 'crv', message: `OKP keys of Ed25519 only; allowed keys: ${allowed}` };
  if (jwk.kty !== 'RSA' && jwk.kty !== 'EC' && jwk.kty !== 'OKP') return { member: 'kty', message: `allowed keys: ${allowed}` };
  let bits: number | undefined;
  try {
    bits = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }).asymmetricKeyDetails?.modulusLength;
  } catch {
    return { message: `not a valid ${jwk.kty} public key` };
  }
  if (jwk.kty !== 'RSA') return { name: jwk.crv as 'P-256' | 'P-384' | 'Ed25519' };
  if (bits === undefined || bits < MIN_RSA_BITS || bits > MAX_RSA_BITS)
    return { member: 'n', message: `RSA keys of ${MIN_RSA_BITS} to ${MAX_RSA_BITS} bits (this one has ${bits})` };
  return { name: 'RSA' };
}
