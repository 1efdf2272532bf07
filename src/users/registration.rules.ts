import { isEmail } from 'class-validator';
import type { ErrorDetail } from '../common/errors/domain-error.js';
import { tooLong } from '../common/text/column-bounds.js';
import { PASSWORD_MAX_BYTES } from '../common/crypto/password-hasher.js';
import { passwordTooLong } from './rules/password-policy.js';
import { STRING_BOUNDS } from './rules/string-bounds.js';
import { userNameProblem } from './rules/user-name.js';

interface Registration {
  userName: string;
  firstName: string;
  lastName: string;
  email: string;
  password: string;
}

/** Control characters (CR/LF included), and the characters that make markup. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MARKUP = /[<>]/;

/**
 * What self-registration accepts: the management API's rules for a new person (the user name rule of every
 * surface, names of 1–200 characters, an e-mail address, a password within bcrypt's 72 bytes; its minimum length
 * is the policy UsersService.createHuman enforces), and, since anyone may register, names and a user name without
 * markup, and names without control characters that are already in Unicode NFKC form (no full-width look-alikes).
 */
export function registrationProblems(input: Registration): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const text = (field: keyof Registration, value: string, max: number) => {
    if (!/\S/.test(value)) problems.push({ field, message: `${field} must not be empty` });
    else if (tooLong(value, max)) problems.push({ field, message: `${field} must be at most ${max} characters` });
    else if (CONTROL.test(value) || MARKUP.test(value)) problems.push({ field, message: `${field} must not contain control characters, < or >` });
    else if (value.normalize('NFKC') !== value) problems.push({ field, message: `${field} must be written without full-width or compatibility characters` });
  };
  // The rule of every surface (users/rules/user-name.ts); markup beside it, since anyone may register.
  const nameProblem = userNameProblem(input.userName) ?? (MARKUP.test(input.userName) ? 'must not contain < or >' : undefined);
  if (nameProblem !== undefined) problems.push({ field: 'userName', message: `userName ${nameProblem}` });
  text('firstName', input.firstName, STRING_BOUNDS.givenName);
  text('lastName', input.lastName, STRING_BOUNDS.familyName);
  if (tooLong(input.email, STRING_BOUNDS.email) || !isEmail(input.email)) problems.push({ field: 'email', message: 'email must be an e-mail address' });
  if (passwordTooLong(input.password)) problems.push({ field: 'password', message: `password must be at most ${PASSWORD_MAX_BYTES} bytes` });
  return problems;
}
