import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError } from '../common/errors/domain-error.js';
import { newId } from '../common/ids.js';
import { UserAccess } from '../users/acting/user-access.service.js';
import type { UserEntity } from '../users/entities/user.entity.js';
import { linkCandidates } from '../users/queries/link-candidates.js';
import { verifiedByAnother } from '../users/queries/verified-emails.js';
import { isInactive } from '../users/rules/user-state.js';
import type { HumanChanges } from '../users/user-edit.service.js';
import { UserEditService } from '../users/user-edit.service.js';
import { UserLifecycleService } from '../users/user-lifecycle.service.js';
import { UsersService } from '../users/users.service.js';
import type { DirectoryTarget } from './directories.service.js';
import { insertLink, updateLink } from './directories.queries.js';
import type { DirectoryUserRow, SyncCounts } from './directories.queries.js';
import type { DirectoryPerson } from './directory-entries.js';
import { DirectoryKeeper } from './directory-keeper.js';

export type Outcome = keyof SyncCounts;

/**
 * What a sync does to one person (docs/directories.md, "What a sync does"), inside the caller's transaction: creates
 * or links a user for a new entry, updates what changed (a rename or a move only changes the remembered DN),
 * deactivates who is disabled in the directory or gone from it, and reactivates who the directory re-enabled.
 */
@Injectable()
export class DirectoryPeople {
  constructor(
    private readonly users: UsersService,
    private readonly edits: UserEditService,
    private readonly lifecycle: UserLifecycleService,
    private readonly access: UserAccess,
    private readonly keeper: DirectoryKeeper,
  ) {}

  async apply(manager: EntityManager, target: DirectoryTarget, link: DirectoryUserRow | undefined, person: DirectoryPerson): Promise<Outcome> {
    const now = Date.now();
    const orgId = target.row.orgId;
    if (!link) {
      const userId = await this.newUserFor(manager, target, person);
      const created = userId === undefined;
      const id = userId ?? (await this.create(manager, target, person)).id;
      await insertLink(manager, {
        directoryId: target.row.id,
        externalId: person.externalId,
        userId: id,
        dn: person.dn,
        disabled: person.disabled,
        syncedAt: now,
      });
      const user = await this.users.get(orgId, id, manager);
      if (!created) await this.edits.changeIn(manager, null, user, changesOf(user, person), this.keeper.writer);
      if (person.disabled && !isInactive(user)) await this.lifecycle.deactivateIn(manager, null, user);
      return created ? 'created' : 'updated';
    }
    const user = await this.users.get(orgId, link.userId, manager);
    let outcome: Outcome = 'unchanged';
    const changes = changesOf(user, person);
    if (Object.keys(changes).length > 0) {
      await this.edits.changeIn(manager, null, user, changes, this.keeper.writer);
      outcome = 'updated';
    }
    if (person.disabled && !isInactive(user)) {
      await this.lifecycle.deactivateIn(manager, null, user);
      outcome = 'deactivated';
    } else if (!person.disabled && link.disabled && isInactive(user)) {
      // Only a deactivation the directory caused is undone by it; an administrator's stays.
      await this.lifecycle.reactivateIn(manager, null, user);
      outcome = 'reactivated';
    }
    if (outcome !== 'unchanged' || link.dn !== person.dn || link.disabled !== person.disabled)
      await updateLink(manager, { ...link, dn: person.dn, disabled: person.disabled, syncedAt: now });
    return outcome;
  }

  /**
   * An existing local user of the same name, to link instead of creating one; never a user who holds a role
   * (docs/directories.md: a directory entry must not take over an administrator). Undefined: create one.
   */
  private async newUserFor(manager: EntityManager, target: DirectoryTarget, person: DirectoryPerson): Promise<string | undefined> {
    const [candidate, other] = await linkCandidates(manager, target.row.orgId, 'userName', person.userName);
    if (!candidate) return undefined;
    if (other || candidate.type !== 'human') throw DomainError.alreadyExists(`the user name "${person.userName}" is taken by a user who cannot be linked`);
    const roles = (await this.access.rolesOf(manager, [candidate.id])).get(candidate.id);
    if (roles && (roles.instanceRoles.size > 0 || [...roles.orgRoles.values()].some((r) => r.size > 0)))
      throw DomainError.alreadyExists(`the user name "${person.userName}" belongs to a user who holds a role; such a user is never linked automatically`);
    const linked: { n: number | string }[] = await manager.query('SELECT COUNT(*) AS n FROM directory_users WHERE user_id = ?', [candidate.id]);
    if (Number(linked[0].n) > 0) throw DomainError.alreadyExists(`the user name "${person.userName}" belongs to a user linked to another directory entry`);
    return candidate.id;
  }

  private async create(manager: EntityManager, target: DirectoryTarget, person: DirectoryPerson): Promise<UserEntity> {
    const email = person.email ?? '';
    // The directory vouches for its people's addresses, unless another user of the organization holds it verified.
    const verified = email !== '' && !(await verifiedByAnother(manager, target.row.orgId, email, null));
    return this.users.insertHuman(manager, null, target.row.orgId, newId(), {
      userName: person.userName,
      firstName: person.givenName,
      lastName: person.familyName,
      displayName: person.displayName,
      email,
      isEmailVerified: verified,
      phone: null,
      passwordHash: null,
      origin: { source: 'directory', directoryId: target.row.id },
    });
  }

  async deactivateGone(manager: EntityManager, target: DirectoryTarget, link: DirectoryUserRow): Promise<Outcome | undefined> {
    const user = await this.users.get(target.row.orgId, link.userId, manager).catch(() => undefined);
    if (!user || (isInactive(user) && link.disabled)) return undefined;
    await updateLink(manager, { ...link, disabled: true, syncedAt: Date.now() });
    if (isInactive(user)) return undefined;
    await this.lifecycle.deactivateIn(manager, null, user);
    return 'deactivated';
  }
}

/** What differs between the user and the directory's entry, as a management API change. */
function changesOf(user: UserEntity, person: DirectoryPerson): HumanChanges {
  const changes: HumanChanges = {};
  if (user.userName !== person.userName) changes.userName = person.userName;
  const profile: HumanChanges['profile'] = {};
  if (user.givenName !== person.givenName) profile.firstName = person.givenName;
  if (user.familyName !== person.familyName) profile.lastName = person.familyName;
  if (user.displayName !== person.displayName) profile.displayName = person.displayName;
  if (Object.keys(profile).length > 0) changes.profile = profile;
  if (person.email !== null && user.email !== person.email) changes.email = { email: person.email, isEmailVerified: true };
  return changes;
}
