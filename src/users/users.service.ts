import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { PasswordHasher } from '../common/crypto/password-hasher.js';
import { AccountLinksService } from './self-service/account-links.service.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { isUniqueViolation } from '../common/database/unique-violation.js';
import { DomainError } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { InstanceEntity, INSTANCE_ID } from './entities/instance.entity.js';
import { OrganizationEntity } from './entities/organization.entity.js';
import { UserContactEntity } from './entities/user-contact.entity.js';
import { UserEntity } from './entities/user.entity.js';
import type { AccessTokenType } from './entities/user.entity.js';
import { insertRows } from './entity-rows.js';
import { countAdded } from './org-user-counts.js';
import { normalizePhone } from './phone.js';
import { verifiedByAnother, verifiedElsewhereError } from './queries/verified-emails.js';
import { assertPasswordPolicy } from './rules/password-policy.js';
import { InstanceSettings } from '../settings/instance-settings.service.js';
import { searchText } from './rules/user-search.js';
import { profileColumns, profileContactRows } from './user-profile.service.js';
import type { HumanProfile } from './user-profile.service.js';
import { PasswordlessUsers } from './passwordless-users.js';

interface NewHumanUser {
  userName: string;
  firstName: string;
  lastName: string;
  displayName?: string;
  preferredLanguage?: string;
  email: string;
  isEmailVerified?: boolean;
  phone?: string;
  isPhoneVerified?: boolean;
  /** Plain password, hashed here; never stored or logged as given. */
  password?: string;
  /** Where the user came from, when not from the caller itself: `{source: "idp", idpId}` for JIT (docs/federation.md), `{source: "directory", directoryId}` for a directory's sync (docs/directories.md). */
  origin?: { source: 'idp'; idpId: string } | { source: 'directory'; directoryId: string };
}

interface NewMachineUser {
  userName: string;
  name: string;
  description?: string;
  accessTokenType?: AccessTokenType;
}

