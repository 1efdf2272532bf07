import type { EntityManager } from 'typeorm';
import { placeholders } from '../database/placeholders.js';

/**
 * The ids of the events at these positions (a position is event search's `sequence`). Event search's
 * records carry no id; a webhook names each message by its event's id (`webhook-id`), the same on
 * every retry and in every process.
 */
export async function eventIdsAt(manager: EntityManager, positions: readonly string[]): Promise<Map<string, string>> {
  if (positions.length === 0) return new Map();
  const rows: { position: number | string; id: string }[] = await manager.query(
    `SELECT position, id FROM events WHERE position IN (${placeholders(positions.length)})`,
    positions.map(Number),
  );
  return new Map(rows.map((row) => [String(row.position), row.id]));
}
