import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLIENT_REGISTRATIONS } from '../../common/auth/client-registrations.js';
import type { ClientRegistrations } from '../../common/auth/client-registrations.js';
import type { Page, Paged } from '../../common/database/page.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { dynamicClientsOf, removeDynamicClient } from '../queries/dynamic-clients.js';
import type { DynamicClientSummary } from '../queries/dynamic-clients.js';

/**
 * The clients registered to an organization (RFC 7591; docs/agents.md, "Dynamic registration") as its administrators
 * see them: listed, and removed with everything issued to them, which makes room below the organization's bound
 * (DYNAMIC_REGISTRATION_MAX_PER_ORG) without the client's registration access token.
 */
@Injectable()
export class RegisteredClients {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    @Optional() @Inject(CLIENT_REGISTRATIONS) private readonly clients?: ClientRegistrations,
  ) {}

  ofOrg(orgId: string, page: Page): Promise<Paged<DynamicClientSummary>> {
    return dynamicClientsOf(this.dataSource, orgId, page);
  }

  /** Event `agent.client.removed` with reason `removed` and the administrator as editor; 404 for another organization's. */
  async remove(editorUserId: string | null, orgId: string, clientId: string): Promise<void> {
    const removed = await removeDynamicClient(this.uow, this.events, { clientId, reason: 'removed', orgId, editorUserId }, async (manager) => {
      await this.clients?.revokeIssuedTo(manager, clientId);
    });
    if (!removed) throw DomainError.notFound('registered client');
  }
}
