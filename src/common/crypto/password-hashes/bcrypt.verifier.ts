import bcrypt from 'bcrypt';
import { constantTimeEqual } from './constant-time.util.js';
import { MalformedPasswordHashError, PasswordHashLimitExceededError } from './password-hash.errors.js';
import { BCRYPT_MAX_COST, BCRYPT_MIN_COST } from './password-hash.limits.js';

/**
 * bcrypt, `$2<minor>$<cost>$<22 chars salt><31 chars checksum>` in bcrypt's own base64
 * (`./A-Za-z0-9`), as defined by OpenBSD's bcrypt(3). `$2a$`, `$2b$` and `$2y$` are the same
 * algorithm for every password a correct implementation accepts: `$2b$` (OpenBSD 2014) fixed a length
 * wrap-around at 256+ bytes, `$2y$` is PHP's marker for its fixed crypt_blowfish. Verification uses
 * the `bcrypt` package (native OpenBSD code) to recompute the hash with the stored salt; the
 * comparison is ours because bcrypt@6's compare() uses strcmp, which is not constant-time.
 */
export interface ParsedBcryptHash {
  readonly format: 'bcrypt';
  readonly minor: 'a' | 'b' | 'y';
  readonly cost: number;
  /** The hash with `$2y$` rewritten to `$2b$` and unused trailing bits cleared (see below). */
  readonly normalized: string;
}

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BCRYPT = /^\$2([aby])\$([0-9]{2})\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/;

export function parseBcryptHash(hash: string): ParsedBcryptHash {
  const match = BCRYPT.exec(hash);
  if (!match) throw new MalformedPasswordHashError('bcrypt', describeDefect(hash));
  const [, minor, costText, salt, checksum] = match as unknown as [string, 'a' | 'b' | 'y', string, string, string];
  const cost = Number(costText);
  if (cost < BCRYPT_MIN_COST || cost > 31) {
    throw new MalformedPasswordHashError('bcrypt', `cost must be from ${BCRYPT_MIN_COST} to 31, got ${cost}`);
  }
  if (cost > BCRYPT_MAX_COST) {
    throw new PasswordHashLimitExceededError('bcrypt', `cost ${cost} is above the limit of ${BCRYPT_MAX_COST}`);
  }
  // The `bcrypt` package does not take `$2y$` (compare() returns false, hash() throws), so verify
  // it as `$2b$`. bcrypt uses only 128 of the 132 salt bits and 184 of the 186 checksum bits, and
  // verification compares whole strings, so a hash written with stray bits in a last character
  // (some encoders do; passlib repairs them the same way) would never match. Clearing them is lossless.
  const normalized = `$2${minor === 'y' ? 'b' : minor}$${costText}$${clearLowBits(salt, 4)}${clearLowBits(checksum, 2)}`;
  return { format: 'bcrypt', minor, cost, normalized };
}

export async function verifyBcryptHash(password: string, parsed: ParsedBcryptHash): Promise<boolean> {
  // The first 29 characters (`$2b$10$` + salt) are the setting bcrypt.hash() accepts as a salt.
  const recomputed = await bcrypt.hash(password, parsed.normalized.slice(0, 29));
  return constantTimeEqual(recomputed, parsed.normalized);
}

/** bcrypt at `cost` with a fresh random salt (`$2b$`). */
export function hashWithBcrypt(password: string, cost: number): Promise<string> {
  return bcrypt.hash(password, cost);
}

function clearLowBits(text: string, bits: number): string {
  const last = BCRYPT_ALPHABET.indexOf(text[text.length - 1]!);
  const mask = 0x3f & ~((1 << bits) - 1);
  return text.slice(0, -1) + BCRYPT_ALPHABET[last & mask];
}

function describeDefect(hash: string): string {
  if (!/^\$2[aby]\$[0-9]{2}\$/.test(hash)) return "expected '$2a$', '$2b$' or '$2y$' followed by a two-digit cost and '$'";
  const body = hash.slice(7);
  if (!/^[./A-Za-z0-9]*$/.test(body)) return 'salt and checksum contain characters outside the bcrypt alphabet';
  if (body.length < 22) return 'salt is shorter than 22 characters';
  if (body.length < 53) return 'checksum is shorter than 31 characters';
  return `expected 53 characters of salt and checksum after the cost, got ${body.length}`;
}
