import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLIENT_REGISTRATIONS } from '../../common/auth/client-registrations.js';
import type { ClientRegistrations } from '../../common/auth/client-registrations.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { lapsedDynamicClients } from './dynamic-clients.queries.js';
import { removeAgentClient } from './agent-client-removal.js';

/** How many lapsed registrations one purge removes; the next purge takes the rest. */
const BATCH = 500;

/**
 * A client that registered itself and went unused for 30 days lapses (docs/agents.md, "Dynamic registration"): it is
 * refused at once (the client store) and removed, with what was issued to it and its `agent.client.removed` event, by
 * `purge`, which the provider's purge of expired rows runs (every `OIDC_PURGE_INTERVAL_MS`, one process at a time).
 */
@Injectable()
export class AgentClientLapse {
  constructor(
    private readonly dataSource: DataSource,
    private readonly events: EventStore,
    @Optional() @Inject(CLIENT_REGISTRATIONS) private readonly clients?: ClientRegistrations,
  ) {}

  async purge(uow: UnitOfWork, now: number): Promise<void> {
    const clients = this.clients;
    if (!clients) return;
    for (const clientId of await lapsedDynamicClients(this.dataSource, now, BATCH)) {
      await removeAgentClient(uow, this.events, clientId, 'lapsed', (manager) => clients.revokeIssuedTo(manager, clientId));
    }
  }
}
