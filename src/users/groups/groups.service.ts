import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { newId } from '../../common/ids.js';
import { foldCase } from '../../common/text/case-fold.js';
import type { JsonObject } from '../../common/database/columns.js';
import { UserAccess } from '../acting/user-access.service.js';
import { SyncedFields } from '../synced-fields.js';
import type { SyncedWriter } from '../synced-fields.js';
import { GroupEntity } from '../entities/group.entity.js';
import { OrganizationEntity } from '../entities/organization.entity.js';
import { GroupEdit } from './group-edit.js';
import { GrantLoss } from '../project-access/grant-loss.js';
import { removeGroupIn } from './group-removal.js';
import type { GroupChange, GroupEditResult } from './group-edit.js';
import { validGroupInput } from './group.rules.js';
import type { GroupInput } from './group.rules.js';
import { allMembers, findGroup, groupSummaries, pageOfMembers } from './group.queries.js';
import type { GroupMember, GroupSummary } from './group.queries.js';
import { likeContains } from '../../common/database/name-search.js';
import type { Page } from '../../common/database/page.js';
import { projectsGrantedToGroupsOf } from '../project-access/grant.queries.js';

/**
 * Groups of an organization's users (docs/product-rules.md, "Groups"): each change and its events in one
 * transaction. A membership change acts on the member (SECURITY.md, "Who may act on whom"): the caller
 * must hold every role the member holds; in a group that holds a project grant it is also a grant, which
 * only some callers may make (docs/application-access.md, "Groups that hold a grant").
 */
