import type { EntityManager } from 'typeorm';
import type { EventStore } from '../../common/events/event-store.js';
import { GroupEntity } from '../entities/group.entity.js';
import { GroupMemberEntity } from '../entities/group-member.entity.js';
import { removeGrantsIn } from '../project-access/grant-removal.js';

/**
 * Deletes a group inside the caller's transaction: its grants, its memberships (members keep their other groups) and
 * the group, with one `group.removed` event. Called where one group is removed and where its organization is.
 */
export async function removeGroupIn(manager: EntityManager, events: EventStore, editorUserId: string | null, group: GroupEntity): Promise<void> {
  await removeGrantsIn(manager, events, editorUserId, { groupId: group.id });
  await manager.delete(GroupMemberEntity, { groupId: group.id });
  await manager.delete(GroupEntity, { id: group.id });
  await events.push(manager, {
    type: 'group.removed',
    aggregateType: 'group',
    aggregateId: group.id,
    resourceOwner: group.orgId,
    editorUserId,
    payload: { displayName: group.displayName },
  });
}
