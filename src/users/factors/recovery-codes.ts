import { randomInt } from 'node:crypto';

/** Ten codes, as docs/product-rules.md ("Multi-factor sign-in") asks. */
export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32 without I, L, O, U: nothing to misread when typed from paper. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const LENGTH = 12;

/** Ten new codes, `XXXX-XXXX-XXXX` (60 bits each: no guess within any lockout's reach). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
  });
}

/**
 * The form a code is hashed in: upper case, without dashes or spaces, the letters a reader may confuse
 * mapped as Crockford's base32 does; undefined when it cannot be a recovery code at all.
 */
export function normalizeRecoveryCode(input: string): string | undefined {
  const code = input.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
  return code.length === LENGTH && [...code].every((c) => ALPHABET.includes(c)) ? code : undefined;
}
