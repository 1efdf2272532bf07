import type { PasswordHashFormat } from './password-hash.format.js';

type InvalidPasswordHashCode = 'unsupported_password_hash' | 'malformed_password_hash' | 'password_hash_limit_exceeded';

/**
 * A stored password hash that cannot be verified. Thrown by `parsePasswordHash` and `verifyPassword`
 * (never for a wrong password) and reported by `validatePasswordHash`. Messages name the format and
 * the defect but never repeat the salt or checksum.
 */
export abstract class InvalidPasswordHashError extends Error {
  abstract readonly code: InvalidPasswordHashCode;

  constructor(
    message: string,
    /** The format the hash claims to be, when its prefix was recognised. */
    readonly format: PasswordHashFormat | null,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** No supported scheme claims the hash (e.g. yescrypt `$y$`, DES crypt, a bare hex digest). */
export class UnsupportedPasswordHashError extends InvalidPasswordHashError {
  readonly code = 'unsupported_password_hash';

  constructor(scheme: string | null, detail?: string, format: PasswordHashFormat | null = null) {
    super(
      scheme === null
        ? `unsupported password hash format${detail ? `: ${detail}` : ' (no recognisable scheme identifier)'}`
        : `unsupported password hash format '${scheme}'${detail ? `: ${detail}` : ''}`,
      format,
    );
  }
}

/** The prefix names a supported format but the rest of the string does not follow it. */
export class MalformedPasswordHashError extends InvalidPasswordHashError {
  readonly code = 'malformed_password_hash';

  constructor(
    format: PasswordHashFormat | null,
    readonly reason: string,
  ) {
    super(format === null ? `malformed password hash: ${reason}` : `malformed ${format} hash: ${reason}`, format);
  }
}

/**
 * A well-formed hash whose cost parameters exceed what one login may spend (see
 * password-hash.limits.ts). Verifying it would let one request tie up seconds of CPU or gigabytes of
 * memory, so it is refused at import rather than at login.
 */
export class PasswordHashLimitExceededError extends InvalidPasswordHashError {
  readonly code = 'password_hash_limit_exceeded';

  constructor(
    format: PasswordHashFormat,
    readonly reason: string,
  ) {
    super(`${format} hash exceeds a supported limit: ${reason}`, format);
  }
}
