import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { newId } from '../../common/ids.js';
import { foldCase } from '../../common/text/case-fold.js';
import { UserAccess } from '../acting/user-access.service.js';
import { GroupEntity } from '../entities/group.entity.js';
import { GroupMemberEntity } from '../entities/group-member.entity.js';
import { OrganizationEntity } from '../entities/organization.entity.js';
import { validGroupInput } from './group.rules.js';
import type { GroupInput } from './group.rules.js';
import { groupSummaries } from './group.queries.js';
import type { GroupSummary } from './group.queries.js';

/**
 * Groups of an organization's users (docs/product-rules.md, "Groups"): each change and its event in one
 * transaction. A membership change acts on the member (SECURITY.md, "Who may act on whom"): the caller
 * must hold every role the member holds, although a group confers no role today.
 */
@Injectable()
export class GroupsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly access: UserAccess,
  ) {}

  create(editorUserId: string | null, orgId: string, input: GroupInput): Promise<GroupEntity> {
    const { displayName, externalId } = validGroupInput(input);
    return this.uow.run(async (manager) => {
      if (!(await manager.existsBy(OrganizationEntity, { id: orgId }))) throw DomainError.notFound('organization');
      const now = new Date();
      const group = manager.create(GroupEntity, { id: newId(), orgId, displayName, displayNameKey: foldCase(displayName), externalId, createdAt: now, changedAt: now });
      await insertUnique(manager, group);
      await this.events.push(manager, { type: 'group.added', aggregateType: 'group', aggregateId: group.id, resourceOwner: orgId, editorUserId, payload: { displayName, externalId } });
      return group;
    });
  }

  list(orgId: string): Promise<GroupSummary[]> {
    return groupSummaries(this.uow.manager, orgId);
  }

  /** Deletes the group and its memberships (one `group.removed` event; members keep their other groups). */
  remove(editorUserId: string | null, orgId: string, groupId: string): Promise<void> {
    return this.uow.run(async (manager) => {
      const group = await groupOf(manager, orgId, groupId);
      await manager.delete(GroupMemberEntity, { groupId: group.id });
      await manager.delete(GroupEntity, { id: group.id });
      await this.events.push(manager, { type: 'group.removed', aggregateType: 'group', aggregateId: group.id, resourceOwner: orgId, editorUserId, payload: { displayName: group.displayName } });
    });
  }

  /** Adds the user; true when it was not a member yet (adding a member again changes nothing). */
  addMember(editorUserId: string | null, orgId: string, groupId: string, userId: string): Promise<boolean> {
    return this.uow.run(async (manager) => {
      const group = await groupOf(manager, orgId, groupId);
      const user = await this.access.actOn(manager, editorUserId, orgId, userId);
      if (await manager.existsBy(GroupMemberEntity, { groupId: group.id, userId: user.id })) return false;
      try {
        await manager.insert(GroupMemberEntity, { groupId: group.id, userId: user.id, addedAt: new Date() });
      } catch (error) {
        // The same member added by a concurrent request that committed first: already a member.
        if (isUniqueViolation(error)) return false;
        throw error;
      }
      await this.events.push(manager, { type: 'group.member.added', aggregateType: 'group', aggregateId: group.id, resourceOwner: orgId, editorUserId, payload: { userId: user.id } });
      return true;
    });
  }

  /** Removes the user; true when it was a member (removing a non-member changes nothing). */
  removeMember(editorUserId: string | null, orgId: string, groupId: string, userId: string): Promise<boolean> {
    return this.uow.run(async (manager) => {
      const group = await groupOf(manager, orgId, groupId);
      const user = await this.access.actOn(manager, editorUserId, orgId, userId);
      const { affected } = await manager.delete(GroupMemberEntity, { groupId: group.id, userId: user.id });
      if (!affected) return false;
      await this.events.push(manager, { type: 'group.member.removed', aggregateType: 'group', aggregateId: group.id, resourceOwner: orgId, editorUserId, payload: { userId: user.id } });
      return true;
    });
  }
}

async function groupOf(manager: EntityManager, orgId: string, groupId: string): Promise<GroupEntity> {
  const group = await manager.findOneBy(GroupEntity, { id: groupId, orgId });
  if (!group) throw DomainError.notFound('group');
  return group;
}

async function insertUnique(manager: EntityManager, group: GroupEntity): Promise<void> {
  try {
    await manager.insert(GroupEntity, group);
  } catch (error) {
    if (isUniqueViolation(error)) throw DomainError.alreadyExists(`a group named "${group.displayName}" exists in this organization (names are compared case-insensitively)`);
    throw error;
  }
}
