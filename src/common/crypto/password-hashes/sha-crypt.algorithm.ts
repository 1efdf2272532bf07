import { createHash, hash as oneShotHash } from 'node:crypto';
import { encodeCrypt64Groups } from './crypt64.encoding.js';

/**
 * SHA-crypt, implemented from Ulrich Drepper's specification "Unix crypt using SHA-256 and SHA-512"
 * (https://www.akkadia.org/drepper/SHA-crypt.txt), on node:crypto's SHA-2. Step numbers below are
 * the spec's.
 *
 * Why our own code: no npm package was trustworthy for this. `unixcrypt` (the maintained pure-JS
 * one) blocks the event loop for the whole computation, allocates an array of `rounds` elements,
 * throws a RangeError out of timingSafeEqual for a truncated checksum or a string not in its own
 * normalised form (e.g. `rounds=10`, which the spec raises to 1000), and has no MD5-crypt;
 * `sha512crypt-node` covers SHA-512 only; `crypt3` is an unmaintained native binding to the system
 * crypt(3). The spec's own test vectors are in sha-crypt.verifier.spec.ts, and the implementation
 * was also checked against glibc/libxcrypt crypt(3) and `openssl passwd -5/-6` on random inputs.
 */
export type ShaCryptDigest = 'sha256' | 'sha512';

const SHA_CRYPT_MIN_ROUNDS = 1000;
export const SHA_CRYPT_DEFAULT_ROUNDS = 5000;
export const SHA_CRYPT_MAX_SALT_CHARS = 16;

/** Step 22: which digest bytes form each 24-bit group of the output, and how many characters it yields. */
const OUTPUT_GROUPS: Record<ShaCryptDigest, ReadonlyArray<readonly [number, number, number, number]>> = {
  sha256: [
    [0, 10, 20, 4],
    [21, 1, 11, 4],
    [12, 22, 2, 4],
    [3, 13, 23, 4],
    [24, 4, 14, 4],
    [15, 25, 5, 4],
    [6, 16, 26, 4],
    [27, 7, 17, 4],
    [18, 28, 8, 4],
    [9, 19, 29, 4],
    [-1, 31, 30, 3],
  ],
  sha512: [
    [0, 21, 42, 4],
    [22, 43, 1, 4],
    [44, 2, 23, 4],
    [3, 24, 45, 4],
    [25, 46, 4, 4],
    [47, 5, 26, 4],
    [6, 27, 48, 4],
    [28, 49, 7, 4],
    [50, 8, 29, 4],
    [9, 30, 51, 4],
    [31, 52, 10, 4],
    [53, 11, 32, 4],
    [12, 33, 54, 4],
    [34, 55, 13, 4],
    [56, 14, 35, 4],
    [15, 36, 57, 4],
    [37, 58, 16, 4],
    [59, 17, 38, 4],
    [18, 39, 60, 4],
    [40, 61, 19, 4],
    [62, 20, 41, 4],
    [-1, -1, 63, 2],
  ],
};

/** Rounds between yields to the event loop, so a 656,000-round passlib hash does not stall other requests. */
const ROUNDS_PER_SLICE = 4096;

/**
 * The checksum part (43 characters for SHA-256, 86 for SHA-512) of `$5$`/`$6$` for `key` and `salt`
 * (at most 16 bytes; the caller has already truncated it). `rounds` is clamped to the spec's minimum.
 */
export async function shaCryptChecksum(key: Buffer, salt: Buffer, rounds: number, digest: ShaCryptDigest): Promise<string> {
  const hash = () => createHash(digest);

  // Steps 4–8: digest B = H(key | salt | key).
  const b = hash().update(key).update(salt).update(key).digest();

  // Steps 1–3 and 9–12: digest A = H(key | salt | key.length bytes of B repeated | one B or key per bit of key.length).
  const a = hash().update(key).update(salt).update(repeatToLength(b, key.length));
  for (let bits = key.length; bits > 0; bits >>>= 1) a.update(bits & 1 ? b : key);
  const digestA = a.digest();

  // Steps 13–16: P = key.length bytes of DP repeated, DP = H(key repeated key.length times).
  const dp = hash();
  for (let i = 0; i < key.length; i++) dp.update(key);
  const p = repeatToLength(dp.digest(), key.length);

  // Steps 17–20: S = salt.length bytes of DS, DS = H(salt repeated 16 + A[0] times).
  const ds = hash();
  for (let i = 0; i < 16 + digestA[0]!; i++) ds.update(salt);
  const s = repeatToLength(ds.digest(), salt.length);

  // Step 21: the rounds, counted from 0.
  let c = digestA;
  const total = Math.max(rounds, SHA_CRYPT_MIN_ROUNDS);
  // One-shot crypto.hash() over the concatenated input is about 1.5× faster than a Hash object per round.
  for (let round = 0; round < total; round++) {
    if (round > 0 && round % ROUNDS_PER_SLICE === 0) await yieldToEventLoop();
    const input = [round & 1 ? p : c];
    if (round % 3 !== 0) input.push(s);
    if (round % 7 !== 0) input.push(p);
    input.push(round & 1 ? c : p);
    c = oneShotHash(digest, Buffer.concat(input), 'buffer');
  }

  return encodeCrypt64Groups(c, OUTPUT_GROUPS[digest]);
}

/** The first `length` bytes of `block` repeated (steps 9–10, 16 and 20 of the spec). */
function repeatToLength(block: Buffer, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let offset = 0; offset < length; offset += block.length) block.copy(out, offset, 0, Math.min(block.length, length - offset));
  return out;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
