import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { isUniqueViolation } from '../common/database/unique-violation.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { ErrorDetail } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import type { JsonObject } from '../common/database/columns.js';
import { UserEntity } from './entities/user.entity.js';
import type { AccessTokenType } from './entities/user.entity.js';
import { UserAccess } from './acting/user-access.service.js';
import { updateRows } from './entity-rows.js';
import { normalizePhone } from './phone.js';
import { searchText } from './rules/user-search.js';
import { bump } from './user-lifecycle.service.js';
import { UserProfileService, profileOf } from './user-profile.service.js';
import type { Contact, HumanProfile } from './user-profile.service.js';
import type { SyncedWriter } from './synced-fields.js';

/** A partial change of a human user: the fields of its creation, each optional (`phone: null` removes it). */
export interface HumanChanges {
  userName?: string;
  profile?: { firstName?: string; lastName?: string; displayName?: string; preferredLanguage?: string };
  email?: { email: string; isEmailVerified?: boolean };
  phone?: { phone: string; isPhoneVerified?: boolean } | null;
}

/** A partial change of a machine user (`description: null` clears it). */
export interface MachineChanges {
  userName?: string;
  name?: string;
  description?: string | null;
  accessTokenType?: AccessTokenType;
}

export type UserChanges = HumanChanges & MachineChanges;

const HUMAN_ONLY = ['profile', 'email', 'phone'] as const;
const MACHINE_ONLY = ['name', 'description', 'accessTokenType'] as const;

/**
 * Partial changes of a user through the management API. A human's change is applied to its whole stored
 * profile and written by the same domain function as a SCIM replace (UserProfileService.replaceIn), so
 * both surfaces write the same columns and events; a machine's writes `user.machine.changed`. What does
 * not differ from the stored user is not written and writes no event (clients repeat themselves).
 */
@Injectable()
export class UserEditService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly profiles: UserProfileService,
    private readonly access: UserAccess,
  ) {}

  async change(editorUserId: string | null, orgId: string, userId: string, changes: UserChanges): Promise<UserEntity> {
    try {
      return await this.uow.run(async (manager) => {
        // The acting rule first, also for a change that turns out to change nothing: a refusal does not
        // depend on what was sent (SECURITY.md, "Who may act on whom").
        return this.changeIn(manager, editorUserId, await this.access.actOn(manager, editorUserId, orgId, userId), changes);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw DomainError.alreadyExists(`the user name "${changes.userName}" is already taken in this organization`);
      throw error;
    }
  }

  /**
   * The change inside the caller's transaction, on a user the caller may act on (UserAccess.actOn). `writer`: the
   * caller is the sync of the directory that keeps the user's synced fields (synced-fields.ts).
   */
  changeIn(manager: EntityManager, editorUserId: string | null, user: UserEntity, changes: UserChanges, writer?: SyncedWriter): Promise<UserEntity> {
    assertFieldsOf(user, changes);
    return user.type === 'human'
      ? this.changeHumanIn(manager, editorUserId, user, changes, writer)
      : this.changeMachineIn(manager, editorUserId, user, changes);
  }

  private async changeHumanIn(
    manager: EntityManager,
    editorUserId: string | null,
    user: UserEntity,
    changes: HumanChanges,
    writer: SyncedWriter | undefined,
  ): Promise<UserEntity> {
    const current = profileOf(user);
    const profile: HumanProfile = {
      ...current,
      userName: changes.userName ?? current.userName,
      givenName: changes.profile?.firstName ?? current.givenName,
      familyName: changes.profile?.lastName ?? current.familyName,
      displayName: changes.profile?.displayName ?? current.displayName,
      preferredLanguage: changes.profile?.preferredLanguage ?? current.preferredLanguage,
      emails: changes.email ? withPrimary(current.emails, changes.email.email) : current.emails,
      phones: changes.phone === undefined ? current.phones : withPrimary(current.phones, changes.phone && normalizePhone(changes.phone.phone, 'phone.phone')),
    };
    const verification = {
      emailVerified: changes.email?.isEmailVerified,
      phoneVerified: changes.phone ? changes.phone.isPhoneVerified : undefined,
    };
    return (await this.profiles.replaceIn(manager, editorUserId, user, profile, verification, writer)).user;
  }

  private async changeMachineIn(manager: EntityManager, editorUserId: string | null, user: UserEntity, changes: MachineChanges): Promise<UserEntity> {
    const next = {
      userName: changes.userName ?? user.userName,
      displayName: changes.name ?? user.displayName,
      description: changes.description === undefined ? user.description : changes.description,
      accessTokenType: changes.accessTokenType ?? user.accessTokenType,
    };
    // Reported under the API's names, as `user.machine.added` reports them.
    const payload: JsonObject = {};
    if (next.userName !== user.userName) payload.userName = next.userName;
    if (next.displayName !== user.displayName) payload.name = next.displayName;
    if (next.description !== user.description) payload.description = next.description;
    if (next.accessTokenType !== user.accessTokenType) payload.accessTokenType = next.accessTokenType;
    if (Object.keys(payload).length === 0) return user;
    const columns = {
      ...next,
      userNameLower: next.userName.toLowerCase(),
      searchText: searchText({ userName: next.userName, displayName: next.displayName }),
      ...bump(user),
    };
    await updateRows(manager, UserEntity, { id: user.id }, columns);
    await this.events.push(manager, {
      type: 'user.machine.changed',
      aggregateType: 'user',
      aggregateId: user.id,
      resourceOwner: user.orgId,
      editorUserId,
      payload,
    });
    return Object.assign(user, columns);
  }
}

/** Human fields on a machine user, or machine fields on a human one: a 400 naming each. */
function assertFieldsOf(user: UserEntity, changes: UserChanges): void {
  const foreign = user.type === 'human' ? MACHINE_ONLY : HUMAN_ONLY;
  const details: ErrorDetail[] = foreign
    .filter((field) => changes[field] !== undefined)
    .map((field) => ({ field, message: `${field} applies only to ${user.type === 'human' ? 'machine' : 'human'} users` }));
  if (details.length > 0) throw DomainError.invalid(`invalid request: ${details.map((d) => d.message).join('; ')}`, details);
}

/** The contacts with the primary one's value replaced (or added), or removed when `value` is null. */
function withPrimary(contacts: Contact[], value: string | null): Contact[] {
  const index = Math.max(
    contacts.findIndex((c) => c.primary),
    0,
  );
  if (value === null) return contacts.filter((_, i) => i !== index);
  if (contacts.length === 0) return [{ value, type: null, primary: true }];
  return contacts.map((c, i) => (i === index ? { ...c, value } : c));
}
