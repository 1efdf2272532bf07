import { isEmail } from 'class-validator';
import { validatePasswordHash } from '../../common/crypto/password-hashes/password-hashes.js';
import { tooLong } from '../../common/text/column-bounds.js';
import { normalizePhone } from '../../users/phone.js';
import { LANGUAGE_TAG } from '../../users/rules/language-tag.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';
import { userNameProblem } from '../../users/rules/user-name.js';
import type { Failure, PlannedUser, Unmapped } from '../migration-plan.js';
import { passwordHashOf, totpSecretOf } from './keycloak-credentials.js';
import type { KcUser } from './keycloak-document.js';

/** Read and mapped elsewhere (groups and roles by keycloak-groups.ts), or Keycloak's bookkeeping that means nothing here. */
const HANDLED = new Set([
  'id',
  'username',
  'enabled',
  'createdTimestamp',
  'firstName',
  'lastName',
  'email',
  'emailVerified',
  'attributes',
  'credentials',
  'requiredActions',
  'realmRoles',
  'clientRoles',
  'groups',
  'totp',
  'disableableCredentialTypes',
  'notBefore',
  'self',
  'origin',
  'access',
]);

/** Keycloak's required actions (their provider ids) that owe the user a second factor here. */
const OWED_FACTOR = new Set(['CONFIGURE_TOTP', 'webauthn-register']);
const REQUIRED_ACTION_REASONS: Record<string, string> = {
  UPDATE_PROFILE: 'no owed profile update here',
  VERIFY_PROFILE: 'no owed profile update here',
  update_user_locale: 'the language is chosen on the login page',
  TERMS_AND_CONDITIONS: 'no terms-and-conditions step here',
  'webauthn-register-passwordless': 'passkeys for signing in without a password are offered by the login policy (docs/passwordless.md)',
  CONFIGURE_RECOVERY_AUTHN_CODES: 'recovery codes are made when the first second factor is enrolled',
  delete_account: 'an account is deleted by an administrator here',
};

export interface MappedUser {
  user?: PlannedUser;
  failure?: Failure;
  unmapped: Unmapped[];
}

/**
 * One Keycloak user (`UserRepresentation`) as a Portcullis user (docs/migrating.md, "Keycloak"): id, names, address,
 * `enabled` as its state, `locale` and `phoneNumber` attributes, its password hash and TOTP secret, and the required
 * actions that have a counterpart. What does not carry over is listed by path; a value is never copied into the list.
 */
export function mapUser(user: KcUser, index: number): MappedUser {
  const path = `users[${index}]`;
  const unmapped: Unmapped[] = [];
  const fail = (message: string): MappedUser => ({ failure: { kind: 'user', sourceId: user.id, message }, unmapped });
  const nameProblem = userNameProblem(user.username);
  if (nameProblem) return fail(`username ${nameProblem}`);
  if (user.email !== undefined && (!isEmail(user.email) || tooLong(user.email, STRING_BOUNDS.email))) return fail('email is not an e-mail address');
  for (const [field, bound] of [
    ['firstName', STRING_BOUNDS.givenName],
    ['lastName', STRING_BOUNDS.familyName],
  ] as const) {
    if (tooLong(user[field] ?? '', bound)) return fail(`${field} is longer than ${bound} characters`);
  }

  let preferredLanguage: string | null = null;
  let phone: string | null = null;
  for (const [name, values] of Object.entries(user.attributes ?? {})) {
    const value = values[0];
    if (name === 'locale' && value !== undefined && LANGUAGE_TAG.test(value)) preferredLanguage = value;
    else if (name === 'phoneNumber' && value !== undefined) {
      try {
        phone = normalizePhone(value);
      } catch {
        unmapped.push({ path: `${path}.attributes.phoneNumber`, reason: 'not a phone number' });
      }
    } else unmapped.push({ path: `${path}.attributes.${name}`, reason: 'a user attribute without a counterpart here' });
  }

  let passwordHash: string | null = null;
  let totpSecret: string | null = null;
  for (const [i, credential] of (user.credentials ?? []).entries()) {
    const at = `${path}.credentials[${i}]`;
    if (credential.type === 'password' && passwordHash === null) {
      const converted = passwordHashOf(credential.secretData, credential.credentialData);
      if (!converted.ok) return fail(`credentials[${i}] (password): ${converted.reason}`);
      const valid = validatePasswordHash(converted.value);
      if (!valid.valid) return fail(`credentials[${i}] (password): ${valid.error.message}`);
      passwordHash = converted.value;
    } else if (credential.type === 'otp' && totpSecret === null) {
      const converted = totpSecretOf(credential.secretData, credential.credentialData);
      if (converted.ok) totpSecret = converted.value;
      else unmapped.push({ path: at, reason: `one-time password: ${converted.reason}` });
    } else if (credential.type === 'webauthn' || credential.type === 'webauthn-passwordless') {
      unmapped.push({ path: at, reason: "a passkey is bound to Keycloak's relying party id and cannot move: the user enrols a new one" });
    } else {
      unmapped.push({
        path: at,
        reason: `a ${credential.type ?? 'untyped'} credential without a counterpart here (only one password and one authenticator carry over)`,
      });
    }
  }

  const actions = user.requiredActions ?? [];
  for (const [i, action] of actions.entries()) {
    if (action === 'UPDATE_PASSWORD' || action === 'VERIFY_EMAIL' || OWED_FACTOR.has(action)) continue;
    unmapped.push({ path: `${path}.requiredActions[${i}]`, reason: REQUIRED_ACTION_REASONS[action] ?? 'a required action without a counterpart here' });
  }
  // Federated identities become links to the IdPs that came in (keycloak-idps.ts).
  for (const key of Object.keys(user)) {
    if (!HANDLED.has(key) && key !== 'federatedIdentities') unmapped.push({ path: `${path}.${key}`, reason: 'a user field without a counterpart here' });
  }

  const email = user.email ?? null;
  return {
    user: {
      sourceId: user.id,
      userName: user.username,
      firstName: user.firstName ?? '',
      lastName: user.lastName ?? '',
      email,
      // Keycloak's VERIFY_EMAIL means the address is not proven yet: it arrives unverified (docs/migrating.md).
      emailVerified: email !== null && user.emailVerified === true && !actions.includes('VERIFY_EMAIL'),
      phone,
      preferredLanguage,
      enabled: user.enabled !== false,
      createdAt: user.createdTimestamp ?? null,
      passwordHash,
      totpSecret,
      passwordChangeRequired: actions.includes('UPDATE_PASSWORD'),
      // An authenticator that came in already pays it, as it would in Keycloak once configured.
      ...(actions.some((a) => OWED_FACTOR.has(a)) && totpSecret === null ? { mfaEnrolmentRequired: true } : {}),
    },
    unmapped,
  };
}
