import type { EntityManager } from 'typeorm';
import { changedRows } from '../../common/database/changed-rows.js';

/** The SQL of `ssf_streams` and `ssf_sets` (src/signals owns them; docs/architecture.md, "Data"). */

export type StreamStatus = 'enabled' | 'paused' | 'disabled';
export type DeliveryMethod = 'push' | 'poll';

export interface SsfStreamRow {
  id: string;
  orgId: string;
  /** The receiver: an application of the organization; every SET's `aud`. */
  clientId: string;
  delivery: DeliveryMethod;
  endpointUrl: string | null;
  /** Encrypted with the master key; push only. */
  authorizationHeader: string | null;
  eventsRequested: string[];
  description: string | null;
  status: StreamStatus;
  statusReason: string | null;
  /** The last event position turned into SETs (or passed over while disabled). */
  cursor: number;
  failures: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: number;
}

const COLUMNS =
  'id, org_id, client_id, delivery_method, endpoint_url, authorization_header, events_requested, description, status, status_reason, cursor_position, failures, next_attempt_at, last_error, created_at';

function toStream(row: Record<string, unknown>): SsfStreamRow {
  return {
    id: String(row.id),
    orgId: String(row.org_id),
    clientId: String(row.client_id),
    delivery: row.delivery_method === 'poll' ? 'poll' : 'push',
    endpointUrl: (row.endpoint_url as string | null) ?? null,
    authorizationHeader: (row.authorization_header as string | null) ?? null,
    eventsRequested: JSON.parse(String(row.events_requested)) as string[],
    description: (row.description as string | null) ?? null,
    status: row.status as StreamStatus,
    statusReason: (row.status_reason as string | null) ?? null,
    cursor: Number(row.cursor_position),
    failures: Number(row.failures),
    nextAttemptAt: Number(row.next_attempt_at),
    lastError: (row.last_error as string | null) ?? null,
    createdAt: Number(row.created_at),
  };
}

export async function insertStream(manager: EntityManager, row: SsfStreamRow): Promise<void> {
  await manager.query(`INSERT INTO ssf_streams (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, NULL, ?)`, [
    row.id,
    row.orgId,
    row.clientId,
    row.delivery,
    row.endpointUrl,
    row.authorizationHeader,
    JSON.stringify(row.eventsRequested),
    row.description,
    row.status,
    row.statusReason,
    row.cursor,
    row.createdAt,
  ]);
}

export async function streamsOfClient(manager: EntityManager, clientId: string): Promise<SsfStreamRow[]> {
  const rows: Record<string, unknown>[] = await manager.query(`SELECT ${COLUMNS} FROM ssf_streams WHERE client_id = ? ORDER BY created_at, id`, [clientId]);
  return rows.map(toStream);
}

export async function streamById(manager: EntityManager, id: string): Promise<SsfStreamRow | undefined> {
  const [row]: Record<string, unknown>[] = await manager.query(`SELECT ${COLUMNS} FROM ssf_streams WHERE id = ?`, [id]);
  return row && toStream(row);
}

export async function allStreamIds(manager: EntityManager): Promise<string[]> {
  const rows: { id: string }[] = await manager.query('SELECT id FROM ssf_streams');
  return rows.map((row) => row.id);
}

export async function updateStreamConfig(
  manager: EntityManager,
  id: string,
  config: Pick<SsfStreamRow, 'delivery' | 'endpointUrl' | 'authorizationHeader' | 'eventsRequested' | 'description'>,
): Promise<void> {
  await manager.query(
    'UPDATE ssf_streams SET delivery_method = ?, endpoint_url = ?, authorization_header = ?, events_requested = ?, description = ? WHERE id = ?',
    [config.delivery, config.endpointUrl, config.authorizationHeader, JSON.stringify(config.eventsRequested), config.description, id],
  );
}

export async function updateStreamStatus(manager: EntityManager, id: string, status: StreamStatus, reason: string | null): Promise<void> {
  await manager.query('UPDATE ssf_streams SET status = ?, status_reason = ?, next_attempt_at = 0 WHERE id = ?', [status, reason, id]);
}

export async function deleteStream(manager: EntityManager, clientId: string, id: string): Promise<boolean> {
  const removed = (await changedRows(manager, 'DELETE FROM ssf_streams WHERE client_id = ? AND id = ?', [clientId, id])) === 1;
  if (removed) {
    await manager.query('DELETE FROM ssf_sets WHERE stream_id = ?', [id]);
    await manager.query('DELETE FROM ssf_stream_subjects WHERE stream_id = ?', [id]);
  }
  return removed;
}

export async function moveCursor(manager: EntityManager, id: string, cursor: number): Promise<void> {
  await manager.query('UPDATE ssf_streams SET cursor_position = ? WHERE id = ?', [cursor, id]);
}

export async function recordDelivered(manager: EntityManager, id: string): Promise<void> {
  await manager.query('UPDATE ssf_streams SET failures = 0, next_attempt_at = 0, last_error = NULL WHERE id = ?', [id]);
}

export async function recordFailure(manager: EntityManager, id: string, failure: { error: string; nextAttemptAt: number }): Promise<void> {
  await manager.query('UPDATE ssf_streams SET failures = failures + 1, next_attempt_at = ?, last_error = ? WHERE id = ?', [
    failure.nextAttemptAt,
    failure.error,
    id,
  ]);
}

/** A SET owed to a stream, in the order it was made. */
export interface OwedSet {
  seq: number;
  jti: string;
  token: string;
}

/** Appends SETs to a stream's queue; a `jti` already queued (a verification asked twice) is not queued again. */
export async function queueSets(manager: EntityManager, streamId: string, sets: { jti: string; token: string }[], now = Date.now()): Promise<void> {
  if (sets.length === 0) return;
  const [row]: { last: number | string | null }[] = await manager.query('SELECT MAX(seq) AS last FROM ssf_sets WHERE stream_id = ?', [streamId]);
  let seq = Number(row?.last ?? 0);
  for (const set of sets) {
    const [queued]: { n: number | string }[] = await manager.query('SELECT COUNT(*) AS n FROM ssf_sets WHERE stream_id = ? AND jti = ?', [streamId, set.jti]);
    if (Number(queued.n) > 0) continue;
    await manager.query('INSERT INTO ssf_sets (stream_id, seq, jti, token, created_at) VALUES (?, ?, ?, ?, ?)', [streamId, ++seq, set.jti, set.token, now]);
  }
}

export async function owedSets(manager: EntityManager, streamId: string, limit: number): Promise<OwedSet[]> {
  const rows: { seq: number | string; jti: string; token: string }[] = await manager.query(
    'SELECT seq, jti, token FROM ssf_sets WHERE stream_id = ? ORDER BY seq LIMIT ?',
    [streamId, limit],
  );
  return rows.map((r) => ({ seq: Number(r.seq), jti: r.jti, token: r.token }));
}

/** The receiver took (push) or acknowledged (poll) these SETs: they are owed no more. */
export async function dropSets(manager: EntityManager, streamId: string, jtis: readonly string[]): Promise<void> {
  for (const jti of jtis) await manager.query('DELETE FROM ssf_sets WHERE stream_id = ? AND jti = ?', [streamId, jti]);
}
