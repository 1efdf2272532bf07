import { removeGrantsIn } from './project-access/grant-removal.js';
import { grantsReaching } from './project-access/grant.queries.js';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { JsonObject } from '../common/database/columns.js';
import { USER_TOKENS } from '../common/auth/user-tokens.js';
import type { UserTokens } from '../common/auth/user-tokens.js';
import { PasswordHasher } from '../common/crypto/password-hasher.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import type { EventType } from '../common/events/event-types.js';
import { PublicKeyEntity } from './entities/public-key.entity.js';
import { UserEntity } from './entities/user.entity.js';
import type { UserState } from './entities/user.entity.js';
import { UserAccess } from './acting/user-access.service.js';
import { UserCodes } from './codes/user-codes.js';
import { updateRows } from './entity-rows.js';
import { countRemoved } from './org-user-counts.js';
import { leaveAllGroupsIn } from './groups/group.queries.js';
import { PasswordHistory } from './password-history/password-history.service.js';
import { PasswordKeepers } from './password-keepers.js';
import type { PasswordKeeper } from './password-keepers.js';
import { PasswordlessUsers } from './passwordless-users.js';
import { assertPasswordPolicy } from './rules/password-policy.js';
import { InstanceSettings } from '../settings/instance-settings.service.js';
import { isInactive, isLocked } from './rules/user-state.js';

/**
 * State changes of a user (docs/product-rules.md, "Domain"): deactivation, reactivation, lock, unlock, removal, password
 * changes and password-check bookkeeping. Token checks read the user's state on use, so these take
 * effect on every token at once without calling into the OIDC layer.
 * Setting the state a user already has is a no-op without an event (SCIM clients repeat themselves).
 */
