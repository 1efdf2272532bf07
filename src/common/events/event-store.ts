import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { insertValues } from '../database/insert-values.js';
import { newId } from '../ids.js';
import { eventsWritten } from '../metrics/metrics.js';
import type { AggregateType, EventType } from './event-types.js';
import type { JsonObject } from '../database/columns.js';

export interface NewEvent {
  type: EventType;
  aggregateType: AggregateType;
  aggregateId: string;
  /** Organization id, or `instance` for instance-level aggregates. */
  resourceOwner: string;
  /** The user whose request caused the change; null for the system itself (bootstrap, timers). */
  editorUserId: string | null;
  /** Never a secret, token or hash. */
  payload?: JsonObject;
}

const SECRET_KEYS = /^(password|hashedPassword|passwordHash|hash|secret|clientSecret|token|accessToken|refreshToken|code|privateKey|key)$/i;

/** Appends events inside the caller's transaction, so a change and its event commit or fail together. */
@Injectable()
export class EventStore {
  async push(manager: EntityManager, ...events: NewEvent[]): Promise<void> {
    const createdAt = Date.now();
    const rows = events.map((event) => {
      assertNoSecrets(event);
      return [newId(), event.type, event.aggregateType, event.aggregateId, event.resourceOwner, event.editorUserId, JSON.stringify(event.payload ?? {}), createdAt];
    });
    await insertValues(manager, 'events', EVENT_COLUMNS, rows);
    eventsWritten.inc(rows.length);
  }

  /**
   * A user's event without payload, caused by the user, as one `INSERT … SELECT` for `UnitOfWork.write`:
   * the organization comes from the user's row in the same statement, and nothing is written (0 rows)
   * when there is no such user (with `onlyActive`, no such active user).
   */
  userEventStatement(type: EventType, userId: string, options: { onlyActive?: boolean } = {}): { sql: string; parameters: unknown[] } {
    // Counted as it is handed out: the statement writes at most this one event.
    eventsWritten.inc();
    return {
      sql: `INSERT INTO events (${EVENT_COLUMNS.join(', ')}) SELECT ?, ?, 'user', id, org_id, id, '{}', ? FROM users WHERE id = ?${options.onlyActive ? " AND state = 'active'" : ''}`,
      parameters: [newId(), type, Date.now(), userId],
    };
  }
}

const EVENT_COLUMNS = ['id', 'type', 'aggregate_type', 'aggregate_id', 'resource_owner', 'editor_user_id', 'payload', 'created_at'];

/** A guard against a payload that names a secret-looking field: such a bug must fail loudly, not leak. */
function assertNoSecrets(event: NewEvent): void {
  for (const key of Object.keys(event.payload ?? {})) {
    if (SECRET_KEYS.test(key)) throw new Error(`event ${event.type} payload must not carry "${key}"`);
  }
}