@Injectable()
export class GroupsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly access: UserAccess,
    private readonly loss: GrantLoss,
    private readonly synced: SyncedFields,
  ) {}

  /** A new group, with its first members when given (one transaction: all of it or nothing). */
  create(editorUserId: string | null, orgId: string, input: GroupInput, memberIds: readonly string[] = []): Promise<GroupEntity> {
    return this.uow.run((manager) => this.createIn(manager, editorUserId, orgId, input, memberIds));
  }

  /**
   * `create` inside the caller's transaction. `origin`: where the group comes from, told in its `group.added` event
   * (a directory's sync: `{source: "directory", directoryId}`).
   */
  async createIn(
    manager: EntityManager,
    editorUserId: string | null,
    orgId: string,
    input: GroupInput,
    memberIds: readonly string[] = [],
    origin: JsonObject = {},
  ): Promise<GroupEntity> {
    const { displayName, externalId } = validGroupInput(input);
    if (!(await manager.existsBy(OrganizationEntity, { id: orgId }))) throw DomainError.notFound('organization');
    const now = new Date();
    const group = manager.create(GroupEntity, {
      id: newId(),
      orgId,
      displayName,
      displayNameKey: foldCase(displayName),
      externalId,
      createdAt: now,
      changedAt: now,
    });
    await insertUnique(manager, group);
    await this.events.push(manager, {
      type: 'group.added',
      aggregateType: 'group',
      aggregateId: group.id,
      resourceOwner: orgId,
      editorUserId,
      payload: { displayName, externalId, ...origin },
    });
    if (memberIds.length > 0) await new GroupEdit(manager, this.events, this.access, editorUserId, group).apply([{ kind: 'add', userIds: memberIds }]);
    return group;
  }

  get(orgId: string, groupId: string): Promise<GroupEntity> {
    return groupOf(this.uow.manager, orgId, groupId);
  }

  /** Each group with its member count and the projects it holds a grant of (whose members only some may change). */
  async list(orgId: string): Promise<(GroupSummary & { grantProjects: { id: string; name: string }[] })[]> {
    const [groups, granted] = await Promise.all([groupSummaries(this.uow.manager, orgId), projectsGrantedToGroupsOf(this.uow.manager, orgId)]);
    return groups.map((group) => ({ ...group, grantProjects: granted.get(group.id) ?? [] }));
  }

  /** A page of a group of the organization's members by user name; with `query`, those whose names or e-mail contain it. */
  async members(orgId: string, groupId: string, query: string | undefined, page: Page): Promise<{ total: number; members: GroupMember[] }> {
    if (!(await findGroup(this.uow.manager, orgId, groupId))) throw DomainError.notFound('group');
    return pageOfMembers(this.uow.manager, groupId, query ? likeContains(query) : undefined, page);
  }

  /** Applies the changes in order, all or nothing; concurrent edits of one group queue behind each other. */
  edit(editorUserId: string | null, orgId: string, groupId: string, changes: readonly GroupChange[]): Promise<GroupEditResult> {
    return this.uow.run((manager) => this.editIn(manager, editorUserId, orgId, groupId, changes));
  }

  /**
   * `edit` inside the caller's transaction. A group another system keeps (a directory's) is a 409 naming it, unless
   * `writer` is that system's own (synced-fields.ts).
   */
  async editIn(
    manager: EntityManager,
    editorUserId: string | null,
    orgId: string,
    groupId: string,
    changes: readonly GroupChange[],
    writer?: SyncedWriter,
  ): Promise<GroupEditResult> {
    const group = await lockedGroupOf(manager, orgId, groupId);
    await this.synced.assertMayChangeGroup(manager, group.id, writer);
    return this.applyEdit(manager, editorUserId, group, changes);
  }

  /** Deletes the group and its memberships (one `group.removed` event; members keep their other groups). */
  remove(editorUserId: string | null, orgId: string, groupId: string): Promise<void> {
    return this.uow.run((manager) => this.removeIn(manager, editorUserId, orgId, groupId));
  }

  /** `remove` inside the caller's transaction; a kept group as in `editIn`. */
  async removeIn(manager: EntityManager, editorUserId: string | null, orgId: string, groupId: string, writer?: SyncedWriter): Promise<void> {
    const group = await groupOf(manager, orgId, groupId);
    await this.synced.assertMayChangeGroup(manager, group.id, writer);
    const members = await allMembers(manager, group.id);
    await removeGroupIn(manager, this.events, editorUserId, group);
    await this.loss.ended(manager, { userIds: members }, editorUserId);
  }

  /** Adds one user, named by the caller (404 outside the organization); true when it was not a member yet. */
  addMember(editorUserId: string | null, orgId: string, groupId: string, userId: string): Promise<boolean> {
    return this.changeOne(editorUserId, orgId, groupId, userId, 'add').then((r) => r.added === 1);
  }

  /** Removes one user (404 outside the organization); true when it was a member. */
  removeMember(editorUserId: string | null, orgId: string, groupId: string, userId: string): Promise<boolean> {
    return this.changeOne(editorUserId, orgId, groupId, userId, 'remove').then((r) => r.removed === 1);
  }

  private changeOne(editorUserId: string | null, orgId: string, groupId: string, userId: string, kind: 'add' | 'remove'): Promise<GroupEditResult> {
    return this.uow.run(async (manager) => {
      const group = await lockedGroupOf(manager, orgId, groupId);
      await this.synced.assertMayChangeGroup(manager, group.id);
      await this.access.actOn(manager, editorUserId, orgId, userId);
      return this.applyEdit(manager, editorUserId, group, [{ kind, userIds: [userId] }]);
    });
  }

  /** One edit; the members it removed lose what the group's grants gave them, in the same transaction (grant-loss.ts). */
  private async applyEdit(manager: EntityManager, editorUserId: string | null, group: GroupEntity, changes: readonly GroupChange[]): Promise<GroupEditResult> {
    const edit = new GroupEdit(manager, this.events, this.access, editorUserId, group);
    const result = await edit.apply(changes);
    await this.loss.ended(manager, { userIds: edit.removedUserIds }, editorUserId);
    return result;
  }
}

async function groupOf(manager: EntityManager, orgId: string, groupId: string): Promise<GroupEntity> {
  const group = await manager.findOneBy(GroupEntity, { id: groupId, orgId });
  if (!group) throw DomainError.notFound('group');
  return group;
}

/**
 * The group, its row locked until the transaction ends (MySQL/MariaDB; SQLite has one writer anyway), so
 * concurrent edits of one group are applied one after the other and none is lost. Read first in the
 * transaction: InnoDB's snapshot starts at the first plain read, which then sees the previous edit.
 */
async function lockedGroupOf(manager: EntityManager, orgId: string, groupId: string): Promise<GroupEntity> {
  if (manager.connection.options.type !== 'mysql') return groupOf(manager, orgId, groupId);
  const group = await manager.findOne(GroupEntity, { where: { id: groupId, orgId }, lock: { mode: 'pessimistic_write' } });
  if (!group) throw DomainError.notFound('group');
  return group;
}

async function insertUnique(manager: EntityManager, group: GroupEntity): Promise<void> {
  try {
    await manager.insert(GroupEntity, group);
  } catch (error) {
    if (isUniqueViolation(error))
      throw DomainError.alreadyExists(`a group named "${group.displayName}" exists in this organization (names are compared case-insensitively)`);
    throw error;
  }
}
