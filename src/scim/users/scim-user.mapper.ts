import type { JsonObject, JsonValue } from '../../common/database/columns.js';
import { DomainError } from '../../common/errors/domain-error.js';
import type { UserEntity } from '../../users/entities/user.entity.js';
import type { UserGroup } from '../../users/groups/group.queries.js';
import { normalizePhone } from '../../users/phone.js';
import { contactsOf } from '../../users/user-profile.service.js';
import type { Contact, HumanProfile } from '../../users/user-profile.service.js';
import { ScimError } from '../errors/scim-error.js';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from '../scim.constants.js';
import { isActive } from '../../users/rules/user-state.js';
import { SINGULAR_USER_ATTRIBUTES } from './scim-user.attributes.js';

/** Multi-valued and complex attributes kept whole in the user's SCIM document. */
const DOCUMENT_ATTRIBUTES = ['addresses', 'ims', 'photos', 'roles', 'entitlements', 'x509Certificates', ENTERPRISE_SCHEMA] as const;
const NAME_EXTRAS = ['formatted', 'middleName', 'honorificPrefix', 'honorificSuffix'] as const;

/**
 * A validated SCIM User document → the domain's profile. Phone numbers are compacted here (docs/product-rules.md,
 * "SCIM"). `defaultLanguage` fills an absent `preferredLanguage` at creation only: a replacement (PUT, or PATCH's
 * result) without it leaves it unassigned, as a PATCH `remove` asks.
 */
export function toProfile(doc: JsonObject, defaultLanguage: string | null): HumanProfile {
  const name = (doc.name ?? {}) as JsonObject;
  const attributes: JsonObject = {};
  const nameExtras = Object.fromEntries(NAME_EXTRAS.filter((k) => name[k] !== undefined).map((k) => [k, name[k]]));
  if (Object.keys(nameExtras).length > 0) attributes.name = nameExtras as JsonObject;
  for (const key of DOCUMENT_ATTRIBUTES) if (doc[key] !== undefined) attributes[key] = doc[key];
  return {
    userName: doc.userName as string,
    externalId: text(doc.externalId),
    givenName: text(name.givenName),
    familyName: text(name.familyName),
    displayName: text(doc.displayName),
    nickName: text(doc.nickName),
    preferredLanguage: text(doc.preferredLanguage) ?? defaultLanguage,
    locale: text(doc.locale),
    timezone: text(doc.timezone),
    title: text(doc.title),
    userType: text(doc.userType),
    profileUrl: text(doc.profileUrl),
    emails: contacts(doc.emails, 'emails', (v) => v),
    phones: contacts(doc.phoneNumbers, 'phoneNumbers', compactPhone),
    attributes: Object.keys(attributes).length > 0 ? attributes : null,
  };
}

function text(value: JsonValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

function contacts(value: JsonValue | undefined, attribute: string, normalize: (v: string, field: string) => string): Contact[] {
  if (!Array.isArray(value)) return [];
  return value.map((entry, i) => {
    const e = entry as JsonObject;
    if (typeof e.value !== 'string' || e.value.trim() === '') {
      throw ScimError.badRequest('invalidValue', `"${attribute}[${i}].value" is required`);
    }
    const display = text(e.display);
    return {
      value: normalize(e.value.trim(), `${attribute}[${i}].value`),
      type: text(e.type),
      primary: e.primary === true,
      ...(display !== null ? { display } : {}),
    };
  });
}

function compactPhone(value: string, field: string): string {
  try {
    return normalizePhone(value, field);
  } catch (error) {
    if (error instanceof DomainError) throw ScimError.badRequest('invalidValue', `"${field}": "${value}" is not a phone number`);
    throw error;
  }
}

/**
 * The user's properties `toScimUser` reads. A list or lookup reads these columns only (scim-user.repository.ts),
 * not the whole row: a password hash, search text and flags no SCIM attribute shows would be read and
 * converted for every user returned (BENCHMARKS.md, "Performance goals, SCIM lookup against its floor").
 */
export const PRESENTED_PROPERTIES = [
  'id',
  'externalId',
  'userName',
  'givenName',
  'familyName',
  ...SINGULAR_USER_ATTRIBUTES,
  'state',
  'email',
  'phone',
  'scimAttributes',
  'version',
  'createdAt',
  'changedAt',
] as const satisfies readonly (keyof UserEntity)[];

export type PresentedUser = Pick<UserEntity, (typeof PRESENTED_PROPERTIES)[number]>;

/**
 * The SCIM representation of a user (RFC 7643 §4.1), every stored attribute included. `name.formatted`
 * is derived from the name parts when none was stored; `stored: true` leaves it out, for the base a
 * PATCH is applied to, so that a derived value never becomes a stored one (and then goes stale). `groups`
 * are the user's groups when the caller read them (the selection asks for them).
 */
export function toScimUser(user: PresentedUser, baseUrl: string, options: { stored?: boolean; groups?: readonly UserGroup[] } = {}): JsonObject {
  const stored = (user.scimAttributes ?? {}) as JsonObject;
  const name: JsonObject = { ...((stored.name as JsonObject | undefined) ?? {}) };
  if (user.givenName !== null) name.givenName = user.givenName;
  if (user.familyName !== null) name.familyName = user.familyName;
  if (!options.stored && name.formatted === undefined && (user.givenName || user.familyName)) {
    name.formatted = [user.givenName, user.familyName].filter(Boolean).join(' ');
  }
  const resource: JsonObject = { schemas: stored[ENTERPRISE_SCHEMA] ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA], id: user.id };
  const set = (key: string, value: JsonValue | null | undefined) => {
    if (value !== null && value !== undefined) resource[key] = value;
  };
  set('externalId', user.externalId);
  resource.userName = user.userName;
  if (Object.keys(name).length > 0) resource.name = name;
  set('displayName', user.displayName);
  set('nickName', user.nickName);
  set('profileUrl', user.profileUrl);
  set('title', user.title);
  set('userType', user.userType);
  set('preferredLanguage', user.preferredLanguage);
  set('locale', user.locale);
  set('timezone', user.timezone);
  resource.active = isActive(user);
  const emails = contactsOf(user, 'emails');
  if (emails.length > 0) resource.emails = emails.map(contactJson);
  const phones = contactsOf(user, 'phoneNumbers');
  if (phones.length > 0) resource.phoneNumbers = phones.map(contactJson);
  for (const key of DOCUMENT_ATTRIBUTES) set(key, stored[key]);
  // RFC 7643 §4.1.2: read-only, the groups the user is a direct member of.
  if (options.groups?.length)
    resource.groups = options.groups.map((g) => ({
      value: g.id,
      display: g.displayName,
      $ref: `${baseUrl}/Groups/${encodeURIComponent(g.id)}`,
      type: 'direct',
    }));
  const location = `${baseUrl}/Users/${user.id}`;
  resource.meta = {
    resourceType: 'User',
    created: user.createdAt.toISOString(),
    lastModified: user.changedAt.toISOString(),
    location,
    version: `W/"${user.version}"`,
  };
  return resource;
}

function contactJson(c: Contact): JsonObject {
  return { value: c.value, ...(c.type !== null ? { type: c.type } : {}), primary: c.primary, ...(c.display !== undefined ? { display: c.display } : {}) };
}
