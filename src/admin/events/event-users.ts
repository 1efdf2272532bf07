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
