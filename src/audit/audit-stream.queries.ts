import type { EntityManager } from 'typeorm';
import { changedRows } from '../common/database/changed-rows.js';
import type { StreamType } from './delivery/stream-url.js';

/** The SQL of `audit_streams` (src/audit owns it; docs/architecture.md, "Data"). */

export interface StreamRow {
  id: string;
  owner: string;
  orgId: string | null;
  name: string;
  type: StreamType;
  url: string;
  caCertificate: string | null;
  eventTypes: string[] | null;
  /** Encrypted; https streams only. */
  secret: string | null;
  /** The last event position delivered. */
  cursor: number;
  /** The sequence and chain of the last record delivered. */
  lastSequence: number;
  lastChain: string;
  failures: number;
  failingSince: number | null;
  nextAttemptAt: number;
  lastError: string | null;
  deliveredAt: number | null;
  createdAt: number;
}

interface RawStream {
  id: string;
  owner: string;
  org_id: string | null;
  name: string;
  type: string;
  url: string;
  ca_certificate: string | null;
  event_types: string | null;
  secret: string | null;
  cursor_position: number | string;
  last_sequence: number | string;
  last_chain: string;
  failures: number | string;
  failing_since: number | string | null;
  next_attempt_at: number | string;
  last_error: string | null;
  delivered_at: number | string | null;
  created_at: number | string;
}

const COLUMNS =
  'id, owner, org_id, name, type, url, ca_certificate, event_types, secret, cursor_position, last_sequence, last_chain, failures, failing_since, next_attempt_at, last_error, delivered_at, created_at';

/** MariaDB's BIGINT columns come back as strings. */
function toStream(row: RawStream): StreamRow {
  const optional = (value: number | string | null) => (value == null ? null : Number(value));
  return {
    id: row.id,
    owner: row.owner,
    orgId: row.org_id,
    name: row.name,
    type: row.type as StreamType,
    url: row.url,
    caCertificate: row.ca_certificate,
    eventTypes: row.event_types == null ? null : (JSON.parse(row.event_types) as string[]),
    secret: row.secret,
    cursor: Number(row.cursor_position),
    lastSequence: Number(row.last_sequence),
    lastChain: row.last_chain,
    failures: Number(row.failures),
    failingSince: optional(row.failing_since),
    nextAttemptAt: Number(row.next_attempt_at),
    lastError: row.last_error,
    deliveredAt: optional(row.delivered_at),
    createdAt: Number(row.created_at),
  };
}

export async function insertStream(manager: EntityManager, row: StreamRow): Promise<void> {
  await manager.query(`INSERT INTO audit_streams (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 0, NULL, 0, NULL, NULL, ?)`, [
    row.id,
    row.owner,
    row.orgId,
    row.name,
    row.type,
    row.url,
    row.caCertificate,
    row.eventTypes == null ? null : JSON.stringify(row.eventTypes),
    row.secret,
    row.cursor,
    row.lastChain,
    row.createdAt,
  ]);
}

export async function streamsOf(manager: EntityManager, owner: string): Promise<StreamRow[]> {
  const rows: RawStream[] = await manager.query(`SELECT ${COLUMNS} FROM audit_streams WHERE owner = ? ORDER BY created_at, id`, [owner]);
  return rows.map(toStream);
}

export async function streamOf(manager: EntityManager, owner: string, id: string): Promise<StreamRow | undefined> {
  const [row]: RawStream[] = await manager.query(`SELECT ${COLUMNS} FROM audit_streams WHERE owner = ? AND id = ?`, [owner, id]);
  return row && toStream(row);
}

export async function streamById(manager: EntityManager, id: string): Promise<StreamRow | undefined> {
  const [row]: RawStream[] = await manager.query(`SELECT ${COLUMNS} FROM audit_streams WHERE id = ?`, [id]);
  return row && toStream(row);
}

export async function streamIds(manager: EntityManager): Promise<string[]> {
  const rows: { id: string }[] = await manager.query('SELECT id FROM audit_streams');
  return rows.map((row) => row.id);
}

/** The fields PATCH changes; where records go next, never where the chain stands. */
export async function updateStreamSettings(
  manager: EntityManager,
  id: string,
  settings: Pick<StreamRow, 'name' | 'url' | 'caCertificate' | 'eventTypes'>,
): Promise<void> {
  await manager.query('UPDATE audit_streams SET name = ?, url = ?, ca_certificate = ?, event_types = ? WHERE id = ?', [
    settings.name,
    settings.url,
    settings.caCertificate,
    settings.eventTypes == null ? null : JSON.stringify(settings.eventTypes),
    id,
  ]);
}

export async function deleteStream(manager: EntityManager, owner: string, id: string): Promise<boolean> {
  return (await changedRows(manager, 'DELETE FROM audit_streams WHERE owner = ? AND id = ?', [owner, id])) === 1;
}

/** A batch was taken: the cursor moves past it, and its last record's sequence and chain are where the next goes on. */
export async function recordDelivered(
  manager: EntityManager,
  id: string,
  progress: { cursor: number; sequence: number; chain: string; at: number },
): Promise<void> {
  await manager.query(
    'UPDATE audit_streams SET cursor_position = ?, last_sequence = ?, last_chain = ?, failures = 0, failing_since = NULL, next_attempt_at = 0, last_error = NULL, delivered_at = ? WHERE id = ?',
    [progress.cursor, progress.sequence, progress.chain, progress.at, id],
  );
}

/** A batch was not taken: it is tried again at `nextAttemptAt`, from the same cursor. */
export async function recordFailure(manager: EntityManager, id: string, failure: { error: string; at: number; nextAttemptAt: number }): Promise<void> {
  await manager.query(
    'UPDATE audit_streams SET failures = failures + 1, failing_since = COALESCE(failing_since, ?), next_attempt_at = ?, last_error = ? WHERE id = ?',
    [failure.at, failure.nextAttemptAt, failure.error, id],
  );
}
