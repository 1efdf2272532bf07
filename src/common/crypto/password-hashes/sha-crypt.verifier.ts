import { constantTimeEqual } from './constant-time.util.js';
import { crypt64Value, isCrypt64 } from './crypt64.encoding.js';
import { MalformedPasswordHashError, PasswordHashLimitExceededError } from './password-hash.errors.js';
import { SHA_CRYPT_MAX_ROUNDS } from './password-hash.limits.js';
import { parseDecimalInteger } from './phc-string.parser.js';
import { SHA_CRYPT_DEFAULT_ROUNDS, SHA_CRYPT_MAX_SALT_CHARS, shaCryptChecksum, type ShaCryptDigest } from './sha-crypt.algorithm.js';

/**
 * SHA-256-crypt `$5$` and SHA-512-crypt `$6$` (glibc crypt(3), /etc/shadow), per Drepper's spec:
 * `$5$[rounds=<N>$]<salt, ≤ 16 crypt64 chars>$<43 chars>` / `$6$…$<86 chars>`. Without `rounds=` the
 * spec's default of 5000 applies; counts below 1000 are raised to 1000 as glibc does.
 */
export type ShaCryptFormat = 'sha256-crypt' | 'sha512-crypt';

export interface ParsedShaCryptHash {
  readonly format: ShaCryptFormat;
  readonly digest: ShaCryptDigest;
  readonly rounds: number;
  readonly salt: string;
  readonly checksum: string;
}

const SPEC = {
  'sha256-crypt': { prefix: '$5$', digest: 'sha256', checksumChars: 43, lastCharBits: 4 },
  'sha512-crypt': { prefix: '$6$', digest: 'sha512', checksumChars: 86, lastCharBits: 2 },
} as const;

export function parseShaCryptHash(hash: string, format: ShaCryptFormat): ParsedShaCryptHash {
  const spec = SPEC[format];
  const fail = (reason: string) => new MalformedPasswordHashError(format, reason);
  if (!hash.startsWith(spec.prefix)) throw fail(`expected '${spec.prefix}' prefix`);
  const fields = hash.slice(spec.prefix.length).split('$');

  let rounds = SHA_CRYPT_DEFAULT_ROUNDS;
  if (fields[0]!.startsWith('rounds=')) {
    const parsed = parseDecimalInteger(fields.shift()!.slice('rounds='.length));
    if (parsed === null) throw fail("'rounds=' must be a decimal integer without leading zeros");
    rounds = parsed;
  }
  if (fields.length < 2) throw fail(fields.length === 0 ? 'missing salt and checksum' : 'missing checksum');
  if (fields.length > 2) throw fail("unexpected extra '$'-separated field");
  const [salt, checksum] = fields as [string, string];
  if (salt.length > SHA_CRYPT_MAX_SALT_CHARS || !isCrypt64(salt)) {
    throw fail(`salt must be at most ${SHA_CRYPT_MAX_SALT_CHARS} characters of ./0-9A-Za-z`);
  }
  if (checksum === '') throw fail('missing checksum');
  if (checksum.length !== spec.checksumChars || !isCrypt64(checksum)) {
    throw fail(`checksum must be ${spec.checksumChars} characters of ./0-9A-Za-z`);
  }
  // The last character carries only the digest's remaining bits; any other value was never produced by crypt(3).
  if (crypt64Value(checksum[checksum.length - 1]!) >= 1 << spec.lastCharBits) throw fail('checksum has a non-canonical last character');
  if (rounds > SHA_CRYPT_MAX_ROUNDS) {
    throw new PasswordHashLimitExceededError(format, `${rounds} rounds is above the limit of ${SHA_CRYPT_MAX_ROUNDS}`);
  }
  return { format, digest: spec.digest, rounds, salt, checksum };
}

export async function verifyShaCryptHash(password: string, parsed: ParsedShaCryptHash): Promise<boolean> {
  const computed = await shaCryptChecksum(Buffer.from(password, 'utf8'), Buffer.from(parsed.salt, 'latin1'), parsed.rounds, parsed.digest);
  return constantTimeEqual(computed, parsed.checksum);
}
