import type { EntityManager } from 'typeorm';
import { placeholders } from '../../common/database/placeholders.js';
import type { StreamRow } from '../audit-stream.queries.js';

/** How many events past the stream's cursor it will deliver (its filters applied): its lag, a metric and in its listing. */
export async function eventsPastCursor(manager: EntityManager, stream: Pick<StreamRow, 'cursor' | 'orgId' | 'eventTypes'>): Promise<number> {
  const where = ['position > ?'];
  const params: unknown[] = [stream.cursor];
  if (stream.orgId) {
    where.push('resource_owner = ?');
    params.push(stream.orgId);
  }
  if (stream.eventTypes?.length) {
    where.push(`type IN (${placeholders(stream.eventTypes.length)})`);
    params.push(...stream.eventTypes);
  }
  const [row]: { n: number | string }[] = await manager.query(`SELECT COUNT(*) AS n FROM events WHERE ${where.join(' AND ')}`, params);
  return Number(row?.n ?? 0);
}
