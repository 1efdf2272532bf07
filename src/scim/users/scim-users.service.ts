import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { PasswordHasher } from '../../common/crypto/password-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import { newId } from '../../common/ids.js';
import type { UserEntity } from '../../users/entities/user.entity.js';
import { UserAccess } from '../../users/acting/user-access.service.js';
import { scimInstanceSettings } from '../../users/queries/instance.js';
import type { ScimInstanceSettings as InstanceSettings } from '../../users/queries/instance.js';
import { PasswordHistory } from '../../users/password-history/password-history.service.js';
import { passwordProblem } from '../../users/rules/password-policy.js';
import { InstanceSettings as Settings } from '../../settings/instance-settings.service.js';
import { UserLifecycleService } from '../../users/user-lifecycle.service.js';
import { UserProfileService } from '../../users/user-profile.service.js';
import type { HumanProfile } from '../../users/user-profile.service.js';
import { AccountLinksService } from '../../users/self-service/account-links.service.js';
import { UsersService } from '../../users/users.service.js';
import { ScimError } from '../errors/scim-error.js';
import type { ListQuery } from '../query/scim-list-query.js';
import { selectsAttribute } from '../query/scim-projection.js';
import type { AttributeSelection } from '../query/scim-projection.js';
import { groupsOfUsers } from '../../users/groups/group.queries.js';
import type { UserGroup } from '../../users/groups/group.queries.js';
import { toProfile } from './scim-user.mapper.js';
import type { PresentedUser } from './scim-user.mapper.js';
import { ScimUserRepository } from './scim-user.repository.js';
import type { ValidUser } from './scim-user.validator.js';
import { isInactive, isLocked } from '../../users/rules/user-state.js';

interface Replacement {
  profile: HumanProfile;
  passwordHash: string | null;
  active: unknown;
}

/**
 * Users of one organization as SCIM sees them. State changes go through the domain services, which
 * write the events (`user.human.added`, `…profile.changed`, `user.deactivated`, …) with the caller
 * as editor. Only human users are SCIM Users; machine users answer 404 like unknown ids.
 */
