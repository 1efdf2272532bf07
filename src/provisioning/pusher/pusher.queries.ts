import type { EntityManager } from 'typeorm';
import { placeholders } from '../../common/database/placeholders.js';

/** The pusher's SQL on the provisioning tables (src/provisioning owns them). */

export interface DirtyObject {
  kind: 'user' | 'group';
  localId: string;
  remoteId: string | null;
  dirtyPosition: number;
  attempts: number;
  firstAttemptAt: number | null;
}

/** Every enabled target, for the leases: which a process may push to. */
export async function enabledTargetIds(manager: EntityManager): Promise<string[]> {
  const rows: { id: string }[] = await manager.query('SELECT id FROM provisioning_targets WHERE enabled = ?', [1]);
  return rows.map((r) => r.id);
}

/**
 * Marks objects dirty at the position of the event that touched them (a later event moves the mark: repeated changes
 * coalesce into one push of the current state). A failing or conflicting object is tried afresh. `remoteIds`: the
 * remote object each is to be pushed to, as a reconcile found it (src/provisioning/reconcile; null: create it).
 */
export async function markDirty(
  manager: EntityManager,
  targetId: string,
  kind: 'user' | 'group',
  marks: ReadonlyMap<string, number>,
  remoteIds?: ReadonlyMap<string, string | null>,
): Promise<void> {
  for (const [localId, position] of marks) {
    const remote = remoteIds?.has(localId) ? { set: ', remote_id = ?', value: [remoteIds.get(localId) ?? null] } : { set: '', value: [] };
    const [existing]: unknown[] = await manager.query('SELECT 1 AS found FROM provisioning_objects WHERE target_id = ? AND kind = ? AND local_id = ?', [
      targetId,
      kind,
      localId,
    ]);
    if (existing) {
      await manager.query(
        `UPDATE provisioning_objects SET status = 'pending', dirty_position = ?, attempts = 0, first_attempt_at = NULL, next_attempt_at = 0${remote.set} WHERE target_id = ? AND kind = ? AND local_id = ?`,
        [position, ...remote.value, targetId, kind, localId],
      );
    } else {
      await manager.query(
        "INSERT INTO provisioning_objects (target_id, kind, local_id, remote_id, status, dirty_position, attempts, last_status, last_error, first_attempt_at, next_attempt_at, pushed_at) VALUES (?, ?, ?, ?, 'pending', ?, 0, NULL, NULL, NULL, 0, NULL)",
        [targetId, kind, localId, remoteIds?.get(localId) ?? null, position],
      );
    }
  }
}

export async function moveCursor(manager: EntityManager, targetId: string, from: number, to: number): Promise<void> {
  // Only from where the events were read: a change of scope meanwhile set it back to the log's start (target service).
  await manager.query('UPDATE provisioning_targets SET cursor_position = ? WHERE id = ? AND cursor_position = ?', [to, targetId, from]);
}

/**
 * The pending object whose change is oldest and whose retry is due — users before groups (docs/provisioning.md, "Groups": a group
 * lists the remote ids of its members, so the members it waits for go first).
 */
export async function nextDirty(manager: EntityManager, targetId: string, now: number): Promise<DirtyObject | undefined> {
  const [row]: {
    kind: string;
    local_id: string;
    remote_id: string | null;
    dirty_position: number | string;
    attempts: number | string;
    first_attempt_at: number | string | null;
  }[] = await manager.query(
    "SELECT kind, local_id, remote_id, dirty_position, attempts, first_attempt_at FROM provisioning_objects WHERE target_id = ? AND status = 'pending' AND next_attempt_at <= ? ORDER BY CASE WHEN kind = 'user' THEN 0 ELSE 1 END, dirty_position LIMIT 1",
    [targetId, now],
  );
  if (!row) return undefined;
  return {
    kind: row.kind === 'group' ? 'group' : 'user',
    localId: row.local_id,
    remoteId: row.remote_id,
    dirtyPosition: Number(row.dirty_position),
    attempts: Number(row.attempts),
    firstAttemptAt: row.first_attempt_at == null ? null : Number(row.first_attempt_at),
  };
}

/** When the next pending object is due (undefined: none is pending). */
export async function nextDueAt(manager: EntityManager, targetId: string): Promise<number | undefined> {
  const [row]: { due: number | string | null }[] = await manager.query(
    "SELECT MIN(next_attempt_at) AS due FROM provisioning_objects WHERE target_id = ? AND status = 'pending'",
    [targetId],
  );
  return row?.due == null ? undefined : Number(row.due);
}

