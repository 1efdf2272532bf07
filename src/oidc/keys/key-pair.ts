import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { SigningAlg } from '../../common/config/config.js';
import { newId } from '../../common/ids.js';

const generate = promisify(generateKeyPair);

export interface PrivateJwk {
  kid: string;
  alg: string;
  use: 'sig';
  kty: string;
  [member: string]: unknown;
}

/**
 * A new key pair for `alg` as JWKs: RSA 2048 for RS256 (RFC 7518 §3.3), P-256 for ES256 (RFC 7518 §3.4),
 * Ed25519 for EdDSA (RFC 8037 §3.1).
 */
export async function newKeyPair(alg: SigningAlg): Promise<{ publicJwk: Record<string, unknown>; privateJwk: PrivateJwk }> {
  const pair =
    alg === 'RS256'
      ? await generate('rsa', { modulusLength: 2048 })
      : alg === 'ES256'
        ? await generate('ec', { namedCurve: 'P-256' })
        : await generate('ed25519');
  const kid = newId();
  const base = { kid, alg, use: 'sig' as const };
  return {
    publicJwk: { ...pair.publicKey.export({ format: 'jwk' }), ...base },
    privateJwk: { ...(pair.privateKey.export({ format: 'jwk' }) as { kty: string }), ...base },
  };
}
