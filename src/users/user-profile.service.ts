import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { JsonObject, JsonValue } from '../common/database/columns.js';
import { SYNCED_FIELDS, SyncedFields } from './synced-fields.js';
import type { SyncedWriter } from './synced-fields.js';
import { EventStore } from '../common/events/event-store.js';
import { UserContactEntity } from './entities/user-contact.entity.js';
import type { ContactKind } from './entities/user-contact.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { insertRows, updateRows } from './entity-rows.js';
import { orderChanged } from './org-user-counts.js';
import { searchText } from './rules/user-search.js';
import { bump } from './user-lifecycle.service.js';
import { UserCodes } from './codes/user-codes.js';
import { verifiedByAnother, verifiedElsewhereError } from './queries/verified-emails.js';

/** One e-mail address or phone number with its type; phone values already normalised. */
export interface Contact {
  value: string;
  type: string | null;
  primary: boolean;
  /** RFC 7643 §4.1.2's `display`, kept only when sent (so contacts stored before it compare unchanged). */
  display?: string;
}

/**
 * Everything of a human user's profile that a provisioning client owns, as whole values (a replace,
 * not a merge). `attributes` holds what the core columns lack (name parts, addresses, roles, the
 * enterprise extension …) as one JSON document; the domain does not interpret it.
 */
export interface HumanProfile {
  userName: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  nickName: string | null;
  preferredLanguage: string | null;
  locale: string | null;
  timezone: string | null;
  title: string | null;
  userType: string | null;
  profileUrl: string | null;
  emails: Contact[];
  phones: Contact[];
  attributes: JsonObject | null;
}

/**
 * Verification flags set together with the contacts (the management API's `isEmailVerified`,
 * `isPhoneVerified`). Absent, a changed address becomes unverified and an unchanged one keeps its flag.
 */
export interface ContactVerification {
  emailVerified?: boolean;
  phoneVerified?: boolean;
}

const PROFILE_COLUMNS = [
  'userName',
  'externalId',
  'givenName',
  'familyName',
  'displayName',
  'nickName',
  'preferredLanguage',
  'locale',
  'timezone',
  'title',
  'userType',
  'profileUrl',
] as const;

/**
 * Replaces a human user's profile, e-mails and phone numbers inside the caller's transaction, with
 * `user.human.profile.changed` / `.email.changed` / `.phone.changed` events for what actually changed.
 * Nothing changed: no write, no event, no version bump (clients repeat themselves).
 */
@Injectable()
export class UserProfileService {
  constructor(
    private readonly events: EventStore,
    private readonly codes: UserCodes,
    private readonly synced: SyncedFields,
  ) {}

  /** Whether replacing the user's profile with this one would change anything (a read-only check). */
  differs(user: UserEntity, profile: HumanProfile, verification: ContactVerification = {}): boolean {
    const { profileChanged, emailChanged, phoneChanged } = diff(user, profile, verification);
    return profileChanged || emailChanged || phoneChanged;
  }

