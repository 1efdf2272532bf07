import { isEmail } from 'class-validator';
import { validatePasswordHash } from '../../common/crypto/password-hashes/password-hashes.js';
import { normalizePhone } from '../../users/phone.js';
import { PASSWORD_MAX_BYTES } from '../../common/crypto/password-hasher.js';
import { passwordTooLong, passwordTooShort } from '../../users/rules/password-policy.js';
import { tooLong } from '../../common/text/column-bounds.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';
import type { StringBound } from '../../users/rules/string-bounds.js';
import { userNameProblem } from '../../users/rules/user-name.js';
import { LANGUAGE_TAG } from '../../users/rules/language-tag.js';

/** One user of the import after its checks: everything but the plain password is ready to store. */
export interface ImportCandidate {
  userId: string;
  userName: string;
  firstName: string;
  lastName: string;
  displayName: string;
  nickName: string | null;
  preferredLanguage: string | null;
  gender: string | null;
  email: string;
  emailVerified: boolean;
  phone: string | null;
  phoneVerified: boolean;
  password: { hash: string } | { plain: string };
  passwordChangeRequired: boolean;
}

type CheckedUser = { ok: true; user: ImportCandidate } | { ok: false; userId: string; message: string };

/** Ids become path segments of the management API and SCIM; the users column holds 64 characters. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,63}$/;
/** The users.password_hash column; every supported format is far shorter in practice. */
const MAX_STORED_HASH = STRING_BOUNDS.passwordHash;

/** Every text field of a `humanUsers[]` item and its bound (users/rules/string-bounds.ts). */
export const IMPORT_STRING_FIELDS = {
  'user.userName': 'userName',
  'user.profile.firstName': 'givenName',
  'user.profile.lastName': 'familyName',
  'user.profile.displayName': 'userDisplayName',
  'user.profile.nickName': 'nickName',
  'user.profile.preferredLanguage': 'preferredLanguage',
  'user.profile.gender': 'gender',
  'user.email.email': 'email',
  'user.phone.phone': 'phone',
} as const satisfies Record<string, StringBound>;

const KNOWN: Record<string, readonly string[]> = {
  '': ['userId', 'user'],
  user: ['userName', 'profile', 'email', 'phone', 'hashedPassword', 'password', 'passwordChangeRequired'],
  'user.profile': ['firstName', 'lastName', 'nickName', 'displayName', 'preferredLanguage', 'gender'],
  'user.email': ['email', 'isEmailVerified'],
  'user.phone': ['phone', 'isPhoneVerified'],
  'user.hashedPassword': ['value'],
};

/** OIDC Core §5.1 names `female` and `male`; ZITADEL exports write `GENDER_FEMALE` and so on. */
const GENDERS: Record<string, string | null> = { female: 'female', male: 'male', diverse: 'diverse', unspecified: null };

/**
 * Checks one `humanUsers[]` item (docs/product-rules.md, "Import and event search"). Collects every problem
 * of the user into one message; messages name fields, never a password or a hash.
 */
export function checkImportUser(item: unknown, passwordMinLength: number): CheckedUser {
  const problems: string[] = [];
  const root = asObject(item, '', problems);
  const userId = typeof root?.userId === 'string' ? root.userId : '';
  if (!root) return { ok: false, userId, message: problems.join('; ') };
  if (root.userId === undefined || root.userId === '') problems.push('userId is required');
  else if (typeof root.userId !== 'string' || !ID_PATTERN.test(root.userId)) problems.push('userId must be 1 to 64 letters, digits or ._@:- characters');

  const user = asObject(root.user, 'user', problems, true);
  const profile = user ? asObject(user.profile, 'user.profile', problems, true) : undefined;
  const email = user ? asObject(user.email, 'user.email', problems, true) : undefined;
  const phone = user ? asObject(user.phone, 'user.phone', problems) : undefined;
  const hashed = user ? asObject(user.hashedPassword, 'user.hashedPassword', problems) : undefined;
  for (const [path, obj] of [
    ['', root],
    ['user', user],
    ['user.profile', profile],
    ['user.email', email],
    ['user.phone', phone],
    ['user.hashedPassword', hashed],
  ] as const) {
    if (obj) for (const key of Object.keys(obj)) if (!KNOWN[path].includes(key)) problems.push(`${path ? `${path}.` : ''}${key} is not a known field`);
  }

  const read = new FieldReader(problems);
  const userName = read.string(user?.userName, 'user.userName', true);
  const nameProblem = userName === undefined ? undefined : userNameProblem(userName);
  if (nameProblem) problems.push(`user.userName ${nameProblem}`);
  const firstName = read.string(profile?.firstName, 'user.profile.firstName', true);
  const lastName = read.string(profile?.lastName, 'user.profile.lastName', true);
  const displayName = read.string(profile?.displayName, 'user.profile.displayName');
  const nickName = read.string(profile?.nickName, 'user.profile.nickName');
  const preferredLanguage = read.string(profile?.preferredLanguage, 'user.profile.preferredLanguage');
  if (preferredLanguage && !LANGUAGE_TAG.test(preferredLanguage)) problems.push('user.profile.preferredLanguage must be a language tag such as en or de-CH');
  const gender = readGender(read.string(profile?.gender, 'user.profile.gender'), problems);
  const address = read.string(email?.email, 'user.email.email', true);
  if (address && !isEmail(address)) problems.push('user.email.email must be an e-mail address');
  const emailVerified = read.boolean(email?.isEmailVerified, 'user.email.isEmailVerified');
  const phoneNumber = readPhone(read.string(phone?.phone, 'user.phone.phone', phone !== undefined), problems);
  const phoneVerified = read.boolean(phone?.isPhoneVerified, 'user.phone.isPhoneVerified');
  const passwordChangeRequired = read.boolean(user?.passwordChangeRequired, 'user.passwordChangeRequired');
  const password = user ? readPassword(user, hashed, passwordMinLength, problems) : undefined;

  if (problems.length > 0 || !password) return { ok: false, userId, message: problems.join('; ') };
  return {
    ok: true,
    user: {
      userId,
      userName: userName!,
      firstName: firstName!,
      lastName: lastName!,
      displayName: displayName || `${firstName} ${lastName}`,
      nickName: nickName ?? null,
      preferredLanguage: preferredLanguage ?? null,
      gender,
      email: address!,
      emailVerified,
      phone: phoneNumber,
      phoneVerified: phoneNumber !== null && phoneVerified,
      password,
      passwordChangeRequired,
    },
  };
}

