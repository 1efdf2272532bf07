import { DomainError } from '../common/errors/domain-error.js';
import { PASSWORD_MAX_BYTES } from '../common/crypto/password-hasher.js';
import { MAX_TOKEN_SECONDS, MIN_TOKEN_SECONDS, TOKEN_FIELDS } from './settings.values.js';
import type { AppLifetimes } from './settings.store.js';
import type { Settings, TokenLifetimes } from './settings.values.js';

/** At most this many failed checks before the lockout; 0 turns that lockout off. */
export const MAX_FAILURES = 1_000;
/** Keycloak's "Not Recently Used" takes any count; each remembered password costs a hash check at every change. */
export const MAX_HISTORY_COUNT = 24;
/** Ten years: longer is "never", which is 0. */
export const MAX_PASSWORD_AGE_DAYS = 3_650;
/** A day: a longer lock is better left to an administrator (0). */
export const MAX_LOCK_SECONDS = 86_400;

/**
 * The rules a whole set of settings keeps; the first broken one is a 400 naming its field. Types and single-field
 * ranges are checked at the edge (settings.dto.ts); these hold between fields, and again here for any caller.
 */
export function checkSettings(settings: Settings): void {
  checkLifetimes('tokens', settings.tokens);
  const { tokens, passwordPolicy: policy, lockout } = settings;
  if (tokens.refreshIdleSeconds > tokens.refreshAbsoluteSeconds)
    throw DomainError.invalidField('tokens.refreshIdleSeconds', 'tokens.refreshIdleSeconds must not exceed tokens.refreshAbsoluteSeconds');
  range('passwordPolicy.minLength', policy.minLength, 1, PASSWORD_MAX_BYTES);
  // bcrypt reads the first 72 bytes of a password and would ignore the rest (src/common/crypto/password-hasher.ts).
  range('passwordPolicy.maxLength', policy.maxLength, policy.minLength, PASSWORD_MAX_BYTES);
  range('passwordPolicy.historyCount', policy.historyCount, 0, MAX_HISTORY_COUNT);
  range('passwordPolicy.maxAgeDays', policy.maxAgeDays, 0, MAX_PASSWORD_AGE_DAYS);
  range('lockout.maxPasswordFailures', lockout.maxPasswordFailures, 0, MAX_FAILURES);
  range('lockout.maxFactorFailures', lockout.maxFactorFailures, 0, MAX_FAILURES);
  // 0: a locked user stays locked until an administrator unlocks it (docs/operations.md, "Settings").
  range('lockout.lockSeconds', lockout.lockSeconds, 0, MAX_LOCK_SECONDS);
}

/** An application's own lifetimes: each within 60 s to 90 days and at most the instance's. */
export function checkAppLifetimes(lifetimes: AppLifetimes, instance: TokenLifetimes): void {
  for (const field of TOKEN_FIELDS) {
    const value = lifetimes[field];
    if (value === undefined) continue;
    range(`tokens.${field}`, value, MIN_TOKEN_SECONDS, MAX_TOKEN_SECONDS);
    if (value > instance[field]) throw DomainError.invalidField(`tokens.${field}`, `tokens.${field} must be at most the instance's ${instance[field]} seconds`);
  }
}

function checkLifetimes(prefix: string, lifetimes: TokenLifetimes): void {
  for (const field of TOKEN_FIELDS) range(`${prefix}.${field}`, lifetimes[field], MIN_TOKEN_SECONDS, MAX_TOKEN_SECONDS);
}

function range(field: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw DomainError.invalidField(field, min === max ? `${field} must be ${min}` : `${field} must be an integer from ${min} to ${max}`);
}