@Injectable()
export class UserLifecycleService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly passwords: PasswordHasher,
    private readonly access: UserAccess,
    private readonly codes: UserCodes,
    private readonly settings: InstanceSettings,
    private readonly history: PasswordHistory,
    private readonly keepers: PasswordKeepers,
    private readonly passwordless: PasswordlessUsers,
    @Optional() @Inject(USER_TOKENS) private readonly tokens?: UserTokens,
  ) {}

  deactivate(editorUserId: string | null, orgId: string, userId: string): Promise<UserEntity> {
    return this.inTransaction(editorUserId, orgId, userId, (manager, user) => this.deactivateIn(manager, editorUserId, user));
  }

  reactivate(editorUserId: string | null, orgId: string, userId: string): Promise<UserEntity> {
    return this.inTransaction(editorUserId, orgId, userId, (manager, user) => this.reactivateIn(manager, editorUserId, user));
  }

  lock(editorUserId: string | null, orgId: string, userId: string): Promise<UserEntity> {
    return this.inTransaction(editorUserId, orgId, userId, async (manager, user) => {
      if (!isLocked(user)) await this.access.assertKeepsAnIamOwner(manager, user, 'lock');
      return this.transitionIn(manager, editorUserId, user, 'locked', 'user.locked', ['active']);
    });
  }

  unlock(editorUserId: string | null, orgId: string, userId: string): Promise<UserEntity> {
    return this.inTransaction(editorUserId, orgId, userId, (manager, user) => this.unlockIn(manager, editorUserId, user));
  }

  /**
   * The same transitions inside the caller's transaction, for changes that must commit together with
   * them. The caller has already established that the editor may act on the user (UserAccess.actOn).
   */
  async deactivateIn(manager: EntityManager, editorUserId: string | null, user: UserEntity): Promise<UserEntity> {
    if (!isInactive(user)) await this.access.assertKeepsAnIamOwner(manager, user, 'deactivate');
    return this.transitionIn(manager, editorUserId, user, 'inactive', 'user.deactivated', ['active', 'locked']);
  }

  reactivateIn(manager: EntityManager, editorUserId: string | null, user: UserEntity): Promise<UserEntity> {
    return this.transitionIn(manager, editorUserId, user, 'active', 'user.reactivated', ['inactive']);
  }

  unlockIn(manager: EntityManager, editorUserId: string | null, user: UserEntity): Promise<UserEntity> {
    return this.transitionIn(manager, editorUserId, user, 'active', 'user.unlocked', ['locked']);
  }

  /** Deletes the user with its memberships, credentials and keys; the events stay. */
  remove(editorUserId: string | null, orgId: string, userId: string): Promise<void> {
    return this.uow.run((manager) => this.removeIn(manager, editorUserId, orgId, userId));
  }

  async removeIn(manager: EntityManager, editorUserId: string | null, orgId: string, userId: string): Promise<void> {
    const user = await this.access.actOn(manager, editorUserId, orgId, userId);
    await this.access.assertKeepsAnIamOwner(manager, user, 'remove');
    await manager.delete(PublicKeyEntity, { ownerType: 'machine', ownerId: user.id });
    await this.tokens?.forgetUser(manager, user.id);
    // The projects whose grants (its own or its groups') admitted it, read before they go: a Shared Signals
    // transmitter tells only the applications that admitted it that it is gone (docs/signals.md).
    const grantedProjects = [...new Set((await grantsReaching(manager, user.id)).map((g) => g.projectId))].sort();
    // A removed user leaves its groups, each left group recording it (docs/product-rules.md, "Groups").
    const leftGroups = (await leaveAllGroupsIn(manager, user.id)).map(
      (groupId) =>
        ({
          type: 'group.member.removed',
          aggregateType: 'group',
          aggregateId: groupId,
          resourceOwner: orgId,
          editorUserId,
          payload: { userId: user.id },
        }) as const,
    );
    // Its grants go with it, each recording it (docs/product-rules.md, "Application access").
    await removeGrantsIn(manager, this.events, editorUserId, { userId: user.id });
    const { affected } = await manager.delete(UserEntity, { id: user.id });
    // The id stays taken for good (OIDC Core §2: `sub` is never reassigned); create and import check it.
    if (affected === 1) await manager.query('INSERT INTO removed_users (id, removed_at) VALUES (?, ?)', [user.id, Date.now()]);
    // Only the transaction that actually deleted the row counts it (two concurrent removals on MySQL).
    if (user.type === 'human' && affected === 1) await countRemoved(manager, orgId);
    // The events last: pushing takes the event-position lock until commit (event-positions.ts), so no
    // row lock is waited for while holding it.
    await this.events.push(manager, ...leftGroups, {
      type: 'user.removed',
      aggregateType: 'user',
      aggregateId: user.id,
      resourceOwner: orgId,
      editorUserId,
      payload: { userName: user.userName, grantedProjects },
    });
  }

  /** Sets a human user's password (hashed here, with the instance's password policy enforced). */
  async setPassword(
    editorUserId: string | null,
    orgId: string,
    userId: string,
    password: string,
    options: { changeRequired?: boolean; method?: PasswordChangeMethod; keepSession?: string; current?: string } = {},
  ): Promise<void> {
    // Refused (unknown user, not allowed, against the policy) before bcrypt is spent on it; the policy is the
    // instance's settings as they are now (docs/operations.md, "Settings"), the user is checked again where it is written.
    const { passwordPolicy } = await this.settings.get();
    const target = await this.access.actOn(this.uow.manager, editorUserId, orgId, userId);
    assertHasPassword(target);
    await this.passwordless.assertPasswordAllowedIn(this.uow.manager, target);
    assertPasswordPolicy(password, passwordPolicy);
    const keeper = await this.keepers.of(userId);
    if (keeper) return this.setKeptPassword(editorUserId, orgId, userId, keeper, password, options);
    await this.history.assertNotReused(userId, password);
    const hash = await this.passwords.hash(password);
    await this.uow.run(async (manager) => {
      const user = await this.access.actOn(manager, editorUserId, orgId, userId);
      await this.setPasswordHashIn(manager, editorUserId, user, hash, options.changeRequired ?? false, {
        method: options.method,
        keepSession: options.keepSession,
      });
    });
  }

  /**
   * A password a directory keeps (docs/directories.md, "Write-back"): with `writeBack` it is written there first — a
   * refusal there changes nothing here — and no hash is stored; the user's sessions and tokens end as with any reset.
   * Without it, a 409 naming the directory: the password is changed where it is kept.
   */
  private async setKeptPassword(
    editorUserId: string | null,
    orgId: string,
    userId: string,
    keeper: PasswordKeeper & { name: string; writeBack: boolean },
    password: string,
    options: { method?: PasswordChangeMethod; keepSession?: string; current?: string },
  ): Promise<void> {
    if (!keeper.writeBack)
      throw new DomainError(ErrorCode.Conflict, `this user's password is kept by the directory "${keeper.name}"; change it in the directory`);
    await keeper.write(userId, password, options.current);
    await this.uow.run(async (manager) => {
      const user = await this.access.actOn(manager, editorUserId, orgId, userId);
      await manager.update(UserEntity, { id: user.id }, { passwordChangeRequired: false, passwordChangedAt: new Date(), ...bump(user) });
      await this.endCredentialsIn(manager, user.id, options.keepSession);
      await this.pushPasswordChanged(manager, editorUserId, user, {
        changeRequired: false,
        source: 'directory',
        ...(options.method ? { method: options.method } : {}),
      });
    });
  }

  /**
   * A changed password, or a passkey that replaces the lost ones (docs/passwordless.md, "Recovery"), ends the user's
   * sessions and tokens (but `keepSession`) and every mailed link (docs/mail.md, "Codes").
   */
  async endCredentialsIn(manager: EntityManager, userId: string, keepSession: string | undefined): Promise<void> {
    await this.tokens?.revokeAll(manager, userId, { keepSession });
    await this.codes.revokeAllIn(manager, userId);
  }

  private pushPasswordChanged(manager: EntityManager, editorUserId: string | null, user: Pick<UserEntity, 'id' | 'orgId'>, payload: JsonObject) {
    return this.events.push(manager, {
      type: 'user.human.password.changed',
      aggregateType: 'user',
      aggregateId: user.id,
      resourceOwner: user.orgId,
      editorUserId,
      payload,
    });
  }

  /**
   * Stores an already computed hash with its event. A changed or reset password revokes the user's
   * sessions and tokens (whoever knew the old one is out), but for `keepSession`, the session of the account page
   * where the user changed it (docs/account.md, "Sections"); a rehash of the same password after a sign-in (`{ rehash: true }`)
   * revokes nothing.
   */
  async setPasswordHashIn(
    manager: EntityManager,
    editorUserId: string | null,
    user: Pick<UserEntity, 'id' | 'orgId' | 'type' | 'version'>,
    hash: string,
    changeRequired: boolean,
    options: { rehash?: boolean; method?: PasswordChangeMethod; keepSession?: string } = {},
  ) {
    assertHasPassword(user);
    // Every door that sets a password ends here: passkeys only refuses it (docs/passwordless.md).
    if (!options.rehash) await this.passwordless.assertPasswordAllowedIn(manager, user);
    if (options.rehash) {
      await manager.update(UserEntity, { id: user.id }, { passwordHash: hash, passwordChangeRequired: changeRequired, ...bump(user) });
    } else {
      // The password being replaced joins the history the policy keeps (docs/operations.md, "Settings"), and the
      // new one's age starts now.
      await this.history.rememberCurrentIn(manager, user.id);
      const changes = { passwordHash: hash, passwordChangeRequired: changeRequired, passwordChangedAt: new Date(), ...bump(user) };
      await manager.update(UserEntity, { id: user.id }, changes);
      await this.endCredentialsIn(manager, user.id, options.keepSession);
    }
    await this.pushPasswordChanged(manager, editorUserId, user, { changeRequired, ...(options.method ? { method: options.method } : {}) });
  }

  /**
   * A second factor owed at the next sign-in, whatever the login policy (a required action Keycloak added since an
   * earlier migration: docs/migrating.md, "Running it again"); adding a factor settles it.
   */
  async requireFactorEnrolmentIn(manager: EntityManager, editorUserId: string | null, user: Pick<UserEntity, 'id' | 'orgId' | 'version'>): Promise<void> {
    await manager.update(UserEntity, { id: user.id }, { mfaEnrolmentRequired: true, ...bump(user) });
    await this.events.push(manager, {
      type: 'user.human.mfa.enrolment.required',
      aggregateType: 'user',
      aggregateId: user.id,
      resourceOwner: user.orgId,
      editorUserId,
      payload: {},
    });
  }

  private inTransaction(
    editorUserId: string | null,
    orgId: string,
    userId: string,
    work: (manager: EntityManager, user: UserEntity) => Promise<UserEntity>,
  ): Promise<UserEntity> {
    return this.uow.run(async (manager) => work(manager, await this.access.actOn(manager, editorUserId, orgId, userId)));
  }

  private async transitionIn(
    manager: EntityManager,
    editorUserId: string | null,
    user: UserEntity,
    to: UserState,
    event: EventType,
    from: UserState[],
  ): Promise<UserEntity> {
    if (user.state === to) return user;
    if (!from.includes(user.state)) {
      throw new DomainError(ErrorCode.FailedPrecondition, `a ${user.state} user cannot become ${to}`);
    }
    // Only a lock by failed checks has a lock time (PasswordChecks): any transition ends it.
    const changes = { state: to, ...(event === 'user.unlocked' ? { failedPasswordChecks: 0 } : {}), failuresLockedAt: null, ...bump(user) };
    await updateRows(manager, UserEntity, { id: user.id }, changes);
    // Access ends with the state; reactivating or unlocking revives none of it (SECURITY.md).
    if (to !== 'active') await this.tokens?.revokeAll(manager, user.id);
    await this.events.push(manager, { type: event, aggregateType: 'user', aggregateId: user.id, resourceOwner: user.orgId, editorUserId });
    return Object.assign(user, changes);
  }
}

/** How a password was changed, in its event: a mailed link, or the user's own change when asked to (docs/mail.md). */
type PasswordChangeMethod = 'reset' | 'invitation' | 'change';

function assertHasPassword(user: Pick<UserEntity, 'type'>): void {
  if (user.type !== 'human') throw new DomainError(ErrorCode.FailedPrecondition, 'only human users have passwords');
}

/** The version and change time every write of a user advances (SCIM `meta.version`, `meta.lastModified`). */
export function bump(user: Pick<UserEntity, 'version'>): { version: number; changedAt: Date } {
  return { version: user.version + 1, changedAt: new Date() };
}