function readPassword(
  user: Record<string, unknown>,
  hashed: Record<string, unknown> | undefined,
  passwordMinLength: number,
  problems: string[],
): ImportCandidate['password'] | undefined {
  const plain = user.password;
  if (hashed !== undefined && plain !== undefined) {
    problems.push('give either user.hashedPassword or user.password, not both');
    return undefined;
  }
  if (hashed !== undefined) {
    const value = hashed.value;
    if (typeof value !== 'string' || value === '') {
      problems.push('user.hashedPassword.value must be a non-empty string');
      return undefined;
    }
    const validation = validatePasswordHash(value);
    // The validator's messages name the format and the defect, never the salt or checksum.
    if (!validation.valid) {
      problems.push(`user.hashedPassword.value: ${validation.error.message}`);
      return undefined;
    }
    if (value.length > MAX_STORED_HASH) {
      problems.push(`user.hashedPassword.value: ${validation.format} hash is longer than the ${MAX_STORED_HASH} characters stored`);
      return undefined;
    }
    return { hash: value };
  }
  if (plain !== undefined) {
    if (typeof plain !== 'string') problems.push('user.password must be a string');
    else if (passwordTooShort(plain, passwordMinLength)) problems.push(`user.password must be at least ${passwordMinLength} characters (password policy)`);
    else if (passwordTooLong(plain)) problems.push(`user.password must be at most ${PASSWORD_MAX_BYTES} bytes (bcrypt)`);
    else return { plain };
    return undefined;
  }
  // Imported users carry a password hash, so that they can sign in.
  problems.push('a password is required: user.hashedPassword.value (a password hash) or user.password');
  return undefined;
}

function readGender(value: string | undefined, problems: string[]): string | null {
  if (value === undefined) return null;
  const key = value.toLowerCase().replace(/^gender_/, '');
  if (!(key in GENDERS)) {
    problems.push('user.profile.gender must be one of female, male, diverse, unspecified');
    return null;
  }
  return GENDERS[key];
}

function readPhone(value: string | undefined, problems: string[]): string | null {
  if (value === undefined) return null;
  try {
    return normalizePhone(value, 'user.phone.phone');
  } catch {
    problems.push('user.phone.phone must be a phone number such as +41 79 123 45 67');
    return null;
  }
}

function asObject(value: unknown, path: string, problems: string[], required = false): Record<string, unknown> | undefined {
  if (value === undefined || value === null) {
    if (required) problems.push(`${path || 'the user'} is required`);
    return undefined;
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`${path || 'each humanUsers item'} must be an object`);
    return undefined;
  }
  return value as Record<string, unknown>;
}

class FieldReader {
  constructor(private readonly problems: string[]) {}

  string(value: unknown, path: keyof typeof IMPORT_STRING_FIELDS, required = false): string | undefined {
    const bound = STRING_BOUNDS[IMPORT_STRING_FIELDS[path]];
    if (value === undefined || value === null || value === '') {
      if (required) this.problems.push(`${path} is required`);
      return undefined;
    }
    if (typeof value !== 'string') this.problems.push(`${path} must be a string`);
    else if (tooLong(value, bound)) this.problems.push(`${path} must be at most ${bound} characters`);
    else return value;
    return undefined;
  }

  boolean(value: unknown, path: string): boolean {
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') this.problems.push(`${path} must be true or false`);
    return value === true;
  }
}
