import { In } from 'typeorm';
import type { EntityManager } from 'typeorm';
import type { EventStore, NewEvent } from '../../common/events/event-store.js';
import { ProjectGrantEntity } from './project-grant.entity.js';

/**
 * Removes the grants of a user, a group or a project inside the caller's transaction, each with its
 * `project.grant.removed` event: called where users, groups and projects are removed (the foreign keys would
 * drop the rows too, but silently).
 */
export async function removeGrantsIn(
  manager: EntityManager,
  events: EventStore,
  editorUserId: string | null,
  of: { userId: string } | { groupId: string } | { projectId: string },
): Promise<void> {
  const grants = await manager.find(ProjectGrantEntity, { where: of, order: { id: 'ASC' } });
  if (grants.length === 0) return;
  await manager.delete(ProjectGrantEntity, { id: In(grants.map((g) => g.id)) });
  await events.push(manager, ...grants.map((grant) => grantRemovedEvent(editorUserId, grant)));
}

export function grantRemovedEvent(editorUserId: string | null, grant: ProjectGrantEntity): NewEvent {
  return {
    type: 'project.grant.removed',
    aggregateType: 'grant',
    aggregateId: grant.id,
    resourceOwner: grant.orgId,
    editorUserId,
    payload: { projectId: grant.projectId, ...(grant.userId !== null ? { userId: grant.userId } : { groupId: grant.groupId }) },
  };
}

export function grantChangedEvent(editorUserId: string | null, grant: ProjectGrantEntity, roles: string[]): NewEvent {
  return {
    type: 'project.grant.changed',
    aggregateType: 'grant',
    aggregateId: grant.id,
    resourceOwner: grant.orgId,
    editorUserId,
    // Whom it reaches, as on its other events: a target pushing these roles re-pushes them (docs/provisioning.md, "Roles").
    payload: { projectId: grant.projectId, ...(grant.userId !== null ? { userId: grant.userId } : { groupId: grant.groupId }), roles },
  };
}
