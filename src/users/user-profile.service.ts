import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { JsonObject, JsonValue } from '../common/database/columns.js';
import { EventStore } from '../common/events/event-store.js';
import { UserContactEntity } from './entities/user-contact.entity.js';
import type { ContactKind } from './entities/user-contact.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { insertRows, updateRows } from './entity-rows.js';
import { bump } from './user-lifecycle.service.js';

/** One e-mail address or phone number with its type; phone values already normalised. */
export interface Contact {
  value: string;
  type: string | null;
  primary: boolean;
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

const PROFILE_COLUMNS = [
  'userName', 'externalId', 'givenName', 'familyName', 'displayName', 'nickName', 'preferredLanguage',
  'locale', 'timezone', 'title', 'userType', 'profileUrl',
] as const;

/**
 * Replaces a human user's profile, e-mails and phone numbers inside the caller's transaction, with
 * `user.human.profile.changed` / `.email.changed` / `.phone.changed` events for what actually changed.
 * Nothing changed: no write, no event, no version bump (clients repeat themselves).
 */
@Injectable()
export class UserProfileService {
  constructor(private readonly events: EventStore) {}

  /** Whether replacing the user's profile with this one would change anything (a read-only check). */
  differs(user: UserEntity, profile: HumanProfile): boolean {
    const { profileChanged, emailChanged, phoneChanged } = diff(user, profile);
    return profileChanged || emailChanged || phoneChanged;
  }

  async replaceIn(manager: EntityManager, editorUserId: string | null, user: UserEntity, profile: HumanProfile): Promise<{ user: UserEntity; changed: boolean }> {
    const { next, profileChanges, attributesChanged, profileChanged, emailChanged, phoneChanged } = diff(user, profile);
    if (!profileChanged && !emailChanged && !phoneChanged) return { user, changed: false };

    const changes = { ...next, ...(emailChanged ? { emailVerified: false } : {}), ...(phoneChanged ? { phoneVerified: false } : {}), ...bump(user) };
    await updateRows(manager, UserEntity, { id: user.id }, changes);
    await this.replaceContacts(manager, user, profile);
    const base = { aggregateType: 'user', aggregateId: user.id, resourceOwner: user.orgId, editorUserId } as const;
    if (profileChanged) {
      const payload: JsonObject = { ...profileChanges };
      if (attributesChanged) payload.attributes = Object.keys(next.scimAttributes ?? {});
      await this.events.push(manager, { ...base, type: 'user.human.profile.changed', payload });
    }
    if (emailChanged) await this.events.push(manager, { ...base, type: 'user.human.email.changed', payload: { email: next.email, emails: profile.emails.map((e) => e.value) } });
    if (phoneChanged) await this.events.push(manager, { ...base, type: 'user.human.phone.changed', payload: { phone: next.phone, phones: profile.phones.map((p) => p.value) } });
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

function diff(user: UserEntity, profile: HumanProfile) {
  const next = profileColumns(profile);
  const profileChanges: JsonObject = {};
  for (const key of PROFILE_COLUMNS) if (user[key] !== next[key]) profileChanges[key] = next[key];
  const attributesChanged = JSON.stringify(user.scimAttributes ?? null) !== JSON.stringify(next.scimAttributes);
  const emailChanged = user.email !== next.email || JSON.stringify(contactsOf(user, 'emails')) !== JSON.stringify(profile.emails);
  const phoneChanged = user.phone !== next.phone || JSON.stringify(contactsOf(user, 'phoneNumbers')) !== JSON.stringify(profile.phones);
  const profileChanged = Object.keys(profileChanges).length > 0 || attributesChanged;
  return { next, profileChanges, attributesChanged, profileChanged, emailChanged, phoneChanged };
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
    phone: primaryOf(profile.phones),
    scimAttributes: Object.keys(attributes).length > 0 ? attributes : null,
  };
}

/** A user's stored contacts in the shape of `HumanProfile`, for change detection. */
export function contactsOf(user: UserEntity, key: 'emails' | 'phoneNumbers'): Contact[] {
  const stored = (user.scimAttributes as JsonObject | null)?.[key];
  if (Array.isArray(stored)) return stored as unknown as Contact[];
  const single = key === 'emails' ? user.email : user.phone;
  return single ? [{ value: single, type: null, primary: true }] : [];
}
