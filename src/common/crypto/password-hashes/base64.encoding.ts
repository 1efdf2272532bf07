/**
 * Strict decoders for the base64 dialects password hash strings use. Strict means: only the
 * dialect's alphabet, a possible length, and canonical trailing bits (re-encoding gives the same
 * text). Real libraries only emit canonical text, and the argon2 library refuses anything else, so
 * rejecting it at import is clearer than failing at login.
 */

const STANDARD_UNPADDED = /^[A-Za-z0-9+/]*$/;
const PASSLIB_AB64 = /^[A-Za-z0-9./]*$/;
const STANDARD_PADDED = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** PHC string format "B64": standard alphabet, no padding (github.com/P-H-C/phc-string-format). */
export function decodePhcBase64(text: string): Buffer | null {
  if (!STANDARD_UNPADDED.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64').replace(/=+$/, '') === text ? bytes : null;
}

/**
 * passlib's "adapted base64" (passlib.utils.binary.ab64_encode): standard base64 without padding,
 * with `.` in place of `+`. Used by passlib's `$pbkdf2-sha256$` / `$pbkdf2-sha512$` hashes.
 */
export function decodePasslibAdaptedBase64(text: string): Buffer | null {
  if (!PASSLIB_AB64.test(text)) return null;
  return decodePhcBase64(text.replaceAll('.', '+'));
}

/** RFC 4648 base64 with `=` padding, as Django's `base64.b64encode` writes the PBKDF2 digest. */
export function decodePaddedBase64(text: string): Buffer | null {
  if (text.length % 4 !== 0 || !STANDARD_PADDED.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : null;
}
