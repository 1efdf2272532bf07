import { PASSWORD_MAX_BYTES } from '../../common/crypto/password-hasher.js';
import { DomainError } from '../../common/errors/domain-error.js';

/**
 * The password policy: the instance's settings (docs/operations.md, "Settings", read through src/settings), and
 * at most PASSWORD_MAX_BYTES, what bcrypt reads. Every surface that accepts a plain password asks here; each words
 * the answer its own way.
 */
export function passwordTooShort(password: string, minLength: number): boolean {
  return password.length < minLength;
}

export function passwordTooLong(password: string): boolean {
  return Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES;
}

/** The rules of the instance's password policy a new password must meet (docs/operations.md, "Settings"). */
export interface PasswordRules {
  minLength: number;
  maxLength: number;
  requireLower: boolean;
  requireUpper: boolean;
  requireDigit: boolean;
  requireSymbol: boolean;
}

/** What the password lacks, worded for the person choosing it; undefined when it meets every rule. */
export function passwordProblem(password: string, rules: PasswordRules): string | undefined {
  // Lengths count characters (code points), as a person counts them.
  const length = [...password].length;
  if (length < rules.minLength) return `password must be at least ${rules.minLength} characters`;
  if (length > rules.maxLength) return `password must be at most ${rules.maxLength} characters`;
  if (rules.requireLower && !/\p{Ll}/u.test(password)) return 'password must contain a lowercase letter';
  if (rules.requireUpper && !/\p{Lu}/u.test(password)) return 'password must contain an uppercase letter';
  if (rules.requireDigit && !/\p{Nd}/u.test(password)) return 'password must contain a digit';
  if (rules.requireSymbol && !/[^\p{L}\p{Nd}]/u.test(password)) return 'password must contain a character other than a letter or digit';
  return undefined;
}

/** The domain's answer to a password the policy refuses (the management API and login UI show it). */
export function assertPasswordPolicy(password: string, rules: PasswordRules): void {
  const problem = passwordProblem(password, rules);
  if (problem) throw DomainError.invalid('the password does not meet the password policy', [{ field: 'password', message: problem }]);
}

/** The domain's answer to a password below the minimum length (the management API and login UI show it). */
export function assertPasswordMinLength(password: string, minLength: number): void {
  if (passwordTooShort(password, minLength)) {
    throw DomainError.invalid('the password does not meet the password policy', [
      { field: 'password', message: `password must be at least ${minLength} characters` },
    ]);
  }
}