@Injectable()
export class UsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly passwords: PasswordHasher,
    private readonly links: AccountLinksService,
    private readonly settings: InstanceSettings,
    private readonly passwordless: PasswordlessUsers,
  ) {}

  /** A user of the organization; 404 for unknown ids and for users of other organizations alike. */
  async get(orgId: string, userId: string, manager: EntityManager = this.dataSource.manager): Promise<UserEntity> {
    const user = await manager.findOneBy(UserEntity, { id: userId, orgId });
    if (!user) throw DomainError.notFound('user');
    return user;
  }

  async createHuman(editorUserId: string | null, orgId: string, input: NewHumanUser, id = newId()): Promise<UserEntity> {
    const instance = await this.instance();
    // Checked before bcrypt is spent, and again where the user is written (docs/passwordless.md).
    if (input.password !== undefined) await this.passwordless.assertNewPasswordAllowedIn(this.dataSource.manager, orgId);
    if (input.password !== undefined) assertPasswordPolicy(input.password, (await this.settings.get()).passwordPolicy);
    const phone = input.phone === undefined ? null : normalizePhone(input.phone);
    // Hash before the transaction: bcrypt takes tens of milliseconds and must not hold a write lock.
    const passwordHash = input.password === undefined ? null : await this.passwords.hash(input.password);
    return this.insertUnique(input.userName, async (manager) => {
      if (input.isEmailVerified && (await verifiedByAnother(manager, orgId, input.email, null))) throw verifiedElsewhereError();
      const user = await this.insertHuman(manager, editorUserId, orgId, id, {
        ...input,
        phone,
        passwordHash,
        preferredLanguage: input.preferredLanguage ?? instance.defaultLanguage,
      });
      await this.links.inviteOnProvisionIn(manager, editorUserId, user);
      return user;
    });
  }

  createMachine(editorUserId: string | null, orgId: string, input: NewMachineUser, id = newId()): Promise<UserEntity> {
    return this.insertUnique(input.userName, (manager) => this.insertMachine(manager, editorUserId, orgId, id, input));
  }

  /** Inserts a machine user and its `user.machine.added` event inside the caller's transaction. */
  async insertMachine(manager: EntityManager, editorUserId: string | null, orgId: string, id: string, input: NewMachineUser): Promise<UserEntity> {
    await this.assertOrgExists(manager, orgId);
    const now = new Date();
    const user = manager.create(UserEntity, {
      ...blankUser(),
      id,
      orgId,
      type: 'machine',
      userName: input.userName,
      userNameLower: input.userName.toLowerCase(),
      displayName: input.name,
      description: input.description ?? null,
      accessTokenType: input.accessTokenType ?? 'opaque',
      searchText: searchText({ userName: input.userName, displayName: input.name }),
      createdAt: now,
      changedAt: now,
    });
    await manager.insert(UserEntity, user);
    await this.events.push(manager, {
      type: 'user.machine.added',
      aggregateType: 'user',
      aggregateId: user.id,
      resourceOwner: orgId,
      editorUserId,
      payload: { userName: user.userName, name: input.name, description: user.description, accessTokenType: user.accessTokenType },
    });
    return user;
  }

  /**
   * Inserts a human user and its `user.human.added` event inside the caller's transaction. A SCIM
   * `profile` is stored with it in the same INSERT (its columns over the input's, all its contacts);
   * the event reports the input either way.
   */
  async insertHuman(
    manager: EntityManager,
    editorUserId: string | null,
    orgId: string,
    id: string,
    input: Omit<NewHumanUser, 'password' | 'phone'> & { phone: string | null; passwordHash: string | null },
    profile?: HumanProfile,
  ): Promise<UserEntity> {
    if (input.passwordHash !== null) await this.passwordless.assertNewPasswordAllowedIn(manager, orgId);
    await countAdded(manager, orgId, 1);
    const now = new Date();
    const displayName = input.displayName ?? `${input.firstName} ${input.lastName}`.trim();
    const added = manager.create(UserEntity, {
      ...blankUser(),
      id,
      orgId,
      type: 'human',
      userName: input.userName,
      userNameLower: input.userName.toLowerCase(),
      givenName: input.firstName,
      familyName: input.lastName,
      displayName,
      preferredLanguage: input.preferredLanguage ?? null,
      email: input.email,
      emailLower: input.email.toLowerCase(),
      emailVerified: input.isEmailVerified ?? false,
      phone: input.phone,
      phoneVerified: input.phone !== null && (input.isPhoneVerified ?? false),
      passwordHash: input.passwordHash,
      searchText: searchText({ userName: input.userName, givenName: input.firstName, familyName: input.lastName, displayName, email: input.email }),
      createdAt: now,
      changedAt: now,
    });
    const user = profile ? manager.create(UserEntity, { ...added, ...profileColumns(profile) }) : added;
    await insertRows(manager, UserEntity, [user]);
    // Index the primary e-mail and phone for SCIM filters (`emails.value`, `phoneNumbers.value`), for
    // users from every path, not only SCIM's (the import writer does the same in bulk).
    await insertRows(manager, UserContactEntity, profile ? profileContactRows(user, profile) : primaryContactRows(user));
    await this.events.push(manager, {
      type: 'user.human.added',
      aggregateType: 'user',
      aggregateId: user.id,
      resourceOwner: orgId,
      editorUserId,
      payload: {
        userName: added.userName,
        firstName: added.givenName,
        lastName: added.familyName,
        displayName,
        preferredLanguage: added.preferredLanguage,
        email: added.email,
        ...(added.phone ? { phone: added.phone } : {}),
        ...(input.origin ? { ...input.origin } : {}),
      },
    });
    return user;
  }

  private async insertUnique<T>(userName: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.uow.run(work);
    } catch (error) {
      if (isUniqueViolation(error)) throw DomainError.alreadyExists(`the user name "${userName}" is already taken in this organization`);
      throw error;
    }
  }

  private async assertOrgExists(manager: EntityManager, orgId: string): Promise<void> {
    if (!(await manager.existsBy(OrganizationEntity, { id: orgId }))) throw DomainError.notFound('organization');
  }

  private async instance(): Promise<InstanceEntity> {
    const instance = await this.dataSource.getRepository(InstanceEntity).findOneBy({ id: INSTANCE_ID });
    if (!instance) throw new Error('the instance is not bootstrapped');
    return instance;
  }
}

function blankUser(): Partial<UserEntity> {
  return {
    state: 'active',
    externalId: null,
    givenName: null,
    familyName: null,
    displayName: null,
    nickName: null,
    preferredLanguage: null,
    gender: null,
    email: null,
    emailLower: null,
    emailVerified: false,
    phone: null,
    phoneVerified: false,
    passwordHash: null,
    passwordChangeRequired: false,
    failedPasswordChecks: 0,
    description: null,
    accessTokenType: null,
    title: null,
    userType: null,
    locale: null,
    timezone: null,
    profileUrl: null,
    scimAttributes: null,
    searchText: null,
    version: 1,
  };
}

function primaryContactRows(user: UserEntity): UserContactEntity[] {
  const row = (kind: UserContactEntity['kind'], value: string) => ({
    userId: user.id,
    orgId: user.orgId,
    kind,
    position: 0,
    valueLower: value.toLowerCase().slice(0, 320),
    typeLower: null,
    isPrimary: true,
  });
  return [...(user.email ? [row('email', user.email)] : []), ...(user.phone ? [row('phone', user.phone)] : [])];
}
