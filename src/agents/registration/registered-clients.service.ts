import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { CLIENT_REGISTRATIONS } from '../../common/auth/client-registrations.js';
import type { ClientRegistrations } from '../../common/auth/client-registrations.js';
import { OrgResources } from '../../common/database/org-resources.js';
import type { Page, Paged } from '../../common/database/page.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import {
  allDynamicClientsOf,
  dynamicClientIdsOf,
  dynamicClientsOf,
  removeDynamicClient,
  removeDynamicClientIn,
  removeRegistrationTokensOf,
} from './dynamic-clients.queries.js';
import type { DynamicClientSummary } from './dynamic-clients.queries.js';

/** How many unbound registrations one read takes when all of them are removed; each goes in a transaction of its own. */
const UNBOUND_BATCH = 100;

/**
 * The clients that registered themselves (RFC 7591; docs/agents.md, "Dynamic registration") as administrators see
 * them: an organization's, and the openly registered ones no organization holds yet, listed and removed with
 * everything issued to them and the consents given to them. A removal makes room below the bound they count towards
 * (DYNAMIC_REGISTRATION_MAX_PER_ORG, DYNAMIC_REGISTRATION_MAX_UNBOUND) without the client's registration access token;
 * each has its `agent.client.removed` event, reason `removed`, with the administrator as editor. An organization's
 * removal takes its registered clients and initial access tokens through OrgResources.
 */
@Injectable()
export class RegisteredClients {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    orgResources: OrgResources,
    @Optional() @Inject(CLIENT_REGISTRATIONS) private readonly clients?: ClientRegistrations,
  ) {
    orgResources.registerBatched({
      revokeIssued: (orgId) => this.revokeIssuedToClientsOf(orgId),
      removeSome: (manager, editorUserId, orgId, limit) => this.removeIn(manager, editorUserId, orgId, limit),
    });
    orgResources.register((manager, orgId) => removeRegistrationTokensOf(manager, orgId));
  }

  ofOrg(orgId: string, page: Page): Promise<Paged<DynamicClientSummary>> {
    return dynamicClientsOf(this.dataSource, orgId, page);
  }

  /** The openly registered clients not bound to an organization yet. */
  unbound(page: Page): Promise<Paged<DynamicClientSummary>> {
    return dynamicClientsOf(this.dataSource, null, page);
  }

  /** All of an organization's registrations (null: the unbound ones), to be searched: there are at most the cap's. */
  everyOf(orgId: string | null): Promise<DynamicClientSummary[]> {
    return allDynamicClientsOf(this.dataSource, orgId);
  }

  /** 404 for another organization's. */
  async remove(editorUserId: string | null, orgId: string, clientId: string): Promise<void> {
    if (!(await this.removeOne(editorUserId, orgId, clientId))) throw DomainError.notFound('registered client');
  }

  /** 404 for one bound to an organization: its owner removes it. */
  async removeUnbound(editorUserId: string | null, clientId: string): Promise<void> {
    if (!(await this.removeOne(editorUserId, null, clientId))) throw DomainError.notFound('unbound registered client');
  }

  /**
   * Every unbound registration registered before the call, each in a transaction of its own; how many went. One bound
   * meanwhile stays, and registrations that keep coming do not keep the removal going.
   */
  async removeAllUnbound(editorUserId: string | null): Promise<number> {
    const registeredBy = Date.now();
    let removed = 0;
    for (let count = UNBOUND_BATCH; count === UNBOUND_BATCH; ) {
      const ids = await dynamicClientIdsOf(this.uow.manager, null, { registeredBy, limit: UNBOUND_BATCH });
      for (const clientId of ids) if (await this.removeOne(editorUserId, null, clientId)) removed++;
      count = ids.length;
    }
    return removed;
  }

  /**
   * Before an organization's removal takes its registered clients (removeIn): what was issued to them, in
   * transactions of a bounded size, so that no transaction of the removal grows with their tokens.
   */
  async revokeIssuedToClientsOf(orgId: string): Promise<void> {
    if (!this.clients) return;
    for (const clientId of await dynamicClientIdsOf(this.uow.manager, orgId)) await this.clients.revokeIssuedInBatches(clientId);
  }

  /** Removes up to `limit` (else all) of an organization's registered clients in the caller's transaction; their ids. */
  async removeIn(manager: EntityManager, editorUserId: string | null, orgId: string, limit?: number): Promise<string[]> {
    const ids = await dynamicClientIdsOf(manager, orgId, { limit });
    for (const clientId of ids) {
      await removeDynamicClientIn(manager, this.events, { clientId, reason: 'removed', orgId, editorUserId }, (m) => this.revokeIssuedTo(m, clientId));
    }
    return ids;
  }

  /** `orgId` null: only an unbound one. False when there was none. */
  private removeOne(editorUserId: string | null, orgId: string | null, clientId: string): Promise<boolean> {
    return removeDynamicClient(this.uow, this.events, { clientId, reason: 'removed', orgId, editorUserId }, (manager) =>
      this.revokeIssuedTo(manager, clientId),
    );
  }

  private async revokeIssuedTo(manager: EntityManager, clientId: string): Promise<void> {
    await this.clients?.revokeIssuedTo(manager, clientId);
  }
}