  async replaceIn(
    manager: EntityManager,
    editorUserId: string | null,
    user: UserEntity,
    profile: HumanProfile,
    verification: ContactVerification = {},
    writer?: SyncedWriter,
  ): Promise<{ user: UserEntity; changed: boolean }> {
    const { next, profileChanges, attributesChanged, profileChanged, emailChanged, phoneChanged, emailVerified, phoneVerified } = diff(
      user,
      profile,
      verification,
    );
    if (!profileChanged && !emailChanged && !phoneChanged) return { user, changed: false };
    // Nobody but the directory's own sync (its writer) changes what a directory keeps: no editor is no exception.
    await this.synced.assertMayChange(
      manager,
      user.id,
      SYNCED_FIELDS.filter((field) => (field in profileChanges ? true : field === 'email' && (user.email ?? null) !== (next.email ?? null))),
      writer,
    );
    // Only a caller's explicit flag verifies an address the user did not hold verified already.
    const newlyVerified = emailVerified && (!user.emailVerified || next.emailLower !== user.emailLower);
    if (newlyVerified && (await verifiedByAnother(manager, user.orgId, next.email!, user.id))) throw verifiedElsewhereError();

    const changes = { ...next, emailVerified, phoneVerified, ...bump(user) };
    await updateRows(manager, UserEntity, { id: user.id }, changes);
    if (next.userNameLower !== user.userNameLower) await orderChanged(manager, user.orgId);
    await this.replaceContacts(manager, user, profile);
    const base = { aggregateType: 'user', aggregateId: user.id, resourceOwner: user.orgId, editorUserId } as const;
    if (profileChanged) {
      const payload: JsonObject = { ...profileChanges };
      if (attributesChanged) payload.attributes = Object.keys(next.scimAttributes ?? {});
      await this.events.push(manager, { ...base, type: 'user.human.profile.changed', payload });
    }
    // The flag is reported only where the caller set it, so SCIM's events read as before.
    const flag = (key: 'isEmailVerified' | 'isPhoneVerified', given: boolean | undefined, value: boolean) => (given === undefined ? {} : { [key]: value });
    if (emailChanged) {
      // Every link mailed to the old address ends: none may verify the new one (docs/mail.md, "Codes").
      if (next.email !== user.email) await this.codes.revokeAllIn(manager, user.id);
      const payload = { email: next.email, emails: profile.emails.map((e) => e.value), ...flag('isEmailVerified', verification.emailVerified, emailVerified) };
      await this.events.push(manager, { ...base, type: 'user.human.email.changed', payload });
    }
    if (phoneChanged) {
      const payload = { phone: next.phone, phones: profile.phones.map((p) => p.value), ...flag('isPhoneVerified', verification.phoneVerified, phoneVerified) };
      await this.events.push(manager, { ...base, type: 'user.human.phone.changed', payload });
    }
    return { user: Object.assign(user, changes), changed: true };
  }

  /** All e-mails and phones with their types replace the primary ones insertHuman indexed. */
  private async replaceContacts(manager: EntityManager, user: UserEntity, profile: HumanProfile): Promise<void> {
    await manager.delete(UserContactEntity, { userId: user.id });
    await insertRows(manager, UserContactEntity, profileContactRows(user, profile));
  }
}

/** The `user_contacts` rows of every e-mail and phone of the profile, with their types. */
export function profileContactRows(user: Pick<UserEntity, 'id' | 'orgId'>, profile: HumanProfile): UserContactEntity[] {
  return [...contactRows(user, 'email', profile.emails), ...contactRows(user, 'phone', profile.phones)];
}

function diff(user: UserEntity, profile: HumanProfile, verification: ContactVerification) {
  const next = profileColumns(profile);
  const profileChanges: JsonObject = {};
  for (const key of PROFILE_COLUMNS) if (user[key] !== next[key]) profileChanges[key] = next[key];
  const stored = withoutImpliedContacts((user.scimAttributes as JsonObject | null) ?? null, user.email, user.phone);
  const attributesChanged = JSON.stringify(stored) !== JSON.stringify(next.scimAttributes);
  const emailReplaced = user.email !== next.email || JSON.stringify(contactsOf(user, 'emails')) !== JSON.stringify(profile.emails);
  const phoneReplaced = user.phone !== next.phone || JSON.stringify(contactsOf(user, 'phoneNumbers')) !== JSON.stringify(profile.phones);
  // A replaced address is unverified unless the caller says otherwise; no address is never verified.
  const emailVerified = next.email !== null && (verification.emailVerified ?? (emailReplaced ? false : user.emailVerified));
  const phoneVerified = next.phone !== null && (verification.phoneVerified ?? (phoneReplaced ? false : user.phoneVerified));
  const emailChanged = emailReplaced || emailVerified !== user.emailVerified;
  const phoneChanged = phoneReplaced || phoneVerified !== user.phoneVerified;
  const profileChanged = Object.keys(profileChanges).length > 0 || attributesChanged;
  return { next, profileChanges, attributesChanged, profileChanged, emailChanged, phoneChanged, emailVerified, phoneVerified };
}

