import type { JsonObject } from '../../common/database/columns.js';
import type { TargetSettings } from '../provisioning-settings.js';
import { clearedPaths } from './outbound-user.js';
import type { Answer } from './scim-answer.js';

export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const LIST_RESPONSE_LIMIT = 2;

/** What a push of one object came to. */
export type Outcome =
  | { kind: 'pushed'; remoteId: string; status: number }
  | { kind: 'removed'; status: number }
  | { kind: 'conflict'; status: number; error: string }
  | { kind: 'failed'; answer: Exclude<Answer, { kind: 'ok' }> };

/** What the push of a user needs from the worker: the target's requests, and the user as it is now. */
export interface UserPushContext {
  settings: TargetSettings;
  /** The target's ServiceProviderConfig says `patch.supported`. */
  patch: boolean;
  send(method: string, path: string, body?: unknown, expectBody?: boolean): Promise<Answer>;
  /** The user's document for the target, or undefined when it is gone or outside the target's scope. */
  current(): Promise<JsonObject | undefined>;
  /** The attribute paths the target's User schema declares (outbound-user.ts, declaredPaths); undefined: unknown. */
  declared?: ReadonlySet<string>;
}

/**
 * Brings one user at the target to its current state (docs/provisioning.md, "How it is pushed"), one request at a time. `remoteId` is what the
 * object row knows; `retried` says an earlier attempt may have created it without the answer arriving.
 */
export async function pushUser(ctx: UserPushContext, localId: string, remoteId: string | null, retried: boolean): Promise<Outcome> {
  const doc = await ctx.current();
  // A retry first looks the user up by its externalId: an earlier POST may have created it.
  if (remoteId === null && retried) {
    const found = await lookUp(ctx.send, '/Users', localId);
    if (found.kind === 'failed') return found;
    remoteId = found.id ?? null;
  }
  if (!doc) return remove(ctx, remoteId);
  if (remoteId !== null) {
    const updated = await update(ctx, remoteId, doc);
    // RFC 7644 §3.5: a 404 on update — removed at the target; it is created again.
    if (updated.kind !== 'failed' || updated.answer.kind !== 'not_found') return updated;
  }
  return create(ctx, localId, doc);
}

async function create(ctx: UserPushContext, localId: string, doc: JsonObject): Promise<Outcome> {
  const answer = await ctx.send('POST', '/Users', doc);
  if (answer.kind === 'ok') return pushed(answer);
  if (answer.kind !== 'conflict') return { kind: 'failed', answer };
  // RFC 7644 §3.3: 409 — one exists. Ours (by externalId) is updated; someone else's of the same userName is a
  // conflict that only a reconcile may adopt.
  const found = await lookUp(ctx.send, '/Users', localId);
  if (found.kind === 'failed') return found;
  if (found.id === undefined)
    return {
      kind: 'conflict',
      status: 409,
      error: `the target already has a user named ${String(doc.userName)} that is not this one (adopted only by a reconcile)`,
    };
  return update(ctx, found.id, doc);
}

async function update(ctx: UserPushContext, remoteId: string, doc: JsonObject): Promise<Outcome> {
  const path = `/Users/${encodeURIComponent(remoteId)}`;
  const { schemas, ...attributes } = doc;
  // RFC 7644 §3.5.2.3: a replace without a path replaces each attribute the value names; what was cleared here is
  // removed (§3.5.2.2). PUT replaces the whole user, so what the document lacks goes with it.
  const removals = clearedPaths(doc, ctx.declared).map((p) => ({ op: 'remove', path: p }));
  const answer = ctx.patch
    ? await ctx.send('PATCH', path, { schemas: [PATCH_OP], Operations: [...replacements(attributes), ...removals] }, false)
    : await ctx.send('PUT', path, { schemas, id: remoteId, ...attributes });
  if (answer.kind === 'ok') return { kind: 'pushed', remoteId, status: answer.status };
  return { kind: 'failed', answer };
}

/** Gone, or out of scope: deleted or deactivated at the target as `onRemove` says; a 404 is done. */
async function remove(ctx: UserPushContext, remoteId: string | null): Promise<Outcome> {
  if (remoteId === null) return { kind: 'removed', status: 0 };
  const path = `/Users/${encodeURIComponent(remoteId)}`;
  if (ctx.settings.onRemove === 'delete') {
    const answer = await ctx.send('DELETE', path, undefined, false);
    if (answer.kind === 'ok' || answer.kind === 'not_found') return { kind: 'removed', status: answer.status };
    return { kind: 'failed', answer };
  }
  let answer: Answer;
  if (ctx.patch) {
    answer = await ctx.send('PATCH', path, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }, false);
  } else {
    // PUT replaces the whole user: the target's own copy, with active false.
    const read = await ctx.send('GET', path);
    if (read.kind !== 'ok') answer = read;
    else {
      const { meta: _meta, ...remote } = read.body ?? {};
      answer = await ctx.send('PUT', path, { ...remote, active: false });
    }
  }
  if (answer.kind === 'ok') return { kind: 'pushed', remoteId, status: answer.status };
  if (answer.kind === 'not_found') return { kind: 'removed', status: 404 };
  return { kind: 'failed', answer };
}

/** The target's user (or group, with `/Groups`) whose externalId is the Portcullis id (RFC 7644 §3.4.2.2), if any. */
export async function lookUp(
  send: UserPushContext['send'],
  collection: '/Users' | '/Groups',
  localId: string,
): Promise<{ kind: 'found'; id?: string } | Extract<Outcome, { kind: 'failed' }>> {
  const filter = `externalId eq "${localId.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  // A group is looked up without its members (group-push.ts, WITHOUT_MEMBERS).
  const members = collection === '/Groups' ? '&excludedAttributes=members' : '';
  const answer = await send('GET', `${collection}?filter=${encodeURIComponent(filter)}&count=${LIST_RESPONSE_LIMIT}${members}`);
  if (answer.kind !== 'ok') return { kind: 'failed', answer };
  const resources = Array.isArray(answer.body?.Resources) ? (answer.body!.Resources as { id?: unknown; externalId?: unknown }[]) : [];
  const match = resources.find((r) => r.externalId === localId && typeof r.id === 'string');
  return { kind: 'found', id: match?.id as string | undefined };
}

function pushed(answer: Extract<Answer, { kind: 'ok' }>): Outcome {
  const id = answer.body?.id;
  if (typeof id !== 'string' || id === '')
    return { kind: 'failed', answer: { kind: 'retry', status: answer.status, error: `answered ${answer.status} without the new user's id` } };
  return { kind: 'pushed', remoteId: id, status: answer.status };
}

/**
 * The replace operations of an update: a multi-valued attribute (emails, phone numbers, roles) by its path, which
 * replaces all its values (RFC 7644 §3.5.2.3, "If the target location is a multi-valued attribute and no filter is
 * specified, the attribute and all values are replaced"); the others in one replace without a path. Some targets
 * (scimmy) add a multi-valued attribute's values when it comes without a path, and the user would gain a copy of each
 * value at every update.
 */
function replacements(attributes: JsonObject): JsonObject[] {
  const multi = Object.entries(attributes).filter(([, value]) => Array.isArray(value));
  const single = Object.fromEntries(Object.entries(attributes).filter(([, value]) => !Array.isArray(value)));
  return [{ op: 'replace', value: single }, ...multi.map(([name, value]) => ({ op: 'replace', path: name, value }))];
}
