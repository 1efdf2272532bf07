import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { placeholders } from '../../common/database/placeholders.js';
import { EventFeed } from '../../common/events/event-feed.js';
import { AGGREGATE_MESSAGES, EVENT_MESSAGES } from '../../common/events/event-types.js';
import type { JsonObject } from '../../common/database/columns.js';
import type { EventDto, SearchEventsDto } from '../dto/events.dto.js';
import { parseGoDuration } from '../import/go-duration.parser.js';

interface EventRow {
  position: number | string;
  type: string;
  aggregate_type: string;
  aggregate_id: string;
  resource_owner: string;
  editor_user_id: string | null;
  payload: string | null;
  created_at: number | string;
}

/**
 * Event search (docs/product-rules.md, "Import and event search"). Every filter maps onto an index that ends in `position`, so a page
 * costs the same at a million events as at a thousand. One parameterised statement whose rows become
 * records directly: through the query builder and entity hydration a page of 100 cost several times
 * the query itself.
 */
@Injectable()
export class EventSearchService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly feed: EventFeed,
  ) {}

  /**
   * With `wait` (docs/product-rules.md, "Import and event search": the feed): an empty page waits for the next commit and searches again, until
   * something matches or the time is up. The wait is subscribed before each search, so an event that
   * commits between the search and the wait still wakes it.
   */
  async search(query: SearchEventsDto): Promise<EventDto[]> {
    const waitMs = query.wait === undefined ? 0 : parseGoDuration(query.wait)!;
    if (waitMs <= 0) return this.page(query);
    const deadline = Date.now() + waitMs;
    for (;;) {
      const next = this.feed.nextCommit();
      let timer: NodeJS.Timeout | undefined;
      try {
        const events = await this.page(query);
        const left = deadline - Date.now();
        if (events.length > 0 || left <= 0 || this.feed.closed) return events;
        await Promise.race([next.changed, new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
      } finally {
        clearTimeout(timer);
        next.cancel();
      }
    }
  }

  private async page(query: SearchEventsDto): Promise<EventDto[]> {
    const asc = query.asc ?? false;
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, ...values: unknown[]) => (where.push(clause), params.push(...values));
    if (query.event_types?.length) add(`type IN (${placeholders(query.event_types.length)})`, ...query.event_types);
    if (query.aggregate_types?.length) add(`aggregate_type IN (${placeholders(query.aggregate_types.length)})`, ...query.aggregate_types);
    if (query.aggregate_id) add('aggregate_id = ?', query.aggregate_id);
    if (query.resource_owner) add('resource_owner = ?', query.resource_owner);
    if (query.editor_user_id) add('editor_user_id = ?', query.editor_user_id);
    if (query.since) add('created_at >= ?', Date.parse(query.since));
    if (query.until) add('created_at < ?', Date.parse(query.until));
    if (query.sequence !== undefined) add(asc ? 'position > ?' : 'position < ?', Number(query.sequence));
    const rows: EventRow[] = await this.dataSource.query(
      `SELECT position, type, aggregate_type, aggregate_id, resource_owner, editor_user_id, payload, created_at FROM events
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY position ${asc ? 'ASC' : 'DESC'} LIMIT ?`,
      [...params, query.limit ?? 100],
    );
    return rows.map(toDto);
  }
}

function toDto(e: EventRow): EventDto {
  return {
    sequence: String(e.position),
    creationDate: new Date(Number(e.created_at)).toISOString(),
    type: localized('EventTypes', e.type, (EVENT_MESSAGES as Record<string, string>)[e.type]),
    aggregate: {
      id: e.aggregate_id,
      type: localized('AggregateTypes', e.aggregate_type, (AGGREGATE_MESSAGES as Record<string, string>)[e.aggregate_type]),
      resourceOwner: e.resource_owner,
    },
    editor: { userId: e.editor_user_id },
    payload: (e.payload == null ? null : JSON.parse(e.payload)) as JsonObject,
  };
}

function localized(prefix: string, type: string, message: string | undefined) {
  return { type, localized: { key: `${prefix}.${type}`, localizedMessage: message ?? type } };
}
