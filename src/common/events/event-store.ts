import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { insertValues } from '../database/insert-values.js';
import { newId } from '../ids.js';
import { takeEventPositions } from './event-positions.js';
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

/**
 * Appends events inside the caller's transaction, so a change and its event commit or fail together;
 * their positions are taken in commit order (`event-positions.ts`).
 */
@Injectable()
export class EventStore {
  async push(manager: EntityManager, ...events: NewEvent[]): Promise<void> {
    const createdAt = Date.now();
    const rows = events.map((event) => {
      assertNoSecrets(event);
      return [
        newId(),
        event.type,
        event.aggregateType,
        event.aggregateId,
        event.resourceOwner,
        event.editorUserId,
        JSON.stringify(event.payload ?? {}),
        createdAt,
      ];
    });
    await takeEventPositions(manager);
    await insertValues(manager, 'events', EVENT_COLUMNS, rows);
    eventsWritten.inc(rows.length);
  }
}

/**
 * The columns of `events`, in the order of a row; for statements that insert events of other modules' rows.
 * Such a statement runs through `UnitOfWork.writeEvents`, which takes the event positions first.
 */
export const EVENT_COLUMNS = ['id', 'type', 'aggregate_type', 'aggregate_id', 'resource_owner', 'editor_user_id', 'payload', 'created_at'];

/** A guard against a payload that names a secret-looking field: such a bug must fail loudly, not leak. */
function assertNoSecrets(event: NewEvent): void {
  for (const key of Object.keys(event.payload ?? {})) {
    // A project role's `key` names the role (docs/product-rules.md, "Application access"); it opens nothing.
    if (key === 'key' && event.type.startsWith('project.role.')) continue;
    if (SECRET_KEYS.test(key)) throw new Error(`event ${event.type} payload must not carry "${key}"`);
  }
}
