import { DomainError, ErrorCode } from '../errors/domain-error.js';
import { passwordHashing, VerifierBusyError } from './password-hashes/expensive-verifications.js';
import { hashPassword, needsRehash, verifyAgainstDummyHash, verifyPassword } from './password-hashes/password-hashes.js';

/**
 * bcrypt reads only the first 72 UTF-8 bytes of a password and would cut a longer one silently, so no surface accepts
 * a longer one (the password policy, the settings that bound it, the import).
 */
export const PASSWORD_MAX_BYTES = 72;

/**
 * Human passwords: new ones are hashed with bcrypt at the configured cost (docs/product-rules.md, "OpenID Connect and OAuth": bcrypt is for
 * human passwords only); stored ones are verified by their own algorithm, since imported users keep
 * the hashes they came with (bcrypt, argon2, scrypt, PBKDF2, SHA-crypt, MD5-crypt), and are rehashed
 * to bcrypt after their first successful check.
 */
export class PasswordHasher {
  constructor(readonly cost: number) {}

  /**
   * A new password's hash, computed in the process's bounded pool for new passwords (SECURITY.md, "Checks are
   * atomic"; expensive-verifications.ts): a SCIM Bulk request of 100 users with passwords, or many requests
   * at once, wait their turn; when the queue is full the request is answered 503 with `Retry-After`
   * (DomainError `unavailable`), nothing written.
   */
  async hash(password: string): Promise<string> {
    try {
      return await passwordHashing.run(() => hashPassword(password, this.cost));
    } catch (error) {
      if (error instanceof VerifierBusyError) throw new DomainError(ErrorCode.Unavailable, 'too many passwords are being hashed at once; try again shortly');
      throw error;
    }
  }

  /**
   * For the import, which hashes a batch of plain passwords at once and would overflow the pool's queue:
   * its batches bound it (IAM_OWNER only, one batch at a time).
   */
  hashForImport(password: string): Promise<string> {
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
