import { parseArgon2Hash, verifyArgon2Hash, type ParsedArgon2Hash } from './argon2.verifier.js';
import { hashWithBcrypt, parseBcryptHash, verifyBcryptHash, type ParsedBcryptHash } from './bcrypt.verifier.js';
import { parseMd5CryptHash, verifyMd5CryptHash, type ParsedMd5CryptHash } from './md5-crypt.verifier.js';
import { InvalidPasswordHashError, MalformedPasswordHashError, UnsupportedPasswordHashError } from './password-hash.errors.js';
import { describeHashScheme, identifyPasswordHash, type PasswordHashFormat } from './password-hash.format.js';
import { BCRYPT_MAX_COST, BCRYPT_MIN_COST, MAX_PASSWORD_BYTES, MAX_PASSWORD_HASH_LENGTH } from './password-hash.limits.js';
import { expensiveVerifications } from './expensive-verifications.js';

export { VerifierBusyError } from './expensive-verifications.js';
import { parsePbkdf2Hash, verifyPbkdf2Hash, type ParsedPbkdf2Hash } from './pbkdf2.verifier.js';
import { parseScryptHash, verifyScryptHash, type ParsedScryptHash } from './scrypt.verifier.js';
import { parseShaCryptHash, verifyShaCryptHash, type ParsedShaCryptHash } from './sha-crypt.verifier.js';

/**
 * Password hashes of every format a migrating user base brings: identify and validate them at import
 * (parsing only, no hashing), verify a login against the stored hash by its own algorithm, and tell
 * when to re-hash with bcrypt at the configured cost.
 */
export { identifyPasswordHash, type PasswordHashFormat } from './password-hash.format.js';
export {
  InvalidPasswordHashError,
  MalformedPasswordHashError,
  PasswordHashLimitExceededError,
  UnsupportedPasswordHashError,
} from './password-hash.errors.js';

type ParsedPasswordHash = ParsedBcryptHash | ParsedArgon2Hash | ParsedScryptHash | ParsedPbkdf2Hash | ParsedShaCryptHash | ParsedMd5CryptHash;

type PasswordHashValidation =
  | { readonly valid: true; readonly format: PasswordHashFormat }
  | { readonly valid: false; readonly format: PasswordHashFormat | null; readonly error: InvalidPasswordHashError };

/**
 * Parses a stored hash and checks its parameters against the caps in password-hash.limits.ts.
 * Throws an InvalidPasswordHashError subclass for an unsupported, garbled or too costly hash.
 */
export function parsePasswordHash(hash: string): ParsedPasswordHash {
  if (typeof hash !== 'string') throw new MalformedPasswordHashError(null, 'password hash must be a string');
  if (hash === '') throw new MalformedPasswordHashError(null, 'password hash is empty');
  if (hash.length > MAX_PASSWORD_HASH_LENGTH) {
    throw new MalformedPasswordHashError(null, `password hash is longer than ${MAX_PASSWORD_HASH_LENGTH} characters`);
  }
  // A frequent import slip (CSV padding, a trailing newline); no supported format contains whitespace.
  if (/[\s\u0000-\u001f\u007f]/.test(hash)) {
    throw new MalformedPasswordHashError(identifyPasswordHash(hash), 'password hash contains whitespace or control characters');
  }
  const format = identifyPasswordHash(hash);
  switch (format) {
    case null:
      throw new UnsupportedPasswordHashError(describeHashScheme(hash));
    case 'bcrypt':
      return parseBcryptHash(hash);
    case 'argon2id':
    case 'argon2i':
    case 'argon2d':
      return parseArgon2Hash(hash, format);
    case 'scrypt':
      return parseScryptHash(hash);
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512':
      return parsePbkdf2Hash(hash, format);
    case 'sha256-crypt':
    case 'sha512-crypt':
      return parseShaCryptHash(hash, format);
    case 'md5-crypt':
    case 'apache-md5-crypt':
      return parseMd5CryptHash(hash, format);
  }
}

/**
 * Import-time check of a stored hash: parses it (no hashing, a few microseconds) and reports why it
 * cannot be used. Never throws.
 */
