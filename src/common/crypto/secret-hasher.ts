import { createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/**
 * Hashes generated secrets (client secrets, personal access tokens, opaque tokens, codes) for storage.
 * They carry ≥ 256 bits of randomness, so a keyed fast hash (HMAC-SHA256) is as strong as a slow one
 * and keeps token lookups at index speed (docs/product-rules.md, "OpenID Connect and OAuth"); the key is derived from the master key so a
 * leaked database alone cannot be used to test guesses.
 */
export class SecretHasher {
  /** A KeyObject rather than a Buffer: createHmac then skips importing the key on every call. */
  private readonly key: KeyObject;

  constructor(masterKey: Buffer) {
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'portcullis/secret-hash/v1', 32)));
  }

  hash(secret: string): string {
    return createHmac('sha256', this.key).update(secret, 'utf8').digest('base64url');
  }

  matches(secret: string, storedHash: string): boolean {
    const a = Buffer.from(this.hash(secret));
    const b = Buffer.from(storedHash);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

/** A new random secret with 256 bits of entropy, URL-safe. */
export function generateSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
