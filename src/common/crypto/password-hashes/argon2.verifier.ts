import { verify as argon2Verify } from '@node-rs/argon2';
import { decodePhcBase64 } from './base64.encoding.js';
import { MalformedPasswordHashError, PasswordHashLimitExceededError, UnsupportedPasswordHashError } from './password-hash.errors.js';
import {
  ARGON2_MAX_MEMORY_KIB,
  ARGON2_MAX_PARALLELISM,
  ARGON2_MAX_WORK_KIB_PASSES,
  MAX_CHECKSUM_BYTES,
  MAX_SALT_BYTES,
  MIN_CHECKSUM_BYTES,
} from './password-hash.limits.js';
import { decodeField, parsePhcString, readIntegerParam, rejectUnknownParams } from './phc-string.parser.js';

/**
 * Argon2 (RFC 9106) in the PHC string format its reference implementation writes:
 * `$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>[,data=<B64>]$<B64 salt>$<B64 hash>`. A missing `v=`
 * means version 0x10 (1.0), as in the reference implementation. Django's Argon2PasswordHasher stores
 * the same string behind an `argon2` prefix (`argon2$argon2id$v=19$…`), which is accepted too.
 *
 * Verification uses `@node-rs/argon2` (the RustCrypto `argon2` crate through napi-rs): it installs as a
 * prebuilt per-platform package with no install script, is independent of the `argon2` package the
 * tests use to produce reference hashes, and compares the output in constant time (the crate's
 * `Output` equality is constant-time), so the comparison is not ours.
 */
export type Argon2Format = 'argon2id' | 'argon2i' | 'argon2d';

export interface ParsedArgon2Hash {
  readonly format: Argon2Format;
  readonly version: 0x10 | 0x13;
  readonly memoryKiB: number;
  readonly passes: number;
  readonly parallelism: number;
  /** The PHC string (without Django's prefix), which the library parses again. */
  readonly encoded: string;
}

// RFC 9106 §3.1: salt at least 8 bytes; lanes 1..2^24-1; memory at least 8·p KiB; passes at least 1.
const MIN_SALT_BYTES = 8;
const MAX_LANES = 2 ** 24 - 1;
const DJANGO_PREFIX = 'argon2$';

export function parseArgon2Hash(hash: string, format: Argon2Format): ParsedArgon2Hash {
  const encoded = hash.startsWith(DJANGO_PREFIX) ? hash.slice(DJANGO_PREFIX.length - 1) : hash;
  const phc = parsePhcString(encoded, format);
  if (phc.id !== format) throw new MalformedPasswordHashError(format, `identifier '$${phc.id}$' does not name ${format}`);
  const version = phc.version ?? 0x10;
  if (version !== 0x10 && version !== 0x13) {
    throw new MalformedPasswordHashError(format, `unknown version v=${version} (expected 16 or 19)`);
  }
  if (phc.params.has('keyid')) {
    // A keyed hash needs the secret ("pepper") of the system that wrote it, which an import lacks.
    throw new UnsupportedPasswordHashError(`$${format}$`, "hashes keyed with a secret ('keyid') cannot be verified", format);
  }
  rejectUnknownParams(phc, ['m', 't', 'p', 'data'], format);
  const parallelism = readIntegerParam(phc, 'p', format, 1, MAX_LANES);
  const memoryKiB = readIntegerParam(phc, 'm', format, 8 * parallelism, 2 ** 32 - 1);
  const passes = readIntegerParam(phc, 't', format, 1, 2 ** 32 - 1);
  const data = phc.params.get('data');
  if (data !== undefined && decodePhcBase64(data) === null) {
    throw new MalformedPasswordHashError(format, "parameter 'data' is not valid unpadded base64");
  }
  const encoding = 'unpadded base64';
  decodeField(phc.salt, decodePhcBase64, 'salt', format, { min: MIN_SALT_BYTES, max: MAX_SALT_BYTES, encoding });
  decodeField(phc.hash, decodePhcBase64, 'hash', format, { min: MIN_CHECKSUM_BYTES, max: MAX_CHECKSUM_BYTES, encoding });

  if (memoryKiB > ARGON2_MAX_MEMORY_KIB) {
    throw new PasswordHashLimitExceededError(format, `memory ${memoryKiB} KiB is above the limit of ${ARGON2_MAX_MEMORY_KIB} KiB`);
  }
  if (memoryKiB * passes > ARGON2_MAX_WORK_KIB_PASSES) {
    throw new PasswordHashLimitExceededError(format, `memory × passes (${memoryKiB} KiB × ${passes}) is above the limit of ${ARGON2_MAX_WORK_KIB_PASSES} KiB`);
  }
  if (parallelism > ARGON2_MAX_PARALLELISM) {
    throw new PasswordHashLimitExceededError(format, `parallelism ${parallelism} is above the limit of ${ARGON2_MAX_PARALLELISM}`);
  }
  return { format, version, memoryKiB, passes, parallelism, encoded };
}

export async function verifyArgon2Hash(password: string, parsed: ParsedArgon2Hash): Promise<boolean> {
  try {
    return await argon2Verify(parsed.encoded, password);
  } catch (error) {
    // The library only throws for a hash it cannot parse, never for a wrong password.
    const detail = error instanceof Error ? error.message : String(error);
    throw new MalformedPasswordHashError(parsed.format, `rejected by the argon2 library (${detail})`);
  }
}
