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
