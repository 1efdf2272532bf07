import type { LoggedEvent } from '../../common/events/event-log.js';
import type { TargetSettings } from '../provisioning-settings.js';

/**
 * User events that change nothing a target receives: credentials, sign-ins, tokens, mail — and a lock, which is
 * not a deactivation (docs/provisioning.md, "How it is pushed"). Every other user event marks the user dirty.
 */
const NOTHING_TO_PUSH =
  /^user\.(human\.(password|mfa|invitation|mail|email\.verification)|machine\.(secret|key)|personal\.token|token|impersonated|idp|saml|locked|unlocked)/;

/**
 * The users a run of events marks dirty, each at the position of its latest event (docs/provisioning.md, "How it is pushed": repeated changes
 * coalesce). With a group scope, joining or leaving a chosen group marks the member (its push then finds it in or
 * out of scope).
 */
export function userMarks(events: readonly LoggedEvent[], settings: TargetSettings): Map<string, number> {
  const marks = new Map<string, number>();
  const chosen = new Set(settings.scope.groupIds);
  for (const event of events) {
    if (event.aggregateType === 'user' && !NOTHING_TO_PUSH.test(event.type)) marks.set(event.aggregateId, event.position);
    else if (
      settings.scope.users === 'groups' &&
      (event.type === 'group.member.added' || event.type === 'group.member.removed') &&
      chosen.has(event.aggregateId)
    ) {
      const userId = event.payload?.userId;
      if (typeof userId === 'string') marks.set(userId, event.position);
    }
  }
  return marks;
}

/**
 * The groups a run of events marks dirty (docs/provisioning.md, "Groups"): every event of a group — added, changed, removed, a member
 * added or removed — marks that group; whether the target receives it is decided when it is pushed (a target that
 * stopped pushing groups deletes those it has).  `movedUsers` are members whose place in a group scope changed (they joined or left a chosen group):
 * with `pushGroups: "all"`, their other groups list them or not because of it (the worker marks those).
 */
export function groupMarks(events: readonly LoggedEvent[], settings: TargetSettings): { marks: Map<string, number>; movedUsers: Map<string, number> } {
  const marks = new Map<string, number>();
  const movedUsers = new Map<string, number>();
  const chosen = new Set(settings.scope.groupIds);
  for (const event of events) {
    if (event.aggregateType !== 'group' || !event.type.startsWith('group.')) continue;
    marks.set(event.aggregateId, event.position);
    const userId = event.payload?.userId;
    if (
      settings.pushGroups === 'all' &&
      settings.scope.users === 'groups' &&
      chosen.has(event.aggregateId) &&
      typeof userId === 'string' &&
      event.type.startsWith('group.member.')
    ) {
      movedUsers.set(userId, event.position);
    }
  }
  return { marks, movedUsers };
}

/**
 * The position of the latest removal of a chosen group in a run of events, with a group scope; undefined when none
 * was removed. A removal writes one event without its members (src/users/groups): the target's users are then
 * looked at again (target-worker.ts, `markLeftWithRemovedGroups`).
 */
export function chosenGroupRemovedAt(events: readonly LoggedEvent[], settings: TargetSettings): number | undefined {
  if (settings.scope.users !== 'groups') return undefined;
  const chosen = new Set(settings.scope.groupIds);
  let at: number | undefined;
  for (const event of events) if (event.type === 'group.removed' && chosen.has(event.aggregateId)) at = event.position;
  return at;
}

/** Marks an object at `position` unless a later event already marked it: the latest change decides its place. */
export function markAt(marks: Map<string, number>, id: string, position: number): void {
  marks.set(id, Math.max(marks.get(id) ?? 0, position));
}