function contactRows(user: Pick<UserEntity, 'id' | 'orgId'>, kind: ContactKind, contacts: Contact[]): UserContactEntity[] {
  return contacts.map((c, position) => ({
    userId: user.id,
    orgId: user.orgId,
    kind,
    position,
    valueLower: c.value.toLowerCase().slice(0, 320),
    typeLower: c.type === null ? null : c.type.toLowerCase().slice(0, 64),
    isPrimary: c.primary,
  }));
}

/** The primary contact is the one marked primary, else the first (RFC 7643 §2.4). */
function primaryOf(contacts: Contact[]): string | null {
  return (contacts.find((c) => c.primary) ?? contacts[0])?.value ?? null;
}

/** The user columns a profile sets (all of them: a replace, not a merge). */
export function profileColumns(profile: HumanProfile) {
  const email = primaryOf(profile.emails);
  const phone = primaryOf(profile.phones);
  const attributes: JsonObject = { ...(profile.attributes ?? {}) };
  // All contacts with their types live in the document; the primary ones are also columns.
  if (profile.emails.length > 0) attributes.emails = profile.emails as unknown as JsonValue;
  if (profile.phones.length > 0) attributes.phoneNumbers = profile.phones as unknown as JsonValue;
  return {
    userName: profile.userName,
    userNameLower: profile.userName.toLowerCase(),
    externalId: profile.externalId,
    givenName: profile.givenName,
    familyName: profile.familyName,
    displayName: profile.displayName,
    nickName: profile.nickName,
    preferredLanguage: profile.preferredLanguage,
    locale: profile.locale,
    timezone: profile.timezone,
    title: profile.title,
    userType: profile.userType,
    profileUrl: profile.profileUrl,
    email,
    emailLower: email?.toLowerCase() ?? null,
    phone,
    scimAttributes: withoutImpliedContacts(attributes, email, phone),
    searchText: searchText({ ...profile, email }),
  };
}

/**
 * The document without the contacts that the `email` and `phone` columns already say (one untyped primary
 * address, which is what `contactsOf` reads from the columns): a user created by the management API and
 * changed by it keeps no document, and the two spellings of the same contacts never count as a change.
 */
function withoutImpliedContacts(attributes: JsonObject | null, email: string | null, phone: string | null): JsonObject | null {
  if (!attributes) return null;
  const implied = (value: string | null) => JSON.stringify(value === null ? [] : [{ value, type: null, primary: true }]);
  const rest = { ...attributes };
  if (JSON.stringify(rest.emails ?? []) === implied(email)) delete rest.emails;
  if (JSON.stringify(rest.phoneNumbers ?? []) === implied(phone)) delete rest.phoneNumbers;
  return Object.keys(rest).length > 0 ? rest : null;
}

/** A user's stored contacts in the shape of `HumanProfile`, for change detection. */
export function contactsOf(user: Pick<UserEntity, 'scimAttributes' | 'email' | 'phone'>, key: 'emails' | 'phoneNumbers'): Contact[] {
  const stored = (user.scimAttributes as JsonObject | null)?.[key];
  if (Array.isArray(stored)) return stored as unknown as Contact[];
  const single = key === 'emails' ? user.email : user.phone;
  return single ? [{ value: single, type: null, primary: true }] : [];
}

/** The user's stored profile as a whole value: what a partial change starts from (the inverse of `profileColumns`). */
export function profileOf(user: UserEntity): HumanProfile {
  const { emails: _emails, phoneNumbers: _phones, ...rest } = (user.scimAttributes as JsonObject | null) ?? {};
  return {
    userName: user.userName,
    externalId: user.externalId,
    givenName: user.givenName,
    familyName: user.familyName,
    displayName: user.displayName,
    nickName: user.nickName,
    preferredLanguage: user.preferredLanguage,
    locale: user.locale,
    timezone: user.timezone,
    title: user.title,
    userType: user.userType,
    profileUrl: user.profileUrl,
    emails: contactsOf(user, 'emails'),
    phones: contactsOf(user, 'phoneNumbers'),
    attributes: Object.keys(rest).length > 0 ? rest : null,
  };
}
