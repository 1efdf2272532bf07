import { createHash, randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { JWK } from 'jose';

export type DpopKey = Awaited<ReturnType<typeof generateKeyPair>>;

export function newDpopKey(alg = 'ES256'): Promise<DpopKey> {
  return generateKeyPair(alg, { extractable: true });
}

export interface ProofOptions {
  /** The access token the proof names (`ath`); omitted when absent. */
  token?: string;
  nonce?: string;
  /** Seconds since the epoch; now when absent. */
  iat?: number;
  jti?: string;
  /** Overrides of the claims as built (e.g. a wrong `ath`), `undefined` to drop one. */
  claims?: Record<string, unknown>;
  /** Overrides of the protected header (e.g. a private `jwk`). */
  header?: Record<string, unknown>;
}

/** A DPoP proof (RFC 9449 §4.2) for `htm` and `htu`, signed by `key`, as a client builds one by hand. */
export async function dpopProof(key: DpopKey, htm: string, htu: string, options: ProofOptions = {}): Promise<string> {
  const claims: Record<string, unknown> = {
    htm,
    htu,
    jti: options.jti ?? randomUUID(),
    iat: options.iat ?? Math.floor(Date.now() / 1000),
    ...(options.nonce ? { nonce: options.nonce } : {}),
    ...(options.token ? { ath: ath(options.token) } : {}),
    ...options.claims,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  const jwk = await exportJWK(key.publicKey);
  return new SignJWT(claims).setProtectedHeader({ alg: algOf(jwk), typ: 'dpop+jwt', jwk, ...options.header }).sign(key.privateKey);
}

/** An unsigned proof (`alg: none`), which RFC 9449 §4.2 forbids. */
export async function unsignedProof(key: DpopKey, htm: string, htu: string, token: string, nonce: string): Promise<string> {
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = { alg: 'none', typ: 'dpop+jwt', jwk: await exportJWK(key.publicKey) };
  return `${b64(header)}.${b64({ htm, htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), nonce, ath: ath(token) })}.`;
}

/** A proof MACed with HS256 (a symmetric key, forbidden by RFC 9449 §4.2), its key in the header. */
export async function symmetricProof(htm: string, htu: string, token: string, nonce: string): Promise<string> {
  const secret = new Uint8Array(32).fill(7);
  const jwk: JWK = { kty: 'oct', k: Buffer.from(secret).toString('base64url') };
  return new SignJWT({ htm, htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), nonce, ath: ath(token) })
    .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk })
    .sign(secret);
}

export function ath(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

function algOf(jwk: JWK): string {
  if (jwk.kty === 'EC') return 'ES256';
  if (jwk.kty === 'OKP') return 'EdDSA';
  return 'PS256';
}
