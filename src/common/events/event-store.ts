import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId } from '../ids.js';
import { EventEntity } from './event.entity.js';
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
    if (events.length === 0) return;
    const now = Date.now();
    const rows = events.map((event) => {
      assertNoSecrets(event);
      return {
        id: newId(),
        type: event.type,
        aggregateType: event.aggregateType,
        aggregateId: event.aggregateId,
        resourceOwner: event.resourceOwner,
        editorUserId: event.editorUserId,
        payload: event.payload ?? {},
        createdAt: new Date(now),
      };
    });
    // Chunked: SQLite caps bound parameters per statement.
    for (let i = 0; i < rows.length; i += 100) {
      await manager.insert(EventEntity, rows.slice(i, i + 100));
    }
  }
}

/** A guard against a payload that names a secret-looking field: such a bug must fail loudly, not leak. */
function assertNoSecrets(event: NewEvent): void {
  for (const key of Object.keys(event.payload ?? {})) {
    if (SECRET_KEYS.test(key)) throw new Error(`event ${event.type} payload must not carry "${key}"`);
  }
}
