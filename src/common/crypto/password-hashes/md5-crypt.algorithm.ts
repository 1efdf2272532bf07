import { createHash } from 'node:crypto';
import { encodeCrypt64Groups } from './crypt64.encoding.js';

/**
 * MD5-crypt, implemented from Poul-Henning Kamp's FreeBSD algorithm (lib/libcrypt/crypt-md5.c, 1994;
 * the de-facto specification, also documented in passlib's `md5_crypt` "Algorithm" section). Apache's
 * `$apr1$` is the same algorithm with `$apr1$` as the magic string mixed into the digest.
 *
 * Why our own code: the npm packages for it are either Apache-only (`apache-md5`, which also works on
 * UTF-16 code units, so non-ASCII passwords differ from crypt(3)) or unmaintained (`cryptmd5`), and
 * the algorithm is 1,000 fixed MD5 rounds that node:crypto runs in about a millisecond. Besides the
 * published vectors in md5-crypt.verifier.spec.ts it was checked against glibc/libxcrypt crypt(3)
 * and `openssl passwd -1/-apr1` on random inputs.
 */
export const MD5_CRYPT_MAX_SALT_CHARS = 8;

/** Output byte order: groups of the final digest, as crypt-md5.c passes them to _crypt_to64(). */
const OUTPUT_GROUPS: ReadonlyArray<readonly [number, number, number, number]> = [
  [0, 6, 12, 4],
  [1, 7, 13, 4],
  [2, 8, 14, 4],
  [3, 9, 15, 4],
  [4, 10, 5, 4],
  [-1, -1, 11, 2],
];

/** The 22-character checksum of `$1$` (magic `$1$`) or `$apr1$` (magic `$apr1$`) for `key` and a ≤ 8-byte `salt`. */
export function md5CryptChecksum(key: Buffer, salt: Buffer, magic: '$1$' | '$apr1$'): string {
  const md5 = () => createHash('md5');

  // key | magic | salt, then key.length bytes of MD5(key | salt | key).
  const alternate = md5().update(key).update(salt).update(key).digest();
  const ctx = md5().update(key).update(magic).update(salt);
  for (let left = key.length; left > 0; left -= 16) ctx.update(alternate.subarray(0, Math.min(left, 16)));

  // Then, for each bit of the key length from the lowest, a zero byte for a 1 and the key's first byte for a 0.
  for (let bits = key.length; bits > 0; bits >>>= 1) ctx.update(bits & 1 ? ZERO_BYTE : key.subarray(0, 1));
  let final = ctx.digest();

  // 1000 rounds, mixing key, salt and the previous digest in an order set by the round number.
  for (let round = 0; round < 1000; round++) {
    const step = md5();
    step.update(round & 1 ? key : final);
    if (round % 3 !== 0) step.update(salt);
    if (round % 7 !== 0) step.update(key);
    step.update(round & 1 ? final : key);
    final = step.digest();
  }
  return encodeCrypt64Groups(final, OUTPUT_GROUPS);
}

const ZERO_BYTE = Buffer.alloc(1);
