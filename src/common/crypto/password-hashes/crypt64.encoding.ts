/**
 * The "crypt64" alphabet of traditional crypt(3) schemes (MD5-crypt, SHA-crypt): `./0-9A-Za-z`,
 * written least significant 6 bits first. Not RFC 4648 base64: both the alphabet and the bit order
 * differ, and each scheme permutes the digest bytes into 24-bit groups first.
 */
const CRYPT64_ALPHABET = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const CRYPT64_TEXT = /^[./0-9A-Za-z]*$/;

export function isCrypt64(text: string): boolean {
  return CRYPT64_TEXT.test(text);
}

/** The 6-bit value of one crypt64 character (the caller has checked the alphabet). */
export function crypt64Value(char: string): number {
  return CRYPT64_ALPHABET.indexOf(char);
}

/**
 * Encodes groups of three digest bytes as in the specs' `b64_from_24bit(B2, B1, B0, N)`:
 * w = B2<<16 | B1<<8 | B0, then N characters of w's 6-bit chunks, lowest first. A group may name
 * byte index -1 for a constant zero byte (the specs' `0` in the last, short group).
 */
export function encodeCrypt64Groups(digest: Buffer, groups: ReadonlyArray<readonly [number, number, number, number]>): string {
  let out = '';
  for (const [i2, i1, i0, chars] of groups) {
    let w = (byteAt(digest, i2) << 16) | (byteAt(digest, i1) << 8) | byteAt(digest, i0);
    for (let n = 0; n < chars; n++) {
      out += CRYPT64_ALPHABET[w & 0x3f];
      w >>>= 6;
    }
  }
  return out;
}

function byteAt(digest: Buffer, index: number): number {
  return index < 0 ? 0 : digest[index]!;
}
