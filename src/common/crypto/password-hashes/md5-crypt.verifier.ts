import { constantTimeEqual } from './constant-time.util.js';
import { crypt64Value, isCrypt64 } from './crypt64.encoding.js';
import { MD5_CRYPT_MAX_SALT_CHARS, md5CryptChecksum } from './md5-crypt.algorithm.js';
import { MalformedPasswordHashError } from './password-hash.errors.js';

/**
 * MD5-crypt `$1$<salt, ≤ 8 crypt64 chars>$<22 chars>` (FreeBSD, older Linux /etc/shadow) and Apache's
 * `$apr1$…` variant (htpasswd). Fixed cost, so there is nothing to cap.
 */
export type Md5CryptFormat = 'md5-crypt' | 'apache-md5-crypt';

export interface ParsedMd5CryptHash {
  readonly format: Md5CryptFormat;
  readonly magic: '$1$' | '$apr1$';
  readonly salt: string;
  readonly checksum: string;
}

const CHECKSUM_CHARS = 22;

export function parseMd5CryptHash(hash: string, format: Md5CryptFormat): ParsedMd5CryptHash {
  const magic = format === 'md5-crypt' ? '$1$' : '$apr1$';
  const fail = (reason: string) => new MalformedPasswordHashError(format, reason);
  if (!hash.startsWith(magic)) throw fail(`expected '${magic}' prefix`);
  const fields = hash.slice(magic.length).split('$');
  if (fields.length === 1 || fields[1] === '') throw fail('missing checksum');
  if (fields.length > 2) throw fail("unexpected extra '$'-separated field");
  const [salt, checksum] = fields as [string, string];
  if (salt.length > MD5_CRYPT_MAX_SALT_CHARS || !isCrypt64(salt)) {
    throw fail(`salt must be at most ${MD5_CRYPT_MAX_SALT_CHARS} characters of ./0-9A-Za-z`);
  }
  if (checksum.length !== CHECKSUM_CHARS || !isCrypt64(checksum)) {
    throw fail(`checksum must be ${CHECKSUM_CHARS} characters of ./0-9A-Za-z`);
  }
  // The last character encodes the digest's final 2 bits.
  if (crypt64Value(checksum[checksum.length - 1]!) >= 4) throw fail('checksum has a non-canonical last character');
  return { format, magic, salt, checksum };
}

export async function verifyMd5CryptHash(password: string, parsed: ParsedMd5CryptHash): Promise<boolean> {
  const computed = md5CryptChecksum(Buffer.from(password, 'utf8'), Buffer.from(parsed.salt, 'latin1'), parsed.magic);
  return constantTimeEqual(computed, parsed.checksum);
}
