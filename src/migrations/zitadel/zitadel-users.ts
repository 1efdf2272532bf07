import { isEmail } from 'class-validator';
import { Secret } from 'otpauth';
import { validatePasswordHash } from '../../common/crypto/password-hashes/password-hashes.js';
import { tooLong } from '../../common/text/column-bounds.js';
import { normalizePhone } from '../../users/phone.js';
import { LANGUAGE_TAG } from '../../users/rules/language-tag.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';
import { userNameProblem } from '../../users/rules/user-name.js';
import type { Json } from '../document-checks.js';
import type { Failure, PlannedMachine, PlannedUser, Unmapped } from '../migration-plan.js';

/** ZITADEL's `zitadel.user.v1.Gender` names; OIDC Core §5.1 names `female` and `male`. */
const GENDERS: Record<string, string | null> = {
  GENDER_UNSPECIFIED: null,
  GENDER_FEMALE: 'female',
  GENDER_MALE: 'male',
  GENDER_DIVERSE: 'diverse',
};

export interface MappedHuman {
  user?: PlannedUser;
  failure?: Failure;
  unmapped: Unmapped[];
}

/**
 * One `humanUsers[]` item (`DataHumanUser`: `userId` and an `ImportHumanUserRequest`) as a Portcullis user. The
 * hash is ZITADEL's stored one (its passwap hashers write bcrypt, argon2i/id, scrypt, PBKDF2 in passlib's layout,
 * SHA-crypt and MD5-crypt strings), verified at first sign-in and then re-hashed; another format is one listed
 * failure. `otpCode` is the TOTP secret in base32 (RFC 6238, SHA-1, 6 digits, 30 s, as ZITADEL enrols it).
 * Messages name fields, never a value of a secret.
 */
export function mapHuman(item: Json, path: string): MappedHuman {
  const userId = item.userId as string;
  const user = item.user as Json;
  const profile = (user.profile ?? {}) as Json;
  const email = (user.email ?? {}) as Json;
  const phone = (user.phone ?? {}) as Json;
  const unmapped: Unmapped[] = [];
  const fail = (message: string): MappedHuman => ({ failure: { kind: 'user', sourceId: userId, message }, unmapped });

  const userName = user.userName as string;
  const nameProblem = userNameProblem(userName);
  if (nameProblem) return fail(`userName ${nameProblem}`);
  const address = (email.email as string | undefined) || null;
  if (address !== null && (!isEmail(address) || tooLong(address, STRING_BOUNDS.email))) return fail('email.email is not an e-mail address');
  for (const [field, bound] of [
    ['firstName', STRING_BOUNDS.givenName],
    ['lastName', STRING_BOUNDS.familyName],
    ['displayName', STRING_BOUNDS.userDisplayName],
    ['nickName', STRING_BOUNDS.nickName],
  ] as const) {
    if (tooLong((profile[field] as string | undefined) ?? '', bound)) return fail(`profile.${field} is longer than ${bound} characters`);
  }
  const language = (profile.preferredLanguage as string | undefined) || null;
  const preferredLanguage = language !== null && LANGUAGE_TAG.test(language) && language !== 'und' ? language : null;
  let phoneNumber: string | null = null;
  if (typeof phone.phone === 'string' && phone.phone !== '') {
    try {
      phoneNumber = normalizePhone(phone.phone);
    } catch {
      unmapped.push({ path: `${path}.user.phone.phone`, reason: 'not a phone number' });
    }
  }
  const gender = typeof profile.gender === 'string' ? GENDERS[profile.gender] : null;
  if (gender === undefined) unmapped.push({ path: `${path}.user.profile.gender`, reason: 'a gender without a counterpart here' });

  let passwordHash: string | null = null;
  const hashed = user.hashedPassword as Json | undefined;
  if (typeof hashed?.value === 'string' && hashed.value !== '') {
    const valid = validatePasswordHash(hashed.value);
    if (!valid.valid) return fail(`hashedPassword: ${valid.error.message}`);
    passwordHash = hashed.value;
  }
  if (typeof user.password === 'string' && user.password !== '')
    unmapped.push({ path: `${path}.user.password`, reason: 'a password in clear is not taken from an export: export with withPasswords for the hashes' });

  let totpSecret: string | null = null;
  if (typeof user.otpCode === 'string' && user.otpCode !== '') {
    try {
      totpSecret = Secret.fromBase32(user.otpCode).base32;
    } catch {
      unmapped.push({ path: `${path}.user.otpCode`, reason: 'the one-time password secret is not base32: the user enrols an authenticator again' });
    }
  }
  if (user.requestPasswordlessRegistration === true)
    unmapped.push({ path: `${path}.user.requestPasswordlessRegistration`, reason: 'passkeys are enrolled in the login UI when the login policy offers them' });
  for (const [i] of ((user.idps as unknown[] | undefined) ?? []).entries())
    unmapped.push({ path: `${path}.user.idps[${i}]`, reason: 'links to identity providers are not migrated yet: the user links again at first sign-in' });

  const firstName = (profile.firstName as string | undefined) ?? '';
  const lastName = (profile.lastName as string | undefined) ?? '';
  return {
    user: {
      sourceId: userId,
      userName,
      firstName,
      lastName,
      displayName: (profile.displayName as string | undefined) || `${firstName} ${lastName}`.trim() || userName,
      nickName: (profile.nickName as string | undefined) || null,
      gender: gender ?? null,
      email: address,
      emailVerified: address !== null && email.isEmailVerified === true,
      phone: phoneNumber,
      phoneVerified: phoneNumber !== null && phone.isPhoneVerified === true,
      preferredLanguage,
      // The export holds no state: a locked or deactivated user arrives active (docs/migrating.md, "ZITADEL").
      enabled: true,
      createdAt: null,
      passwordHash,
      totpSecret,
      passwordChangeRequired: user.passwordChangeRequired === true,
    },
    unmapped,
  };
}

/** One `machineUsers[]` item (`DataMachineUser`: `userId` and an `AddMachineUserRequest`). */
export function mapMachine(item: Json): PlannedMachine {
  const user = item.user as Json;
  return {
    sourceId: item.userId as string,
    userName: user.userName as string,
    name: (user.name as string | undefined) || (user.userName as string),
    description: (user.description as string | undefined) || null,
    // ACCESS_TOKEN_TYPE_BEARER is the default, and left out of the JSON.
    accessTokenType: user.accessTokenType === 'ACCESS_TOKEN_TYPE_JWT' ? 'jwt' : 'opaque',
  };
}