const KEY = 'target_id = ? AND kind = ? AND local_id = ?';
const key = (targetId: string, o: DirtyObject) => [targetId, o.kind, o.localId];

/** docs/provisioning.md, "How it is pushed": the intent is recorded (committed) before the request is sent; a retry then looks the object up first. */
export async function recordAttempt(manager: EntityManager, targetId: string, o: DirtyObject, now: number): Promise<void> {
  await manager.query(`UPDATE provisioning_objects SET attempts = attempts + 1, first_attempt_at = COALESCE(first_attempt_at, ?) WHERE ${KEY}`, [
    now,
    ...key(targetId, o),
  ]);
}

/**
 * The object is at the target as it was when its push began; if another event touched it meanwhile, it stays pending
 * (pushed again, now without its earlier attempts).
 */
export async function recordPushed(manager: EntityManager, targetId: string, o: DirtyObject, remoteId: string, status: number, now: number): Promise<void> {
  await manager.query(
    `UPDATE provisioning_objects SET remote_id = ?, last_status = ?, last_error = NULL, pushed_at = ?, attempts = 0, first_attempt_at = NULL, next_attempt_at = 0,
       status = CASE WHEN dirty_position = ? THEN 'provisioned' ELSE 'pending' END,
       dirty_position = CASE WHEN dirty_position = ? THEN NULL ELSE dirty_position END
     WHERE ${KEY}`,
    [remoteId, status, now, o.dirtyPosition, o.dirtyPosition, ...key(targetId, o)],
  );
  await manager.query('UPDATE provisioning_targets SET last_success_at = ?, last_error = NULL, state = ? WHERE id = ?', [now, 'active', targetId]);
}

/** The object is gone at the target (deleted, or never there): the row goes, unless another event touched it meanwhile. */
/** Nothing to push and never pushed: the mark goes (unless a newer change marked it again), the target's state stays. */
export async function dropMark(manager: EntityManager, targetId: string, o: DirtyObject): Promise<void> {
  await manager.query(`DELETE FROM provisioning_objects WHERE ${KEY} AND dirty_position = ? AND remote_id IS NULL`, [...key(targetId, o), o.dirtyPosition]);
}

export async function recordRemoved(manager: EntityManager, targetId: string, o: DirtyObject, now: number): Promise<void> {
  await manager.query(`DELETE FROM provisioning_objects WHERE ${KEY} AND dirty_position = ?`, [...key(targetId, o), o.dirtyPosition]);
  await manager.query(`UPDATE provisioning_objects SET remote_id = NULL WHERE ${KEY}`, key(targetId, o));
  await manager.query('UPDATE provisioning_targets SET last_success_at = ?, last_error = NULL, state = ? WHERE id = ?', [now, 'active', targetId]);
}

/**
 * Tried again at `nextAttemptAt`; or, with none, given up (`failing`) until the next change. Also `conflict`. A mark
 * set meanwhile (a change, a reconcile that found the remote object) keeps its remote id and is due at once.
 */
export async function recordFailure(
  manager: EntityManager,
  targetId: string,
  o: DirtyObject,
  outcome: { status: 'pending' | 'failing' | 'conflict'; lastStatus: number | null; error: string; nextAttemptAt?: number; remoteId?: string | null },
): Promise<void> {
  const settled = outcome.status !== 'pending';
  await manager.query(
    `UPDATE provisioning_objects SET last_status = ?, last_error = ?,
       next_attempt_at = CASE WHEN dirty_position = ? THEN ? ELSE 0 END,
       remote_id = CASE WHEN dirty_position = ? THEN ? ELSE remote_id END,
       status = CASE WHEN dirty_position = ? THEN ? ELSE 'pending' END
     WHERE ${KEY}`,
    [
      outcome.lastStatus,
      outcome.error.slice(0, 500),
      o.dirtyPosition,
      outcome.nextAttemptAt ?? 0,
      o.dirtyPosition,
      outcome.remoteId === undefined ? o.remoteId : outcome.remoteId,
      o.dirtyPosition,
      settled ? outcome.status : 'pending',
      ...key(targetId, o),
    ],
  );
  await manager.query('UPDATE provisioning_targets SET last_error = ? WHERE id = ?', [outcome.error.slice(0, 500), targetId]);
}

