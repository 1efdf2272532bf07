import type { Answer } from './scim-answer.js';
import { lookUp, PATCH_OP } from './user-push.js';
import type { Outcome, UserPushContext } from './user-push.js';

const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/** A group as the target is to have it: its name and the remote ids of the members it lists there. */
export interface OutboundGroup {
  displayName: string;
  members: readonly string[];
}

/** What the push of a group needs from the worker. */
export interface GroupPushContext {
  patch: boolean;
  send: UserPushContext['send'];
  /** Members one PATCH adds or removes (`PROVISIONING_MEMBERS_PER_PATCH`). */
  membersPerPatch: number;
}

/**
 * Brings one group at the target to its current state (docs/provisioning.md, "Groups"): created with `displayName` and `externalId`
 * (the Portcullis id), then its members as chunked `PATCH` `add`/`remove` of `members` (RFC 7644 §3.5.2.1,
 * §3.5.2.2). The change is computed against the members the target reports (`GET /Groups/{id}`), not against what
 * was sent before: a push cut off between two chunks, or a group edited at the target, converges on the next
 * push. `doc` undefined: the group is gone or no longer pushed to this target; it is deleted there (a 404 is done).
 */
export async function pushGroup(
  ctx: GroupPushContext,
  localId: string,
  remoteId: string | null,
  retried: boolean,
  doc: OutboundGroup | undefined,
): Promise<Outcome> {
  // A retry first looks the group up by its externalId: an earlier POST may have created it.
  if (remoteId === null && retried) {
    const found = await lookUp(ctx.send, '/Groups', localId);
    if (found.kind === 'failed') return found;
    remoteId = found.id ?? null;
  }
  if (!doc) return remove(ctx, remoteId);
  if (remoteId !== null) {
    const read = await ctx.send('GET', groupPath(remoteId));
    if (read.kind === 'ok') return converge(ctx, localId, remoteId, read, doc);
    // RFC 7644 §3.5: a 404 — removed at the target; it is created again.
    if (read.kind !== 'not_found') return { kind: 'failed', answer: read };
  }
  return create(ctx, localId, doc);
}

async function create(ctx: GroupPushContext, localId: string, doc: OutboundGroup): Promise<Outcome> {
  const answer = await ctx.send('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: doc.displayName, externalId: localId });
  if (answer.kind === 'ok') {
    const id = answer.body?.id;
    if (typeof id !== 'string' || id === '')
      return { kind: 'failed', answer: { kind: 'retry', status: answer.status, error: `answered ${answer.status} without the new group's id` } };
    return converge(ctx, localId, id, answer, doc);
  }
  if (answer.kind !== 'conflict') return { kind: 'failed', answer };
  // RFC 7644 §3.3: 409 — one exists. Ours (by externalId) is brought up to date; another of the same displayName
  // is a conflict that only a reconcile may adopt.
  const found = await lookUp(ctx.send, '/Groups', localId);
  if (found.kind === 'failed') return found;
  if (found.id === undefined)
    return {
      kind: 'conflict',
      status: 409,
      error: `the target already has a group named ${doc.displayName} that is not this one (adopted only by a reconcile)`,
    };
  const read = await ctx.send('GET', groupPath(found.id));
  if (read.kind !== 'ok') return { kind: 'failed', answer: read };
  return converge(ctx, localId, found.id, read, doc);
}

/** From the group as the target answered it, to `doc`: its name, then the members it lacks and those it has too many. */
async function converge(
  ctx: GroupPushContext,
  localId: string,
  remoteId: string,
  remote: Extract<Answer, { kind: 'ok' }>,
  doc: OutboundGroup,
): Promise<Outcome> {
  const path = groupPath(remoteId);
  if (!ctx.patch) {
    // Without PATCH, PUT replaces the whole group, members included (RFC 7644 §3.5.1).
    const answer = await ctx.send('PUT', path, {
      schemas: [GROUP_SCHEMA],
      id: remoteId,
      displayName: doc.displayName,
      externalId: localId,
      members: doc.members.map((value) => ({ value })),
    });
    return answer.kind === 'ok' ? { kind: 'pushed', remoteId, status: answer.status } : { kind: 'failed', answer };
  }
  let status = remote.status;
  if (remote.body?.displayName !== doc.displayName) {
    const answer = await ctx.send('PATCH', path, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: doc.displayName }] }, false);
    if (answer.kind !== 'ok') return { kind: 'failed', answer };
    status = answer.status;
  }
  const present = new Set(remoteMembers(remote.body?.members));
  const wanted = new Set(doc.members);
  const operations = [
    ...chunks(
      [...wanted].filter((id) => !present.has(id)),
      ctx.membersPerPatch,
    ).map((ids) => ({ op: 'add', path: 'members', value: ids.map((value) => ({ value })) })),
    // RFC 7644 §3.5.2.2: members are removed by a value filter on the path.
    ...chunks(
      [...present].filter((id) => !wanted.has(id)),
      ctx.membersPerPatch,
    ).map((ids) => ({ op: 'remove', path: `members[${ids.map((id) => `value eq "${quoted(id)}"`).join(' or ')}]` })),
  ];
  for (const operation of operations) {
    const answer = await ctx.send('PATCH', path, { schemas: [PATCH_OP], Operations: [operation] }, false);
    if (answer.kind !== 'ok') return { kind: 'failed', answer };
    status = answer.status;
  }
  return { kind: 'pushed', remoteId, status };
}

async function remove(ctx: GroupPushContext, remoteId: string | null): Promise<Outcome> {
  if (remoteId === null) return { kind: 'removed', status: 0 };
  const answer = await ctx.send('DELETE', groupPath(remoteId), undefined, false);
  if (answer.kind === 'ok' || answer.kind === 'not_found') return { kind: 'removed', status: answer.status };
  return { kind: 'failed', answer };
}

function remoteMembers(members: unknown): string[] {
  if (!Array.isArray(members)) return [];
  return members.map((m) => (m && typeof m === 'object' ? (m as { value?: unknown }).value : undefined)).filter((v): v is string => typeof v === 'string');
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}

/** A string inside a SCIM filter's quotes (RFC 7644 §3.4.2.2: JSON string escaping). */
function quoted(value: string): string {
  return value.replace(/["\\]/g, (c) => `\\${c}`);
}

function groupPath(remoteId: string): string {
  return `/Groups/${encodeURIComponent(remoteId)}`;
}
