import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';
import type { StringBound } from '../../users/rules/string-bounds.js';
import { ENTERPRISE_SCHEMA } from '../scim.constants.js';
import { GROUP_ATTRIBUTES } from './group.schema.js';
import type { ScimAttribute } from './scim-attribute.js';
import { ENTERPRISE_ATTRIBUTES, USER_ATTRIBUTES } from './user.schema.js';

/**
 * The bound of every writable string of the SCIM schemas, by path (`name.givenName`, `emails.value`,
 * `urn:…:enterprise:2.0:User:manager.value`). RFC 7643 §7 has no member for a length, so /Schemas does not
 * show them (docs/product-rules.md, "SCIM" lists them). Attributes stored in a column take its length; the
 * rest live in the user's JSON document and take DOCUMENT_TEXT (certificates: CERTIFICATE). A new attribute
 * of the schema is bounded, and tested (test/scim/scim-string-bounds.test.ts), without an entry here.
 */
const STORED_IN: Record<string, StringBound> = {
  userName: 'userName',
  externalId: 'userExternalId',
  'name.givenName': 'givenName',
  'name.familyName': 'familyName',
  displayName: 'userDisplayName',
  nickName: 'nickName',
  profileUrl: 'profileUrl',
  title: 'title',
  userType: 'userType',
  preferredLanguage: 'preferredLanguage',
  locale: 'locale',
  timezone: 'timezone',
  'emails.value': 'email',
  'emails.type': 'contactType',
  'phoneNumbers.value': 'phone',
  'phoneNumbers.type': 'contactType',
  [`${ENTERPRISE_SCHEMA}:manager.value`]: 'userId',
};

const GROUP_STORED_IN: Record<string, StringBound> = { displayName: 'groupDisplayName', externalId: 'groupExternalId' };

/**
 * Writable, but not stored as text: the password's bound is bcrypt's 72 bytes (users/rules/password-policy.ts);
 * a Group's `members` name existing users by id, matched exactly, their `display` and `$ref` are dropped and
 * `type` must be "User" (groups/scim-group.members.ts).
 */
const NOT_STORED_TEXT = new Set(['password', 'members']);
const TEXT_TYPES = new Set<ScimAttribute['type']>(['string', 'reference', 'binary']);

function boundsOf(
  attributes: readonly ScimAttribute[],
  storedIn: Record<string, StringBound>,
  prefix = '',
  out = new Map<string, number>(),
): Map<string, number> {
  for (const attribute of attributes) {
    const path = `${prefix}${attribute.name}`;
    if (attribute.mutability === 'readOnly' || NOT_STORED_TEXT.has(path)) continue;
    if (attribute.type === 'complex') boundsOf(attribute.subAttributes ?? [], storedIn, `${path}.`, out);
    else if (TEXT_TYPES.has(attribute.type)) {
      const bound = storedIn[path] ?? (attribute.type === 'binary' ? 'certificate' : 'documentText');
      out.set(path, STRING_BOUNDS[bound]);
    }
  }
  return out;
}

/** `externalId` is a common attribute (RFC 7643 §3.1), not in the User or Group schema. */
export const USER_STRING_BOUNDS: ReadonlyMap<string, number> = new Map([
  ['externalId', STRING_BOUNDS.userExternalId],
  ...boundsOf(USER_ATTRIBUTES, STORED_IN),
  ...boundsOf(ENTERPRISE_ATTRIBUTES, STORED_IN, `${ENTERPRISE_SCHEMA}:`),
]);

export const GROUP_STRING_BOUNDS: ReadonlyMap<string, number> = new Map([
  ['externalId', STRING_BOUNDS.groupExternalId],
  ...boundsOf(GROUP_ATTRIBUTES, GROUP_STORED_IN),
]);

// A column entry whose attribute left the schema (or was misspelt) would bound nothing: refuse to load.
for (const [table, bounds] of [
  [STORED_IN, USER_STRING_BOUNDS],
  [GROUP_STORED_IN, GROUP_STRING_BOUNDS],
] as const) {
  for (const path of Object.keys(table)) if (!bounds.has(path)) throw new Error(`scim-bounds: ${path} is no writable string of the schema`);
}
