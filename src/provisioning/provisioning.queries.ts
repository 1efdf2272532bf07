import type { EntityManager } from 'typeorm';
import { cursorStateOf } from '../common/operations/cursor-columns.js';
import type { CursorState, RawCursorColumns } from '../common/operations/cursor-columns.js';
import type { ObjectStatus, TargetSettings } from './provisioning-settings.js';

/** The SQL of the provisioning tables (src/provisioning owns them; docs/architecture.md, "Data"). */

export interface TargetRow extends CursorState {
  id: string;
  orgId: string;
  name: string;
  baseUrl: string;
  settings: TargetSettings;
  /** Encrypted. */
  secret: string;
  enabled: boolean;
  /** `active`, or `auth_failed` after a 401/403. */
  state: 'active' | 'auth_failed';
  lastSuccessAt: number | null;
  lastError: string | null;
  changedAt: number;
}

interface RawTarget extends RawCursorColumns {
  id: string;
  org_id: string;
  name: string;
  base_url: string;
  settings: string;
  secret: string;
  enabled: number | string | boolean;
  state: string;
  last_success_at: number | string | null;
  last_error: string | null;
  changed_at: number | string;
}

const TARGET_COLUMNS =
  'id, org_id, name, base_url, settings, secret, enabled, state, cursor_position, next_attempt_at, last_success_at, last_error, created_at, changed_at';

function toTarget(row: RawTarget): TargetRow {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    baseUrl: row.base_url,
    settings: JSON.parse(row.settings) as TargetSettings,
    secret: row.secret,
    enabled: Boolean(Number(row.enabled)),
    state: row.state === 'auth_failed' ? 'auth_failed' : 'active',
    ...cursorStateOf(row),
    lastSuccessAt: row.last_success_at == null ? null : Number(row.last_success_at),
    lastError: row.last_error,
    changedAt: Number(row.changed_at),
  };
}

export async function insertTarget(manager: EntityManager, row: TargetRow): Promise<void> {
  await manager.query(
    `INSERT INTO provisioning_targets (id, org_id, name, base_url, settings, secret, enabled, state, cursor_position, next_attempt_at, last_success_at, last_error, created_at, changed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, NULL, NULL, ?, ?)`,
    [
      row.id,
      row.orgId,
      row.name,
      row.baseUrl,
      JSON.stringify(row.settings),
      row.secret,
      row.enabled ? 1 : 0,
      row.state,
      row.cursor,
      row.createdAt,
      row.changedAt,
    ],
  );
}

/** Changes what the API sets; a changed target starts afresh (`active`, no back-off): its owner may have fixed it. */
export async function updateTarget(manager: EntityManager, row: TargetRow): Promise<void> {
  await manager.query(
    "UPDATE provisioning_targets SET name = ?, base_url = ?, settings = ?, secret = ?, enabled = ?, cursor_position = ?, state = 'active', next_attempt_at = 0, changed_at = ? WHERE id = ? AND org_id = ?",
    [row.name, row.baseUrl, JSON.stringify(row.settings), row.secret, row.enabled ? 1 : 0, row.cursor, row.changedAt, row.id, row.orgId],
  );
}

/** The organization's targets (one, with `id`), oldest first. */
export async function targetsOf(manager: EntityManager, orgId: string, id?: string): Promise<TargetRow[]> {
  const rows: RawTarget[] = await manager.query(
    `SELECT ${TARGET_COLUMNS} FROM provisioning_targets WHERE org_id = ?${id === undefined ? '' : ' AND id = ?'} ORDER BY created_at, id`,
    id === undefined ? [orgId] : [orgId, id],
  );
  return rows.map(toTarget);
}

/** Removes a target and what it knows of its objects; false when the organization has no such target. */
export async function deleteTarget(manager: EntityManager, orgId: string, id: string): Promise<boolean> {
  const [found]: unknown[] = await manager.query('SELECT 1 AS found FROM provisioning_targets WHERE id = ? AND org_id = ?', [id, orgId]);
  if (!found) return false;
  await manager.query('DELETE FROM provisioning_members WHERE target_id = ?', [id]);
  await manager.query('DELETE FROM provisioning_objects WHERE target_id = ?', [id]);
  await manager.query('DELETE FROM provisioning_targets WHERE id = ? AND org_id = ?', [id, orgId]);
  return true;
}

// ——— objects ———

export interface ObjectRow {
  kind: 'user' | 'group';
  localId: string;
  remoteId: string | null;
  status: ObjectStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  pushedAt: number | null;
}

export interface RawObject {
  kind: string;
  local_id: string;
  remote_id: string | null;
  status: string;
  attempts: number | string;
  last_status: number | string | null;
  last_error: string | null;
  pushed_at: number | string | null;
}

export function toObject(row: RawObject): ObjectRow {
  return {
    kind: row.kind === 'group' ? 'group' : 'user',
    localId: row.local_id,
    remoteId: row.remote_id,
    status: row.status as ObjectStatus,
    attempts: Number(row.attempts),
    lastStatus: row.last_status == null ? null : Number(row.last_status),
    lastError: row.last_error,
    pushedAt: row.pushed_at == null ? null : Number(row.pushed_at),
  };
}

/** How many of the target's objects are in each status. */
export async function objectCounts(manager: EntityManager, targetId: string): Promise<Record<ObjectStatus, number>> {
  const rows: { status: string; n: number | string }[] = await manager.query(
    'SELECT status, COUNT(*) AS n FROM provisioning_objects WHERE target_id = ? GROUP BY status',
    [targetId],
  );
  const counts: Record<ObjectStatus, number> = { provisioned: 0, pending: 0, failing: 0, conflict: 0 };
  for (const row of rows) if (row.status in counts) counts[row.status as ObjectStatus] = Number(row.n);
  return counts;
}

/** A page of the target's objects (of one status, if given), oldest change first, and how many there are. */
export async function objectsOf(
  manager: EntityManager,
  targetId: string,
  status: ObjectStatus | undefined,
  limit: number,
  offset: number,
): Promise<{ objects: ObjectRow[]; total: number }> {
  const where = `target_id = ?${status === undefined ? '' : ' AND status = ?'}`;
  const params = status === undefined ? [targetId] : [targetId, status];
  const rows: RawObject[] = await manager.query(
    `SELECT kind, local_id, remote_id, status, attempts, last_status, last_error, pushed_at FROM provisioning_objects WHERE ${where} ORDER BY kind, local_id LIMIT ? OFFSET ?`,
    [...params, limit, offset],
  );
  const [total]: { n: number | string }[] = await manager.query(`SELECT COUNT(*) AS n FROM provisioning_objects WHERE ${where}`, params);
  return { objects: rows.map(toObject), total: Number(total?.n ?? 0) };
}

export async function targetById(manager: EntityManager, id: string): Promise<TargetRow | undefined> {
  const [row]: RawTarget[] = await manager.query(`SELECT ${TARGET_COLUMNS} FROM provisioning_targets WHERE id = ?`, [id]);
  return row && toTarget(row);
}
