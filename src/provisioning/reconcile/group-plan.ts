import type { OutboundGroup } from '../pusher/group-push.js';
import type { RemoteGroup } from './remote-groups.js';

/** One group a reconcile would touch: the Portcullis id, the remote id (none for a create), its name. */
export interface GroupPlanItem {
  localId: string;
  remoteId: string | null;
  displayName: string;
}

/** What a reconcile would do to groups (docs/provisioning.md, "Reconcile"). */
export interface GroupPlan {
  create: GroupPlanItem[];
  update: GroupPlanItem[];
  delete: GroupPlanItem[];
}

export const GROUP_PLAN_ACTIONS = ['create', 'update', 'delete'] as const;

/** A group of the organization as a reconcile sees it: what the target is to hold, if it receives it now. */
export interface LocalGroup {
  id: string;
  /** Undefined: not pushed to this target, or waiting for members (its push is pending anyway). */
  doc: OutboundGroup | undefined;
  /** Pushed to this target but waiting for members: left alone. */
  held: boolean;
}

/**
 * The group plan from the target's groups (read without members), the organization's groups, the groups the
 * target's rows know, and which of the target's groups list other members than they should (`membersDiffer`,
 * from the rebuilt record):
 * - create: pushed here, not at the target by externalId;
 * - update: at the target by externalId, with another `displayName`, or other members;
 * - delete: at the target with an externalId of ours (a group of the organization, or one the rows know) that is
 *   gone or no longer pushed here. Groups whose externalId is someone else's are left alone.
 */
export function planGroups(
  remote: readonly RemoteGroup[],
  local: readonly LocalGroup[],
  known: ReadonlySet<string>,
  membersDiffer: ReadonlySet<string>,
): GroupPlan {
  const plan: GroupPlan = { create: [], update: [], delete: [] };
  const byExternalId = new Map<string, RemoteGroup>();
  for (const group of remote) if (group.externalId !== undefined && !byExternalId.has(group.externalId)) byExternalId.set(group.externalId, group);
  const pushed = new Set<string>();
  for (const group of local) {
    if (group.held) {
      pushed.add(group.id);
      continue;
    }
    if (!group.doc) continue;
    pushed.add(group.id);
    const there = byExternalId.get(group.id);
    const item = { localId: group.id, remoteId: there?.id ?? null, displayName: group.doc.displayName };
    if (!there) plan.create.push(item);
    else if (there.displayName !== group.doc.displayName || membersDiffer.has(group.id)) plan.update.push(item);
  }
  const ours = new Set([...local.map((g) => g.id), ...known]);
  for (const group of byExternalId.values()) {
    const localId = group.externalId!;
    if (pushed.has(localId) || !ours.has(localId)) continue;
    plan.delete.push({ localId, remoteId: group.id, displayName: group.displayName ?? '' });
  }
  return plan;
}
