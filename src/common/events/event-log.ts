import type { EntityManager } from 'typeorm';
import { placeholders } from '../database/placeholders.js';

/**
 * Reads of the event log by position (a position is event search's `sequence`) for consumers that walk
 * it with a cursor: the webhook dispatcher. Event search itself is src/admin/events.
 */

/**
 * The ids of the events at these positions. Event search's records carry no id; a webhook names each
 * message by its event's id (`webhook-id`), the same on every retry and in every process.
 */
export async function eventIdsAt(manager: EntityManager, positions: readonly string[]): Promise<Map<string, string>> {
  if (positions.length === 0) return new Map();
  const rows: { position: number | string; id: string }[] = await manager.query(
    `SELECT position, id FROM events WHERE position IN (${placeholders(positions.length)})`,
    positions.map(Number),
  );
  return new Map(rows.map((row) => [String(row.position), row.id]));
}

/** The newest position in the log (0 when empty): one index probe, cheap enough to poll. */
export async function lastEventPosition(manager: EntityManager): Promise<number> {
  const [row]: { last: number | string | null }[] = await manager.query('SELECT MAX(position) AS last FROM events');
  return Number(row?.last ?? 0);
}

/** How many of an organization's events lie past `position` (a consumer's lag; ix_events_resource_owner). */
export async function eventsAfter(manager: EntityManager, position: number, resourceOwner: string): Promise<number> {
  const [row]: { n: number | string }[] = await manager.query('SELECT COUNT(*) AS n FROM events WHERE resource_owner = ? AND position > ?', [
    resourceOwner,
    position,
  ]);
  return Number(row?.n ?? 0);
}

/** An event as a cursor over the log needs it: where it is, what it is about. */
export interface LoggedEvent {
  position: number;
  type: string;
  aggregateType: string;
  aggregateId: string;
  payload: Record<string, unknown> | null;
}

/**
 * An organization's events past `position`, oldest first (ix_events_resource_owner). Positions are taken in commit
 * order (event-positions.ts), so no event can later appear below one a reader has passed.
 */
export async function eventsPast(manager: EntityManager, position: number, resourceOwner: string, limit: number): Promise<LoggedEvent[]> {
  const rows: { position: number | string; type: string; aggregate_type: string; aggregate_id: string; payload: string | null }[] = await manager.query(
    'SELECT position, type, aggregate_type, aggregate_id, payload FROM events WHERE resource_owner = ? AND position > ? ORDER BY position LIMIT ?',
    [resourceOwner, position, limit],
  );
  return rows.map((r) => ({
    position: Number(r.position),
    type: r.type,
    aggregateType: r.aggregate_type,
    aggregateId: r.aggregate_id,
    payload: r.payload ? (JSON.parse(r.payload) as Record<string, unknown>) : null,
  }));
}
