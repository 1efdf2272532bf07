import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventEntity } from '../../common/events/event.entity.js';
import { AGGREGATE_MESSAGES, EVENT_MESSAGES } from '../../common/events/event-types.js';
import type { JsonObject } from '../../common/database/columns.js';
import type { EventDto, SearchEventsDto } from '../dto/events.dto.js';

/**
 * Event search (spec §C, DESIGN §4). Every filter maps onto an index that ends in `position`, so a page
 * costs the same at a million events as at a thousand.
 */
@Injectable()
export class EventSearchService {
  constructor(private readonly dataSource: DataSource) {}

  async search(query: SearchEventsDto): Promise<EventDto[]> {
    const asc = query.asc ?? false;
    const qb = this.dataSource.getRepository(EventEntity).createQueryBuilder('e');
    if (query.event_types?.length) qb.andWhere('e.type IN (:...types)', { types: query.event_types });
    if (query.aggregate_types?.length) qb.andWhere('e.aggregate_type IN (:...aggregateTypes)', { aggregateTypes: query.aggregate_types });
    if (query.aggregate_id) qb.andWhere('e.aggregate_id = :aggregateId', { aggregateId: query.aggregate_id });
    if (query.resource_owner) qb.andWhere('e.resource_owner = :resourceOwner', { resourceOwner: query.resource_owner });
    if (query.editor_user_id) qb.andWhere('e.editor_user_id = :editor', { editor: query.editor_user_id });
    if (query.since) qb.andWhere('e.created_at >= :since', { since: Date.parse(query.since) });
    if (query.until) qb.andWhere('e.created_at < :until', { until: Date.parse(query.until) });
    if (query.sequence !== undefined) {
      qb.andWhere(asc ? 'e.position > :sequence' : 'e.position < :sequence', { sequence: Number(query.sequence) });
    }
    const rows = await qb
      .orderBy('e.position', asc ? 'ASC' : 'DESC')
      .limit(query.limit ?? 100)
      .getMany();
    return rows.map(toDto);
  }
}

function toDto(e: EventEntity): EventDto {
  return {
    sequence: String(e.position),
    creationDate: e.createdAt.toISOString(),
    type: localized('EventTypes', e.type, (EVENT_MESSAGES as Record<string, string>)[e.type]),
    aggregate: {
      id: e.aggregateId,
      type: localized('AggregateTypes', e.aggregateType, (AGGREGATE_MESSAGES as Record<string, string>)[e.aggregateType]),
      resourceOwner: e.resourceOwner,
    },
    editor: { userId: e.editorUserId },
    payload: e.payload as JsonObject,
  };
}

function localized(prefix: string, type: string, message: string | undefined) {
  return { type, localized: { key: `${prefix}.${type}`, localizedMessage: message ?? type } };
}
