import { pbkdf2 } from 'node:crypto';
import { decodePaddedBase64, decodePasslibAdaptedBase64, decodePhcBase64 } from './base64.encoding.js';
import { constantTimeEqual } from './constant-time.util.js';
import { MalformedPasswordHashError, PasswordHashLimitExceededError } from './password-hash.errors.js';
import { MAX_CHECKSUM_BYTES, MAX_SALT_BYTES, MIN_CHECKSUM_BYTES, PBKDF2_MAX_WORK } from './password-hash.limits.js';
import { decodeField, parseDecimalInteger, parsePhcString, readIntegerParam, rejectUnknownParams } from './phc-string.parser.js';

/**
 * PBKDF2-HMAC (RFC 8018 §5.2) with SHA-256 or SHA-512, in the three string layouts imports bring:
 *
 * - PHC (github.com/P-H-C/phc-string-format, RustCrypto `pbkdf2`): `$pbkdf2-sha256$i=<iterations>[,l=<bytes>]$<B64 salt>$<B64 hash>`;
 * - passlib (`passlib.hash.pbkdf2_sha256` / `pbkdf2_sha512`): `$pbkdf2-sha256$<iterations>$<ab64 salt>$<ab64 hash>`,
 *   in passlib's adapted base64 (`.` for `+`, no padding);
 * - Django (`django.contrib.auth.hashers.PBKDF2PasswordHasher`): `pbkdf2_sha256$<iterations>$<salt>$<base64 hash>`,
 *   where the salt is used as its UTF-8 text and the hash is padded base64.
 *
 * In the PHC and passlib layouts the salt is the decoded bytes. Derivation is Node's crypto.pbkdf2
 * (OpenSSL) on the libuv thread pool; the key length is the stored hash's length.
 */
export type Pbkdf2Format = 'pbkdf2-sha256' | 'pbkdf2-sha512';
type Pbkdf2Layout = 'phc' | 'passlib' | 'django';

export interface ParsedPbkdf2Hash {
  readonly format: Pbkdf2Format;
  readonly layout: Pbkdf2Layout;
  readonly digest: 'sha256' | 'sha512';
  readonly iterations: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

const DIGEST_BYTES = { sha256: 32, sha512: 64 } as const;
const DJANGO_SALT = /^[^$\u0000-\u001f\u007f]{1,128}$/;

export function parsePbkdf2Hash(hash: string, format: Pbkdf2Format): ParsedPbkdf2Hash {
  const digest = format === 'pbkdf2-sha256' ? 'sha256' : 'sha512';
  const parsed = hash.startsWith('$') ? parseModular(hash, format, digest) : parseDjango(hash, format, digest);
  const blocks = Math.ceil(parsed.hash.length / DIGEST_BYTES[digest]);
  if (parsed.iterations * blocks > PBKDF2_MAX_WORK) {
    throw new PasswordHashLimitExceededError(format, `iterations × output blocks (${parsed.iterations} × ${blocks}) is above the limit of ${PBKDF2_MAX_WORK}`);
  }
  return parsed;
}

export async function verifyPbkdf2Hash(password: string, parsed: ParsedPbkdf2Hash): Promise<boolean> {
  const derived = await new Promise<Buffer>((resolve, reject) => {
    pbkdf2(Buffer.from(password, 'utf8'), parsed.salt, parsed.iterations, parsed.hash.length, parsed.digest, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
  return constantTimeEqual(derived, parsed.hash);
}

function parseModular(hash: string, format: Pbkdf2Format, digest: 'sha256' | 'sha512'): ParsedPbkdf2Hash {
  const fields = hash.split('$');
  // passlib writes the bare iteration count where PHC writes `i=…`.
  if (/^[0-9]+$/.test(fields[2] ?? '')) {
    if (fields[3] === undefined || fields[3] === '') throw new MalformedPasswordHashError(format, 'missing salt');
    if (fields[4] === undefined || fields[4] === '') throw new MalformedPasswordHashError(format, 'missing hash');
    if (fields.length > 5) throw new MalformedPasswordHashError(format, "unexpected extra '$'-separated field");
    const iterations = requireIterations(fields[2]!, format);
    const encoding = "passlib's adapted base64";
    const salt = decodeField(fields[3], decodePasslibAdaptedBase64, 'salt', format, { min: 1, max: MAX_SALT_BYTES, encoding });
    const checksum = decodeField(fields[4], decodePasslibAdaptedBase64, 'hash', format, bounds(encoding));
    return { format, layout: 'passlib', digest, iterations, salt, hash: checksum };
  }
  const phc = parsePhcString(hash, format);
  if (phc.id !== format) throw new MalformedPasswordHashError(format, `identifier '$${phc.id}$' does not name ${format}`);
  if (phc.version !== undefined) throw new MalformedPasswordHashError(format, 'pbkdf2 strings carry no version field');
  if (phc.params.size === 0) throw new MalformedPasswordHashError(format, "missing iteration count ('i=' or a bare number)");
  rejectUnknownParams(phc, ['i', 'l'], format);
  const iterations = readIntegerParam(phc, 'i', format, 1, Number.MAX_SAFE_INTEGER);
  const encoding = 'unpadded base64';
  const salt = decodeField(phc.salt, decodePhcBase64, 'salt', format, { min: 1, max: MAX_SALT_BYTES, encoding });
  const checksum = decodeField(phc.hash, decodePhcBase64, 'hash', format, bounds(encoding));
  if (phc.params.has('l') && readIntegerParam(phc, 'l', format, 1, MAX_CHECKSUM_BYTES) !== checksum.length) {
    throw new MalformedPasswordHashError(format, `parameter 'l' does not match the ${checksum.length}-byte hash`);
  }
  return { format, layout: 'phc', digest, iterations, salt, hash: checksum };
}

function parseDjango(hash: string, format: Pbkdf2Format, digest: 'sha256' | 'sha512'): ParsedPbkdf2Hash {
  const fields = hash.split('$');
  if (fields.length !== 4) {
    throw new MalformedPasswordHashError(format, "expected '<algorithm>$<iterations>$<salt>$<hash>' (Django layout)");
  }
  const iterations = requireIterations(fields[1]!, format);
  const saltText = fields[2]!;
  if (saltText === '') throw new MalformedPasswordHashError(format, 'missing salt');
  if (!DJANGO_SALT.test(saltText)) throw new MalformedPasswordHashError(format, 'salt must be 1 to 128 printable characters');
  if (fields[3] === '') throw new MalformedPasswordHashError(format, 'missing hash');
  const checksum = decodeField(fields[3]!, decodePaddedBase64, 'hash', format, bounds('padded base64'));
  return { format, layout: 'django', digest, iterations, salt: Buffer.from(saltText, 'utf8'), hash: checksum };
}

function requireIterations(text: string, format: Pbkdf2Format): number {
  const iterations = parseDecimalInteger(text);
  if (iterations === null || iterations < 1) {
    throw new MalformedPasswordHashError(format, 'iteration count must be a positive decimal integer without leading zeros');
  }
  return iterations;
}

function bounds(encoding: string) {
  return { min: MIN_CHECKSUM_BYTES, max: MAX_CHECKSUM_BYTES, encoding };
}
