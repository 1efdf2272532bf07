import type { EntityManager } from 'typeorm';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import { DomainError } from '../../common/errors/domain-error.js';
import type { JsonObject } from '../../common/database/columns.js';
import type { EventStore, NewEvent } from '../../common/events/event-store.js';
import type { EventType } from '../../common/events/event-types.js';
import { foldCase } from '../../common/text/case-fold.js';
import type { UserAccess } from '../acting/user-access.service.js';
import { GroupEntity } from '../entities/group.entity.js';
import { validGroupInput } from './group.rules.js';
import { allMembers, candidates, deleteMembers, insertMembers, membersAmong, touchGroup } from './group.queries.js';

/** One change of a group; a list of them is applied in order, in one transaction (`GroupsService.edit`). */
export type GroupChange =
  | { kind: 'set'; displayName?: string; externalId?: string | null }
  | { kind: 'add'; userIds: readonly string[] }
  | { kind: 'remove'; userIds: readonly string[] }
  | { kind: 'removeAll' }
  | { kind: 'replace'; userIds: readonly string[] };

export interface GroupEditResult {
  group: GroupEntity;
  added: number;
  removed: number;
  /** Whether anything changed: a name, an external id or a member. */
  changed: boolean;
}

/**
 * Applies changes to one locked group inside the caller's transaction. Adding a member who is in the
 * group, or removing one who is not, changes nothing and records nothing; every real change records its
 * event. Members must be users of the group's organization on whom the editor may act, and a group that holds a
 * project grant changes members only as UserAccess.assertMayChangeMembersOf allows.
 */
export class GroupEdit {
  private added = 0;
  private removed = 0;
  private changed = false;
  /** The users this edit took out of the group: they lose what the group's grants gave (grant-loss.ts). */
  readonly removedUserIds: string[] = [];

  constructor(
    private readonly manager: EntityManager,
    private readonly events: EventStore,
    private readonly access: UserAccess,
    private readonly editorUserId: string | null,
    private readonly group: GroupEntity,
  ) {}

  async apply(changes: readonly GroupChange[]): Promise<GroupEditResult> {
    for (const change of changes) await this.one(change);
    if (this.changed) {
      this.group.changedAt = new Date();
      await touchGroup(this.manager, this.group.id, this.group.changedAt);
    }
    return { group: this.group, added: this.added, removed: this.removed, changed: this.changed };
  }

  private async one(change: GroupChange): Promise<void> {
    switch (change.kind) {
      case 'set':
        return this.set(change.displayName ?? this.group.displayName, change.externalId === undefined ? this.group.externalId : change.externalId);
      case 'add':
        return this.add(change.userIds);
      case 'remove':
        return this.remove(change.userIds);
      case 'removeAll':
        return this.remove(await allMembers(this.manager, this.group.id));
      case 'replace': {
        const wanted = new Set(change.userIds);
        await this.remove((await allMembers(this.manager, this.group.id)).filter((id) => !wanted.has(id)));
        return this.add([...wanted]);
      }
    }
  }

  private async set(displayName: string, externalId: string | null): Promise<void> {
    const valid = validGroupInput({ displayName, externalId });
    if (valid.displayName === this.group.displayName && valid.externalId === this.group.externalId) return;
    const key = foldCase(valid.displayName);
    if (key !== this.group.displayNameKey) {
      const taken = await this.manager.findOneBy(GroupEntity, { orgId: this.group.orgId, displayNameKey: key });
      if (taken) throw DomainError.alreadyExists(`a group named "${valid.displayName}" exists in this organization (names are compared case-insensitively)`);
    }
    try {
      await this.manager.update(GroupEntity, { id: this.group.id }, { displayName: valid.displayName, displayNameKey: key, externalId: valid.externalId });
    } catch (error) {
      // Another group took the name since the check above (a concurrent rename or create).
      if (isUniqueViolation(error)) throw DomainError.alreadyExists(`a group named "${valid.displayName}" exists in this organization`);
      throw error;
    }
    Object.assign(this.group, { displayName: valid.displayName, displayNameKey: key, externalId: valid.externalId });
    this.changed = true;
    await this.events.push(this.manager, this.event('group.changed', { displayName: valid.displayName, externalId: valid.externalId }));
  }

  private async add(userIds: readonly string[]): Promise<void> {
    const requested = [...new Set(userIds)];
    if (requested.length === 0) return;
    const known = await candidates(this.manager, this.group.orgId, this.group.id, requested);
    const unknown = requested.filter((id) => !known.has(id));
    if (unknown.length > 0)
      throw DomainError.invalid(
        `no user of this organization has the id ${unknown
          .slice(0, 5)
          .map((id) => JSON.stringify(id))
          .join(', ')}`,
        [{ field: 'members', message: 'unknown user id' }],
      );
    const fresh = requested.filter((id) => !known.get(id));
    await this.access.assertMayActOnEach(this.manager, this.editorUserId, fresh);
    await this.access.assertMayChangeMembersOf(this.manager, this.editorUserId, this.group, fresh);
    await insertMembers(this.manager, this.group.id, fresh, new Date());
    await this.record('group.member.added', fresh);
    this.added += fresh.length;
    this.changed ||= fresh.length > 0;
  }

  private async remove(userIds: readonly string[]): Promise<void> {
    const present = [...(await membersAmong(this.manager, this.group.id, userIds))];
    await this.access.assertMayActOnEach(this.manager, this.editorUserId, present);
    await this.access.assertMayChangeMembersOf(this.manager, this.editorUserId, this.group, present);
    await deleteMembers(this.manager, this.group.id, present);
    await this.record('group.member.removed', present);
    this.removedUserIds.push(...present);
    this.removed += present.length;
    this.changed ||= present.length > 0;
  }

  /** One event per member, written together. */
  private async record(type: 'group.member.added' | 'group.member.removed', userIds: readonly string[]): Promise<void> {
    if (userIds.length > 0) await this.events.push(this.manager, ...userIds.map((userId) => this.event(type, { userId })));
  }

  private event(type: EventType, payload: JsonObject): NewEvent {
    return { type, aggregateType: 'group', aggregateId: this.group.id, resourceOwner: this.group.orgId, editorUserId: this.editorUserId, payload };
  }
}
