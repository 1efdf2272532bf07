import { scrypt } from 'node:crypto';
import { decodePhcBase64 } from './base64.encoding.js';
import { constantTimeEqual } from './constant-time.util.js';
import { MalformedPasswordHashError, PasswordHashLimitExceededError } from './password-hash.errors.js';
import { MAX_CHECKSUM_BYTES, MAX_SALT_BYTES, MIN_CHECKSUM_BYTES, SCRYPT_MAX_MEMORY_BYTES, SCRYPT_MAX_WORK } from './password-hash.limits.js';
import { decodeField, parsePhcString, readIntegerParam, rejectUnknownParams } from './phc-string.parser.js';

/**
 * scrypt (RFC 7914) in the PHC-style string passlib (`passlib.hash.scrypt`), the RustCrypto `scrypt`
 * crate write: `$scrypt$ln=<log2 N>,r=<block size>,p=<parallelism>$<B64 salt>$<B64 hash>`,
 * unpadded standard base64; the salt is used as the decoded bytes. Derivation is Node's
 * crypto.scrypt (OpenSSL), run on the libuv thread pool.
 */
export interface ParsedScryptHash {
  readonly format: 'scrypt';
  readonly logN: number;
  readonly blockSize: number;
  readonly parallelism: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

export function parseScryptHash(hash: string): ParsedScryptHash {
  const format = 'scrypt';
  const phc = parsePhcString(hash, format);
  if (phc.id !== 'scrypt') throw new MalformedPasswordHashError(format, `identifier '$${phc.id}$' does not name scrypt`);
  if (phc.version !== undefined) throw new MalformedPasswordHashError(format, 'scrypt strings carry no version field');
  rejectUnknownParams(phc, ['ln', 'r', 'p'], format);
  // RFC 7914 §2: N a power of two greater than 1, r·p < 2^30.
  const logN = readIntegerParam(phc, 'ln', format, 1, 63);
  const blockSize = readIntegerParam(phc, 'r', format, 1, 2 ** 30 - 1);
  const parallelism = readIntegerParam(phc, 'p', format, 1, 2 ** 30 - 1);
  if (blockSize * parallelism >= 2 ** 30) throw new MalformedPasswordHashError(format, 'r × p must be below 2^30');
  const encoding = 'unpadded base64';
  const salt = decodeField(phc.salt, decodePhcBase64, 'salt', format, { min: 1, max: MAX_SALT_BYTES, encoding });
  const digest = decodeField(phc.hash, decodePhcBase64, 'hash', format, { min: MIN_CHECKSUM_BYTES, max: MAX_CHECKSUM_BYTES, encoding });

  const memory = scryptMemoryBytes(logN, blockSize);
  if (memory > SCRYPT_MAX_MEMORY_BYTES) {
    throw new PasswordHashLimitExceededError(format, `memory 128·N·r = ${memory} bytes is above the limit of ${SCRYPT_MAX_MEMORY_BYTES}`);
  }
  const work = 2 ** logN * blockSize * parallelism;
  if (work > SCRYPT_MAX_WORK) {
    throw new PasswordHashLimitExceededError(format, `work N·r·p = ${work} is above the limit of ${SCRYPT_MAX_WORK}`);
  }
  return { format, logN, blockSize, parallelism, salt, hash: digest };
}

export async function verifyScryptHash(password: string, parsed: ParsedScryptHash): Promise<boolean> {
  const N = 2 ** parsed.logN;
  const { blockSize: r, parallelism: p } = parsed;
  // OpenSSL needs 128·r·(N + p + 2) bytes; Node's default maxmem (32 MiB) is below passlib's 64 MiB.
  const maxmem = 128 * r * (N + p + 2) + 1024 * 1024;
  const derived = await new Promise<Buffer>((resolve, reject) => {
    scrypt(Buffer.from(password, 'utf8'), parsed.salt, parsed.hash.length, { N, r, p, maxmem }, (error, key) => (error ? reject(error) : resolve(key)));
  });
  return constantTimeEqual(derived, parsed.hash);
}

function scryptMemoryBytes(logN: number, blockSize: number): number {
  return 128 * 2 ** logN * blockSize;
}