@Injectable()
export class ScimUsersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly repository: ScimUserRepository,
    private readonly users: UsersService,
    private readonly profiles: UserProfileService,
    private readonly lifecycle: UserLifecycleService,
    private readonly passwords: PasswordHasher,
    private readonly access: UserAccess,
    private readonly links: AccountLinksService,
    private readonly settings: Settings,
    private readonly history: PasswordHistory,
  ) {}

  get(orgId: string, id: string): Promise<UserEntity> {
    return this.repository.findHuman(orgId, id);
  }

  list(orgId: string, query: ListQuery): Promise<{ total: number; users: PresentedUser[]; nextCursor?: string }> {
    return this.repository.searchPresented(orgId, query);
  }

  /** The users' groups (`groups`, RFC 7643 §4.1.2), read only when the selection returns them. */
  async groupsOf(users: readonly { id: string }[], selection: AttributeSelection): Promise<Map<string, UserGroup[]>> {
    if (users.length === 0 || !selectsAttribute(selection, 'groups')) return new Map();
    return groupsOfUsers(
      this.dataSource.manager,
      users.map((u) => u.id),
    );
  }

  async create(editorUserId: string, orgId: string, input: ValidUser): Promise<UserEntity> {
    const instance = await this.instance();
    const profile = toProfile(input.doc, instance.defaultLanguage);
    // Hash before the transaction: bcrypt must not hold the write lock.
    const passwordHash = input.password === undefined ? null : await this.hashPassword(instance, input.password);
    const user = await this.unique(profile.userName, (manager) =>
      this.users
        .insertHuman(
          manager,
          editorUserId,
          orgId,
          newId(),
          {
            userName: profile.userName,
            firstName: profile.givenName ?? '',
            lastName: profile.familyName ?? '',
            displayName: profile.displayName ?? undefined,
            preferredLanguage: profile.preferredLanguage ?? undefined,
            email: (profile.emails.find((e) => e.primary) ?? profile.emails[0])?.value ?? '',
            phone: (profile.phones.find((p) => p.primary) ?? profile.phones[0])?.value ?? null,
            passwordHash,
          },
          profile,
        )
        // Created inactive: the user and both its events commit together.
        .then((created) => (input.doc.active === false ? this.lifecycle.deactivateIn(manager, editorUserId, created) : created))
        // The login policy's inviteOnProvision: the invitation commits with the user (docs/mail.md, "Invitation").
        .then(async (created) => (await this.links.inviteOnProvisionIn(manager, editorUserId, created), created)),
    );
    return user;
  }

  /** PUT (RFC 7644 §3.5.1) and the result of PATCH: the profile replaced, then password and state. */
  async replace(editorUserId: string, orgId: string, id: string, input: ValidUser): Promise<UserEntity> {
    const user = await this.repository.findHuman(orgId, id);
    const replacement = await this.replacement(editorUserId, user, input);
    return (await this.write(editorUserId, user, replacement)) ? this.repository.findHuman(orgId, id) : user;
  }

  /**
   * PATCH (RFC 7644 §3.5.2) answers 204 without a body: the user is read once, the operations are
   * applied to it (`apply`), and the result is written as a PUT would be, without reading it back.
   */
  async patch(editorUserId: string, orgId: string, id: string, apply: (user: UserEntity) => ValidUser): Promise<void> {
    const user = await this.repository.findHuman(orgId, id);
    await this.write(editorUserId, user, await this.replacement(editorUserId, user, apply(user)));
  }

  /**
   * The profile and the hashed password (hashed before any transaction: bcrypt must not hold the write
   * lock). A password is hashed only for a caller that may act on the user: a refused request must not
   * cost a bcrypt computation either.
   */
  private async replacement(editorUserId: string, user: UserEntity, input: ValidUser): Promise<Replacement> {
    const instance = await this.instance();
    const profile = toProfile(input.doc, null);
    if (input.password !== undefined) await this.access.assertMayActOn(this.uow.manager, editorUserId, user.id);
    const passwordHash = input.password === undefined ? null : await this.hashPassword(instance, input.password, user.id);
    return { profile, passwordHash, active: input.doc.active };
  }

  /** Writes what differs from `user` as read; false when nothing does (clients repeat themselves). */
  private async write(editorUserId: string, user: UserEntity, { profile, passwordHash, active }: Replacement): Promise<boolean> {
    const { orgId, id } = user;
    const stateChange = this.stateChange(user, active);
    // Nothing to write (a PUT that repeats the stored user): no write transaction, yet the same answer
    // as a write would get, so a refusal does not depend on what was sent.
    if (passwordHash === null && stateChange === null && !this.profiles.differs(user, profile)) {
      await this.access.assertMayActOn(this.uow.manager, editorUserId, id);
      return false;
    }
    // Profile, password and state commit together, each with its events, and with the check that the
    // editor may act on this user (SECURITY.md).
    await this.unique(profile.userName, async (manager) => {
      let current = await this.repository.findHuman(orgId, id, manager);
      await this.access.assertMayActOn(manager, editorUserId, current.id);
      if (this.profiles.differs(current, profile)) current = (await this.profiles.replaceIn(manager, editorUserId, current, profile)).user;
      if (passwordHash !== null) await this.lifecycle.setPasswordHashIn(manager, editorUserId, current, passwordHash, false);
      if (stateChange === 'deactivate') await this.lifecycle.deactivateIn(manager, editorUserId, current);
      if (stateChange === 'reactivate') await this.lifecycle.reactivateIn(manager, editorUserId, current);
      if (stateChange === 'unlock') await this.lifecycle.unlockIn(manager, editorUserId, current);
    });
    return true;
  }

  async remove(editorUserId: string, orgId: string, id: string): Promise<void> {
    await this.repository.findHuman(orgId, id);
    await this.lifecycle.remove(editorUserId, orgId, id);
  }

  /** SCIM has only `active`; a locked user set active is unlocked (docs/product-rules.md, "Domain"). */
  private stateChange(user: UserEntity, active: unknown): 'deactivate' | 'reactivate' | 'unlock' | null {
    if (active === false && !isInactive(user)) return 'deactivate';
    if (active === true && isInactive(user)) return 'reactivate';
    if (active === true && isLocked(user)) return 'unlock';
    return null;
  }

  /** `userId`: the user whose password this replaces, held to the policy's history too. */
  private async hashPassword(_instance: InstanceSettings, password: string, userId?: string): Promise<string> {
    // The instance's password policy as it is now (docs/operations.md, "Settings").
    const problem = passwordProblem(password, (await this.settings.get()).passwordPolicy) ?? (userId && (await this.history.problemOf(userId, password)));
    if (problem) throw ScimError.badRequest('invalidValue', `the ${problem}`);
    return this.passwords.hash(password);
  }

  private async unique<T>(userName: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.uow.run(work);
    } catch (error) {
      // RFC 7644 §3.3: "If the service provider determines that the creation of the requested resource
      // conflicts with existing resources (e.g., a "User" resource with a duplicate "userName"), the
      // service provider MUST return HTTP status code 409 (Conflict) with a "scimType" error code of "uniqueness"".
      if (isUniqueViolation(error)) throw new ScimError(409, `the userName "${userName}" is already taken in this organization`, 'uniqueness');
      throw error;
    }
  }

  private instance(): Promise<InstanceSettings> {
    return scimInstanceSettings(this.dataSource);
  }
}
