import type { EventDto } from '../dto/events.dto.js';

/** The user ids a page of events names: its editors, the users of `user` events and a payload's `userId` (membership events). */
export function mentionedUserIds(events: EventDto[]): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.editor.userId) ids.add(event.editor.userId);
    if (event.aggregate.type.type === 'user') ids.add(event.aggregate.id);
    const target = (event.payload as { userId?: unknown } | null)?.userId;
    if (typeof target === 'string' && target) ids.add(target);
  }
  return [...ids];
}

/** Aggregates whose id is an organization's, a project's, an application's or a group's. */
const NAMED_AGGREGATES = new Set(['org', 'project', 'application', 'group']);

/** Payload keys that hold the id of such an object (a grant's project, a grant's group, an agent's application). */
const NAMED_PAYLOAD_KEYS = ['orgId', 'projectId', 'groupId', 'appId', 'applicationId'] as const;

/**
 * The ids of the organizations, projects, applications and groups a page of events names, so a timeline can say
 * "added Bob to Payroll admins" rather than print the group's id: those aggregates, each event's organization
 * (its resource owner) and the payload keys above.
 */
export function mentionedObjectIds(events: EventDto[]): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    if (NAMED_AGGREGATES.has(event.aggregate.type.type)) ids.add(event.aggregate.id);
    if (event.aggregate.resourceOwner && event.aggregate.resourceOwner !== 'instance') ids.add(event.aggregate.resourceOwner);
    const payload = (event.payload ?? {}) as Record<string, unknown>;
    for (const key of NAMED_PAYLOAD_KEYS) {
      const value = payload[key];
      if (typeof value === 'string' && value) ids.add(value);
    }
  }
  return [...ids];
}
