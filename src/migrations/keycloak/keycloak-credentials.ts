import { Secret } from 'otpauth';

/**
 * Keycloak's stored credentials (its `CredentialRepresentation`: `secretData` and `credentialData` are JSON text)
 * turned into what Portcullis verifies. Nothing here returns or throws a secret's value: a problem names the
 * credential's kind and the parameter at fault only.
 */
export type Converted<T> = { ok: true; value: T } | { ok: false; reason: string };

interface PasswordSecret {
  value?: unknown;
  salt?: unknown;
}

interface PasswordParameters {
  hashIterations?: unknown;
  algorithm?: unknown;
  additionalParameters?: Record<string, unknown>;
}

/** PHC strings (github.com/P-H-C/phc-string-format) encode bytes as base64 without padding. */
const phc64 = (base64: string) => Buffer.from(base64, 'base64').toString('base64').replace(/=+$/, '');
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * A `password` credential as a hash the login verifies (src/common/crypto/password-hashes): Keycloak's
 * `pbkdf2-sha256` and `pbkdf2-sha512` providers (PBKDF2 over the password's UTF-8 bytes, RFC 8018 §5.2, the key
 * length being the stored value's) become `$pbkdf2-sha…$i=…,l=…$salt$hash`; its `argon2` provider (Bouncy Castle's
 * Argon2, RFC 9106, over the UTF-8 bytes) becomes `$argon2<type>$v=…$m=…,t=…,p=…$salt$hash`. Keycloak's plain
 * `pbkdf2` is HMAC-SHA-1, which Portcullis does not verify: such a user must set a new password.
 */
export function passwordHashOf(secretData: unknown, credentialData: unknown): Converted<string> {
  const secret = parseJsonObject(secretData) as PasswordSecret | undefined;
  const parameters = parseJsonObject(credentialData) as PasswordParameters | undefined;
  if (!secret || !parameters) return { ok: false, reason: 'secretData and credentialData must be JSON objects' };
  const { value, salt } = secret;
  if (typeof value !== 'string' || !BASE64.test(value) || typeof salt !== 'string' || !BASE64.test(salt)) {
    return { ok: false, reason: 'secretData must hold a base64 value and salt' };
  }
  const iterations = parameters.hashIterations;
  if (!Number.isSafeInteger(iterations) || (iterations as number) < 1) return { ok: false, reason: 'credentialData.hashIterations must be a positive integer' };
  const algorithm = parameters.algorithm;
  switch (algorithm) {
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512': {
      const bytes = Buffer.from(value, 'base64').length;
      return { ok: true, value: `$${algorithm}$i=${iterations},l=${bytes}$${phc64(salt)}$${phc64(value)}` };
    }
    case 'argon2':
      return argon2Hash(value, salt, iterations as number, parameters.additionalParameters ?? {});
    case 'pbkdf2':
      return { ok: false, reason: 'the algorithm pbkdf2 (PBKDF2 with HMAC-SHA-1) is not verified here; the user sets a new password' };
    default:
      return { ok: false, reason: `the password algorithm ${JSON.stringify(String(algorithm)).slice(0, 40)} is not supported` };
  }
}

/** Keycloak writes each Argon2 parameter as a one-element array of text: `{"memory": ["7168"], "type": ["id"], …}`. */
function argon2Hash(value: string, salt: string, iterations: number, extra: Record<string, unknown>): Converted<string> {
  const one = (name: string): string | undefined => {
    const v = extra[name];
    return Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
  };
  const type = one('type') ?? 'id';
  const version = { '1.3': 19, '1.0': 16 }[one('version') ?? '1.3'];
  const memory = Number(one('memory') ?? '7168');
  const parallelism = Number(one('parallelism') ?? '1');
  if (!['id', 'i', 'd'].includes(type)) return { ok: false, reason: 'the argon2 type must be id, i or d' };
  if (version === undefined) return { ok: false, reason: 'the argon2 version must be 1.3 or 1.0' };
  if (!Number.isSafeInteger(memory) || !Number.isSafeInteger(parallelism)) return { ok: false, reason: 'the argon2 memory and parallelism must be integers' };
  return { ok: true, value: `$argon2${type}$v=${version}$m=${memory},t=${iterations},p=${parallelism}$${phc64(salt)}$${phc64(value)}` };
}

interface OtpParameters {
  subType?: unknown;
  digits?: unknown;
  period?: unknown;
  algorithm?: unknown;
  secretEncoding?: unknown;
}

/**
 * An `otp` credential as the base32 secret of a TOTP factor (RFC 6238). Keycloak's HMAC key is the UTF-8 bytes of
 * the stored secret text, which its QR code shows base32-encoded, unless `secretEncoding` is `BASE32`, when the text
 * is that encoding already. Portcullis's factors are SHA-1, 6 digits, 30 s (docs/product-rules.md, "Multi-factor sign-in"): another setting, or HOTP,
 * would produce other codes, so it is refused rather than carried wrongly.
 */
export function totpSecretOf(secretData: unknown, credentialData: unknown): Converted<string> {
  const secret = parseJsonObject(secretData) as { value?: unknown } | undefined;
  const parameters = (parseJsonObject(credentialData) ?? {}) as OtpParameters;
  if (!secret || typeof secret.value !== 'string' || secret.value === '') return { ok: false, reason: 'secretData must hold the secret as value' };
  if ((parameters.subType ?? 'totp') !== 'totp') return { ok: false, reason: 'only time-based (totp) one-time passwords carry over; hotp does not' };
  const digits = parameters.digits ?? 6;
  const period = parameters.period ?? 30;
  const algorithm = parameters.algorithm ?? 'HmacSHA1';
  if (digits !== 6 || period !== 30 || algorithm !== 'HmacSHA1') {
    return {
      ok: false,
      reason: `only HmacSHA1, 6 digits, 30 seconds carry over (this one is ${String(algorithm)}, ${String(digits)} digits, ${String(period)} s)`,
    };
  }
  if (parameters.secretEncoding === 'BASE32') {
    try {
      return { ok: true, value: Secret.fromBase32(secret.value).base32 };
    } catch {
      return { ok: false, reason: 'the secret is not valid base32' };
    }
  }
  return { ok: true, value: Secret.fromUTF8(secret.value).base32 };
}

function parseJsonObject(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