/** 401/403, or a 429 for the whole target: nothing is sent to it before `until`. */
export async function holdTarget(manager: EntityManager, targetId: string, state: 'active' | 'auth_failed', until: number, error: string): Promise<void> {
  await manager.query('UPDATE provisioning_targets SET state = ?, next_attempt_at = ?, last_error = ? WHERE id = ?', [
    state,
    until,
    error.slice(0, 500),
    targetId,
  ]);
}

/** The target is still enabled and as it was when read at `changedAt` (its settings, secret and scope unchanged). */
export async function targetUnchanged(manager: EntityManager, targetId: string, changedAt: number): Promise<boolean> {
  const [row]: { enabled: number | boolean; changed_at: number | string }[] = await manager.query(
    'SELECT enabled, changed_at FROM provisioning_targets WHERE id = ?',
    [targetId],
  );
  return row !== undefined && Boolean(row.enabled) && Number(row.changed_at) === changedAt;
}

/** Ids per statement: well below SQLite's bound-parameter limit. */
const CHUNK = 5_000;

/** Whether the target has (or had a mark for) any group. */
export async function hasGroups(manager: EntityManager, targetId: string): Promise<boolean> {
  const [row]: unknown[] = await manager.query("SELECT 1 AS found FROM provisioning_objects WHERE target_id = ? AND kind = 'group' LIMIT 1", [targetId]);
  return row !== undefined;
}

/** What the target knows of each of these users: its remote id (null before its creation there) and status. */
export async function userObjects(
  manager: EntityManager,
  targetId: string,
  userIds: readonly string[],
): Promise<Map<string, { remoteId: string | null; status: string }>> {
  const found = new Map<string, { remoteId: string | null; status: string }>();
  for (let i = 0; i < userIds.length; i += CHUNK) {
    const chunk = userIds.slice(i, i + CHUNK);
    const rows: { local_id: string; remote_id: string | null; status: string }[] = await manager.query(
      `SELECT local_id, remote_id, status FROM provisioning_objects WHERE target_id = ? AND kind = 'user' AND local_id IN (${placeholders(chunk.length)})`,
      [targetId, ...chunk],
    );
    for (const row of rows) found.set(row.local_id, { remoteId: row.remote_id, status: row.status });
  }
  return found;
}

/**
 * A group that waits for members not yet at the target (docs/provisioning.md, "Groups"): no request was sent, so no attempt counts.
 * `pending` until `nextAttemptAt`, or `failing` while a member it lists is failing; unless a change marked it
 * meanwhile (then it is due at once).
 */
export async function recordHeld(
  manager: EntityManager,
  targetId: string,
  o: DirtyObject,
  held: { status: 'pending' | 'failing'; error: string; nextAttemptAt: number },
): Promise<void> {
  await manager.query(
    `UPDATE provisioning_objects SET last_status = NULL, last_error = ?,
       status = CASE WHEN dirty_position = ? THEN ? ELSE 'pending' END,
       next_attempt_at = CASE WHEN dirty_position = ? THEN ? ELSE 0 END
     WHERE ${KEY}`,
    [held.error.slice(0, 500), o.dirtyPosition, held.status, o.dirtyPosition, held.nextAttemptAt, ...key(targetId, o)],
  );
}

/**
 * A user got a new remote id (created at the target): the target's groups that list it are pushed again — those
 * that waited for it, and those that listed its former remote id. Their earlier mark, if any, keeps its place.
 */
export async function remarkGroups(manager: EntityManager, targetId: string, groupIds: readonly string[], position: number): Promise<void> {
  for (let i = 0; i < groupIds.length; i += CHUNK) {
    const chunk = groupIds.slice(i, i + CHUNK);
    await manager.query(
      `UPDATE provisioning_objects SET status = 'pending', dirty_position = COALESCE(dirty_position, ?), attempts = 0, first_attempt_at = NULL, next_attempt_at = 0
        WHERE target_id = ? AND kind = 'group' AND local_id IN (${placeholders(chunk.length)})`,
      [position, targetId, ...chunk],
    );
  }
}

/** The users the target has (a remote id), or is about to have (an attempt recorded). */
export async function userObjectIds(manager: EntityManager, targetId: string): Promise<string[]> {
  const rows: { local_id: string }[] = await manager.query(
    "SELECT local_id FROM provisioning_objects WHERE target_id = ? AND kind = 'user' AND (remote_id IS NOT NULL OR attempts > 0)",
    [targetId],
  );
  return rows.map((r) => r.local_id);
}
