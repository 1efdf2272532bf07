import type { OnRemove } from '../provisioning-settings.js';
import { CLEARABLE_ATTRIBUTES } from '../pusher/outbound-user.js';
import type { LocalPerson } from './local-people.js';
import type { RemoteUser } from './remote-users.js';

/** One user a reconcile would touch: the Portcullis id, the remote id (none for a create), the userName it has or gets. */
export interface PlanItem {
  localId: string;
  remoteId: string | null;
  userName: string;
}

/** What a reconcile would do (docs/provisioning.md, "Reconcile"): each list names the users it touches. */
export interface ReconcilePlan {
  create: PlanItem[];
  update: PlanItem[];
  deactivate: PlanItem[];
  delete: PlanItem[];
  adopt: PlanItem[];
}

export const PLAN_ACTIONS = ['create', 'update', 'deactivate', 'delete', 'adopt'] as const;

/**
 * The plan for a target from what it holds (`remote`), the organization's people (`people`: in scope with the
 * document they would receive, or out of it) and the user objects the target's rows know (`known`: pushed before,
 * perhaps since removed here):
 * - create: in scope, at the target neither by externalId nor adoptable by userName;
 * - update: at the target by externalId, differing in something that is pushed;
 * - adopt: not at the target by externalId, but a user of the same userName (compared case-insensitively,
 *   RFC 7643 §4.1.1) without an externalId is — the reconcile sets the externalId and updates it;
 * - deactivate / delete (as `onRemove` says): at the target with an externalId that is ours — a person of the
 *   organization, or an object the target's rows know — but out of scope or gone; an inactive one needs no
 *   deactivation. Remote users whose externalId is someone else's are left alone.
 */
export function planOf(remote: readonly RemoteUser[], people: readonly LocalPerson[], known: ReadonlySet<string>, onRemove: OnRemove): ReconcilePlan {
  const plan: ReconcilePlan = { create: [], update: [], deactivate: [], delete: [], adopt: [] };
  const byExternalId = new Map<string, RemoteUser>();
  const unclaimedByName = new Map<string, RemoteUser>();
  for (const user of remote) {
    if (user.externalId !== undefined) {
      if (!byExternalId.has(user.externalId)) byExternalId.set(user.externalId, user);
    } else if (user.userName !== undefined && !unclaimedByName.has(user.userName.toLowerCase())) {
      unclaimedByName.set(user.userName.toLowerCase(), user);
    }
  }
  const inScope = new Set<string>();
  for (const person of people) {
    if (!person.doc) continue;
    inScope.add(person.id);
    const userName = String(person.doc.userName);
    const there = byExternalId.get(person.id);
    if (there) {
      if (!contains(person.doc, there.resource)) plan.update.push({ localId: person.id, remoteId: there.id, userName });
      continue;
    }
    const namesake = unclaimedByName.get(userName.toLowerCase());
    if (namesake) {
      // One remote user is adopted by one person at most.
      unclaimedByName.delete(userName.toLowerCase());
      plan.adopt.push({ localId: person.id, remoteId: namesake.id, userName });
    } else {
      plan.create.push({ localId: person.id, remoteId: null, userName });
    }
  }
  const ours = new Set([...people.map((p) => p.id), ...known]);
  for (const user of byExternalId.values()) {
    const localId = user.externalId!;
    if (inScope.has(localId) || !ours.has(localId)) continue;
    const item = { localId, remoteId: user.id, userName: user.userName ?? '' };
    if (onRemove === 'delete') plan.delete.push(item);
    else if (user.resource.active !== false) plan.deactivate.push(item);
  }
  return plan;
}

/**
 * Whether the target's user already holds what would be pushed: every attribute of the document, compared as a
 * subset (a target may add attributes of its own, `meta`, or sub-attributes we do not send), multi-valued ones as
 * sets. `schemas` is the
 * document's envelope; `userName` is compared case-insensitively (RFC 7643 §4.1.1, caseExact false).
 */
export function contains(doc: Record<string, unknown>, remote: Record<string, unknown>): boolean {
  // An attribute cleared here that the target still holds differs (pusher/outbound-user.ts removes it).
  if (CLEARABLE_ATTRIBUTES.some((key) => (doc[key] === undefined || doc[key] === null) && remote[key] !== undefined && remote[key] !== null)) return false;
  return Object.entries(doc).every(([key, value]) => {
    if (key === 'schemas') return true;
    if (key === 'userName') return typeof remote.userName === 'string' && String(value).toLowerCase() === remote.userName.toLowerCase();
    return subset(value, remote[key]);
  });
}

function subset(ours: unknown, theirs: unknown): boolean {
  if (ours === null || ours === undefined) return theirs === null || theirs === undefined;
  // Multi-valued attributes are unordered (RFC 7643 §2.4) and compared as sets: each value we push is there, and
  // each value there is one we push (a value repeated there adds nothing: some targets append on a replace).
  if (Array.isArray(ours))
    return Array.isArray(theirs) && ours.every((item) => theirs.some((t) => subset(item, t))) && theirs.every((t) => ours.some((item) => subset(item, t)));
  if (typeof ours === 'object') {
    if (!theirs || typeof theirs !== 'object' || Array.isArray(theirs)) return false;
    return Object.entries(ours as Record<string, unknown>).every(([key, value]) => subset(value, (theirs as Record<string, unknown>)[key]));
  }
  return ours === theirs;
}
