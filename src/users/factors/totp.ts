import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as docs/product-rules.md ("Multi-factor sign-in") fixes it: SHA-1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;
const PARAMETERS = { algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS } as const;
/** ±1 step: a code of the previous or the next 30 seconds is accepted too (clock drift, typing time). */
const WINDOW = 1;

/** A new authenticator's secret (160 bits, the size RFC 4226 §4 recommends), base32 as apps expect it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://` URI an authenticator app reads from a QR code or a link. */
export function totpUri(secret: string, issuer: string, accountName: string): string {
  return new TOTP({ ...PARAMETERS, issuer, label: accountName, secret: Secret.fromBase32(secret) }).toString();
}

/**
 * The time step the code belongs to, when it is right for `now` within the window; undefined otherwise.
 * The caller refuses a step at or below the last one accepted, so each code works once. The comparison
 * is otpauth's, in constant time.
 */
export function totpStepOf(secret: string, code: string, now = Date.now()): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = TOTP.validate({ ...PARAMETERS, secret: Secret.fromBase32(secret), token, timestamp: now, window: WINDOW });
  return delta === null ? undefined : Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}
