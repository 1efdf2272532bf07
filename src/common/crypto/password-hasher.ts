import { hashPassword, needsRehash, verifyAgainstDummyHash, verifyPassword } from './password-hashes/password-hashes.js';

/**
 * Human passwords: new ones are hashed with bcrypt at the configured cost (docs/product-rules.md, "OpenID Connect and OAuth": bcrypt is for
 * human passwords only); stored ones are verified by their own algorithm, since imported users keep
 * the hashes they came with (bcrypt, argon2, scrypt, PBKDF2, SHA-crypt, MD5-crypt), and are rehashed
 * to bcrypt after their first successful check.
 */
export class PasswordHasher {
  constructor(readonly cost: number) {}

  hash(password: string): Promise<string> {
    return hashPassword(password, this.cost);
  }

  /** False for a wrong password; rejects only for a stored hash that is garbled or unsupported. */
  verify(password: string, hash: string): Promise<boolean> {
    return verifyPassword(password, hash);
  }

  needsRehash(hash: string): boolean {
    return needsRehash(hash, this.cost);
  }

  /** Spends the time of a real check, for login names that do not exist; always false. */
  verifyUnknownUser(password: string): Promise<false> {
    return verifyAgainstDummyHash(password, this.cost);
  }
}
