import type { EntityManager } from 'typeorm';
import { toObject } from '../provisioning.queries.js';
import type { ObjectRow, RawObject } from '../provisioning.queries.js';

/** The SQL of reconcile and retry on `provisioning_objects` (src/provisioning owns it); they mark objects with the pusher's markDirty. */

const KEY = 'target_id = ? AND kind = ? AND local_id = ?';

/** The ids of the users the target's rows know (pushed, pending, failing or in conflict). */
export async function knownUserIds(manager: EntityManager, targetId: string): Promise<Set<string>> {
  const rows: { local_id: string }[] = await manager.query("SELECT local_id FROM provisioning_objects WHERE target_id = ? AND kind = 'user'", [targetId]);
  return new Set(rows.map((r) => r.local_id));
}

/** The ids of the groups the target's rows know. */
export async function knownGroupIds(manager: EntityManager, targetId: string): Promise<Set<string>> {
  const rows: { local_id: string }[] = await manager.query("SELECT local_id FROM provisioning_objects WHERE target_id = ? AND kind = 'group'", [targetId]);
  return new Set(rows.map((r) => r.local_id));
}

/** One object of the target. */
export async function objectOf(manager: EntityManager, targetId: string, kind: 'user' | 'group', localId: string): Promise<ObjectRow | undefined> {
  const [row]: RawObject[] = await manager.query(
    `SELECT kind, local_id, remote_id, status, attempts, last_status, last_error, pushed_at FROM provisioning_objects WHERE ${KEY}`,
    [targetId, kind, localId],
  );
  return row && toObject(row);
}
