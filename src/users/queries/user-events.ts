import { EVENT_COLUMNS } from '../../common/events/event-store.js';
import type { EventType } from '../../common/events/event-types.js';
import { newId } from '../../common/ids.js';
import { eventsWritten } from '../../common/metrics/metrics.js';
import { activeUserSql } from '../rules/user-state.js';

/**
 * A user's event without payload, caused by the user, as one `INSERT … SELECT` for `UnitOfWork.writeEvents`:
 * the organization comes from the user's row in the same statement, and nothing is written (0 rows)
 * when there is no such user (with `onlyActive`, no such active user).
 */
export function userEventStatement(type: EventType, userId: string, options: { onlyActive?: boolean } = {}): { sql: string; parameters: unknown[] } {
  // Counted as it is handed out: the statement writes at most this one event.
  eventsWritten.inc();
  return {
    sql: `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) SELECT ?, ?, 'user', id, org_id, id, '{}', ? FROM users WHERE id = ?${options.onlyActive ? ` AND ${activeUserSql()}` : ''}`,
    parameters: [newId(), type, Date.now(), userId],
  };
}
