import type { Answer } from './scim-answer.js';
import { lookUp, PATCH_OP } from './user-push.js';
import type { Outcome, UserPushContext } from './user-push.js';

const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
/**
 * Every read of a remote group leaves its members out (RFC 7644 §3.4.2.5): a group of tens of thousands of members
 * would not fit the 1 MiB answer cap (docs/provisioning.md, "Groups"). Writes carry no such parameter: the answers
 * are not read, and scimmy applies it to the group it patches (dropping every member).
 */
export const WITHOUT_MEMBERS = 'excludedAttributes=members';

/** A group as the target is to have it: its name and the remote ids of the members it lists there. */
export interface OutboundGroup {
  displayName: string;
  members: readonly string[];
}

/** A change of the record of members the target was sent (membership-record.queries.ts). */
export type RecordChange = { added: readonly string[] } | { removed: readonly string[] } | { all: readonly string[] };

/** What the push of a group needs from the worker. */
export interface GroupPushContext {
  patch: boolean;
  send: UserPushContext['send'];
  /** Members one PATCH adds (`PROVISIONING_MEMBERS_PER_PATCH`, and at most the target's `maxValuesPerAttribute`). */
  membersPerPatch: number;
  /** Operations one PATCH carries: the target's `patch.maxOperations` (ServiceProviderConfig), 100 when it says none. */
  maxOperations: number;
  /** The remote ids of the members the target was sent for this group. */
  recorded(): Promise<ReadonlySet<string>>;
  /** Records what the target now lists, after each request that changed it. */
  record(change: RecordChange): Promise<void>;
}

/**
 * Brings one group at the target to its current state (docs/provisioning.md, "Groups"): created with `displayName`
 * and `externalId` (the Portcullis id), then its members as chunked `PATCH` `add`/`remove` of `members` (RFC 7644
 * §3.5.2.1, §3.5.2.2), computed against the record of the members the target was sent — the remote group is never
 * read with its members. Each request that succeeds is recorded before the next, so a push cut off between two
 * chunks goes on from there. `doc` undefined: the group is gone or no longer pushed to this target; it is deleted
 * there (a 404 is done).
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
    const read = await ctx.send('GET', `${groupPath(remoteId)}?${WITHOUT_MEMBERS}`);
    if (read.kind === 'ok') return converge(ctx, localId, remoteId, read, doc);
    // RFC 7644 §3.5: a 404 — removed at the target; it is created again.
    if (read.kind !== 'not_found') return { kind: 'failed', answer: read };
  }
  return create(ctx, localId, doc);
}

async function create(ctx: GroupPushContext, localId: string, doc: OutboundGroup): Promise<Outcome> {
  // A new group lists nobody; recorded before the request, so a retry that finds it (its answer lost) starts from
  // there, and what is recorded after each chunk stays true.
  await ctx.record({ all: [] });
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
  const read = await ctx.send('GET', `${groupPath(found.id)}?${WITHOUT_MEMBERS}`);
  if (read.kind !== 'ok') return { kind: 'failed', answer: read };
  return converge(ctx, localId, found.id, read, doc);
}

/** From the group as the target answered it (without members) and the record of its members, to `doc`. */
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
    const answer = await ctx.send(
      'PUT',
      path,
      { schemas: [GROUP_SCHEMA], id: remoteId, displayName: doc.displayName, externalId: localId, members: doc.members.map((value) => ({ value })) },
      false,
    );
    if (answer.kind !== 'ok') return { kind: 'failed', answer };
    await ctx.record({ all: doc.members });
    return { kind: 'pushed', remoteId, status: answer.status };
  }
  let status = remote.status;
  // A reconcile may point the push at a remote group whose externalId is not (yet) ours.
  const replace = [
    ...(remote.body?.displayName !== doc.displayName ? [{ op: 'replace', path: 'displayName', value: doc.displayName }] : []),
    ...(remote.body?.externalId !== localId ? [{ op: 'replace', path: 'externalId', value: localId }] : []),
  ];
  if (replace.length > 0) {
    const answer = await ctx.send('PATCH', path, { schemas: [PATCH_OP], Operations: replace }, false);
    if (answer.kind !== 'ok') return { kind: 'failed', answer };
    status = answer.status;
  }
  const recorded = await ctx.recorded();
  const wanted = new Set(doc.members);
  const toAdd = [...wanted].filter((id) => !recorded.has(id));
  const toRemove = [...recorded].filter((id) => !wanted.has(id));
  for (const ids of chunks(toAdd, ctx.membersPerPatch)) {
    const answer = await ctx.send(
      'PATCH',
      path,
      { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: ids.map((value) => ({ value })) }] },
      false,
    );
    if (answer.kind !== 'ok') return { kind: 'failed', answer };
    await ctx.record({ added: ids });
    status = answer.status;
  }
  // RFC 7644 §3.5.2.2: one `remove` per member, by a value filter on the path; many in one PATCH. A single filter
  // joining members with `or` is refused by some targets (docs/provisioning.md, "Groups").
  for (const ids of chunks(toRemove, Math.min(ctx.maxOperations, ctx.membersPerPatch))) {
    const Operations = ids.map((id) => ({ op: 'remove', path: `members[value eq "${quoted(id)}"]` }));
    const answer = await ctx.send('PATCH', path, { schemas: [PATCH_OP], Operations }, false);
    if (answer.kind !== 'ok') return { kind: 'failed', answer };
    await ctx.record({ removed: ids });
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

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}

/** A string inside a SCIM filter's quotes (RFC 7644 §3.4.2.2: JSON string escaping). */
export function quoted(value: string): string {
  return value.replace(/["\\]/g, (c) => `\\${c}`);
}

function groupPath(remoteId: string): string {
  return `/Groups/${encodeURIComponent(remoteId)}`;
}
