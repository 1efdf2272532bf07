import type { EntityManager } from 'typeorm';
import type { TargetRow } from '../provisioning.queries.js';
import type { OutboundGroup } from './group-push.js';
import type { ProvisionedGroups } from './provisioned-groups.js';
import type { ProvisionedUsers } from './provisioned-users.js';
import { userObjects } from './pusher.queries.js';

/** What the pusher reads a group's state from. */
export interface GroupReads {
  users: ProvisionedUsers;
  groups: ProvisionedGroups;
  manager: EntityManager;
}

export type WantedGroup = { kind: 'none' } | { kind: 'group'; doc: OutboundGroup } | { kind: 'held'; status: 'pending' | 'failing'; error: string };

/** Whether the target receives the group (`pushGroups`; docs/provisioning.md, "Groups"). */
function pushesGroup(target: TargetRow, groupId: string): boolean {
  const { pushGroups, scope } = target.settings;
  return pushGroups === 'all' || (pushGroups === 'scoped' && (scope.users === 'all' || scope.groupIds.includes(groupId)));
}

/**
 * The group as the target is to have it (docs/provisioning.md, "Groups"): `none` when it is gone or not
 * pushed here; else the members in the target's scope, by the remote ids the target gave them. A member in scope
 * that the target does not have yet holds the group back (`failing` while that member is failing or in conflict);
 * members that are not people, or out of scope, are not listed.
 */
export async function wantedGroup(pusher: GroupReads, target: TargetRow, groupId: string): Promise<WantedGroup> {
  const group = pushesGroup(target, groupId) ? await pusher.groups.find(target.orgId, groupId) : undefined;
  if (!group) return { kind: 'none' };
  const { scope } = target.settings;
  let members = await pusher.groups.members(groupId);
  if (scope.users === 'groups') {
    const groupsOf = await pusher.groups.groupsOf(members);
    members = members.filter((userId) => (groupsOf.get(userId) ?? []).some((id) => scope.groupIds.includes(id)));
  }
  const known = await userObjects(pusher.manager, target.id, members);
  const remoteIds: string[] = [];
  const waiting: string[] = [];
  const failing: string[] = [];
  for (const userId of members) {
    const object = known.get(userId);
    if (object?.remoteId) remoteIds.push(object.remoteId);
    // Only people are pushed: a service user in the group is not listed.
    else if ((await pusher.users.find(target.orgId, userId)) === undefined) continue;
    else if (object && (object.status === 'failing' || object.status === 'conflict')) failing.push(userId);
    else waiting.push(userId);
  }
  if (failing.length > 0)
    return { kind: 'held', status: 'failing', error: `held back by ${failing.length} member(s) failing at the target: ${failing.slice(0, 5).join(', ')}` };
  if (waiting.length > 0)
    return { kind: 'held', status: 'pending', error: `waiting for ${waiting.length} member(s) not yet at the target: ${waiting.slice(0, 5).join(', ')}` };
  return { kind: 'group', doc: { displayName: group.displayName, members: remoteIds } };
}
