import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventStore } from '../../common/events/event-store.js';
import { lapsedDynamicClients } from '../../users/queries/dynamic-clients.js';
import { OidcPurgeSchedule } from '../adapter/oidc-purge.schedule.js';
import { removeAgentClient } from './agent-client-removal.js';

/** How many lapsed registrations one purge removes; the next purge takes the rest. */
const BATCH = 500;

/**
 * A client that registered itself and went unused for 30 days lapses (docs/agents.md, "Dynamic registration"): it is
 * refused at once (client.store.ts) and removed, with what was issued to it and its `agent.client.removed` event, by
 * the purge of expired OIDC rows (every `OIDC_PURGE_INTERVAL_MS`, one process at a time).
 */
@Injectable()
export class AgentClientLapse {
  constructor(schedule: OidcPurgeSchedule, dataSource: DataSource, events: EventStore) {
    schedule.alsoPurge(async (uow, now) => {
      for (const clientId of await lapsedDynamicClients(dataSource, now, BATCH)) await removeAgentClient(uow, events, clientId, 'lapsed');
    });
  }
}