export function validatePasswordHash(hash: string): PasswordHashValidation {
  try {
    return { valid: true, format: parsePasswordHash(hash).format };
  } catch (error) {
    if (error instanceof InvalidPasswordHashError) return { valid: false, format: error.format, error };
    throw error;
  }
}

/**
 * Whether `password` matches `hash`, by the hash's own algorithm. Resolves false for a wrong
 * password; rejects with an InvalidPasswordHashError only when the stored hash is unsupported,
 * garbled or above the cost caps, and with VerifierBusyError when too many imported hashes are being
 * verified at once (nothing was checked). Passwords are encoded as UTF-8 without normalisation, as every
 * supported source system does; one longer than MAX_PASSWORD_BYTES (1024) resolves false unhashed.
 */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const parsed = parsePasswordHash(hash);
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return false;
  if (parsed.format === 'bcrypt') return verifyBcryptHash(password, parsed);
  return expensiveVerifications.run(() => verifyImported(password, parsed));
}

/** The imported formats, each by its own algorithm; run a bounded number at a time (expensive-verifications.ts). */
function verifyImported(password: string, parsed: Exclude<ParsedPasswordHash, ParsedBcryptHash>): Promise<boolean> {
  switch (parsed.format) {
    case 'argon2id':
    case 'argon2i':
    case 'argon2d':
      return verifyArgon2Hash(password, parsed);
    case 'scrypt':
      return verifyScryptHash(password, parsed);
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512':
      return verifyPbkdf2Hash(password, parsed);
    case 'sha256-crypt':
    case 'sha512-crypt':
      return verifyShaCryptHash(password, parsed);
    case 'md5-crypt':
    case 'apache-md5-crypt':
      return verifyMd5CryptHash(password, parsed);
  }
}

/**
 * True unless `hash` is bcrypt at exactly `bcryptCost` (any of `$2a$`/`$2b$`/`$2y$`, which are the
 * same algorithm). A higher cost is re-hashed down too, so every user converges on the configured
 * cost. Garbled hashes also return true; this never throws for a bad hash.
 */
export function needsRehash(hash: string, bcryptCost: number): boolean {
  assertBcryptCost(bcryptCost);
  if (identifyPasswordHash(hash) !== 'bcrypt') return true;
  try {
    return parseBcryptHash(hash).cost !== bcryptCost;
  } catch {
    return true;
  }
}

/**
 * A new bcrypt hash (`$2b$`) of `password` at `bcryptCost`. bcrypt uses only the first 72 UTF-8
 * bytes; passwords over MAX_PASSWORD_BYTES (1024), which verifyPassword would refuse, are a RangeError.
 */
export async function hashPassword(password: string, bcryptCost: number): Promise<string> {
  assertBcryptCost(bcryptCost);
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw new RangeError(`password is longer than ${MAX_PASSWORD_BYTES} UTF-8 bytes`);
  }
  return hashWithBcrypt(password, bcryptCost);
}

const dummyHashes = new Map<number, Promise<string>>();

/**
 * Spends the time of one bcrypt verification at `bcryptCost` and resolves false. Call it when the
 * user does not exist (or has no password), so that the response time does not reveal which
 * usernames exist. The dummy hash is made once per cost.
 */
export async function verifyAgainstDummyHash(password: string, bcryptCost: number): Promise<false> {
  assertBcryptCost(bcryptCost);
  let dummy = dummyHashes.get(bcryptCost);
  if (dummy === undefined) {
    dummy = hashWithBcrypt('portcullis dummy password', bcryptCost);
    dummyHashes.set(bcryptCost, dummy);
    dummy.catch(() => dummyHashes.delete(bcryptCost));
  }
  await verifyBcryptHash(password, parseBcryptHash(await dummy));
  return false;
}

function assertBcryptCost(cost: number): void {
  if (!Number.isInteger(cost) || cost < BCRYPT_MIN_COST || cost > BCRYPT_MAX_COST) {
    throw new RangeError(`bcrypt cost must be an integer from ${BCRYPT_MIN_COST} to ${BCRYPT_MAX_COST}, got ${cost}`);
  }
}
