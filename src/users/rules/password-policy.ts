import { DomainError } from '../../common/errors/domain-error.js';

/**
 * The password policy: the instance's minimum length in characters (`instance.password_min_length`), and
 * at most 72 UTF-8 bytes because bcrypt reads only the first 72 bytes of a password and would cut a longer
 * one silently. Every surface that accepts a plain password asks here; each words the answer its own way.
 */
export const PASSWORD_MAX_BYTES = 72;

export function passwordTooShort(password: string, minLength: number): boolean {
  return password.length < minLength;
}

export function passwordTooLong(password: string): boolean {
  return Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES;
}

/** The domain's answer to a password below the minimum length (the management API and login UI show it). */
export function assertPasswordMinLength(password: string, minLength: number): void {
  if (passwordTooShort(password, minLength)) {
    throw DomainError.invalid('the password does not meet the password policy', [
      { field: 'password', message: `password must be at least ${minLength} characters` },
    ]);
  }
}
