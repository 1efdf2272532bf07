import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { OrgResources } from '../common/database/org-resources.js';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { Encryptor } from '../common/crypto/encryptor.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { lastEventPosition } from '../common/events/event-log.js';
import { newId } from '../common/ids.js';
import { organizationExists } from '../users/queries/organizations.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { newWebhookSecret } from '../common/crypto/standard-webhooks.js';
import { hostOf, nonPublicAddressesOf } from '../common/net/outbound-address.js';
import { targetUrlProblem } from './webhook-target.js';
import { deleteSubscription, deliveriesOf, insertSubscription, subscriptionOf, subscriptionsOf } from './webhook.queries.js';
import type { DeliveryRow, SubscriptionRow } from './webhook.queries.js';

/** Who a subscription belongs to: the instance (`/admin/v1/webhooks`) or one organization (its management API). */
export type WebhookOwner = { kind: 'instance' } | { kind: 'org'; orgId: string };

export interface WebhookInput {
  url: string;
  eventTypes?: string[];
  orgId?: string;
}

export interface WebhookView {
  id: string;
  url: string;
  eventTypes: string[] | null;
  orgId: string | null;
}

/**
 * Webhook subscriptions (docs/webhooks.md): created with a secret shown once and kept encrypted, listed, removed,
 * each change with its event. Delivery is the dispatcher's (webhook-dispatcher.ts).
 */
@Injectable()
export class WebhooksService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly encryptor: Encryptor,
    private readonly dispatcher: WebhookDispatcher,
    orgResources: OrgResources,
  ) {
    // An organization's own subscriptions go with it (docs/product-rules.md, "Changing and removing
    // resources"); the instance's subscriptions filtered to it stay, and receive its `org.removed`.
    orgResources.register((manager, orgId, editorUserId) => this.removeOwnedBy(manager, orgId, editorUserId));
  }

  private async removeOwnedBy(manager: EntityManager, orgId: string, editorUserId: string | null): Promise<void> {
    for (const { id } of await subscriptionsOf(manager, orgId)) {
      if (await deleteSubscription(manager, orgId, id)) {
        await this.events.push(manager, { type: 'webhook.removed', aggregateType: 'webhook', aggregateId: id, resourceOwner: orgId, editorUserId });
      }
    }
  }

  async create(editorUserId: string | null, owner: WebhookOwner, input: WebhookInput): Promise<{ id: string; secret: string }> {
    const orgId = await this.filterOrg(owner, input.orgId);
    await this.checkTarget(input.url);
    const secret = newWebhookSecret();
    const id = newId();
    const resourceOwner = ownerKey(owner);
    const eventTypes = input.eventTypes?.length ? [...input.eventTypes] : null;
    await this.uow.run(async (manager) => {
      // The subscription receives the events after the newest one now: its own `webhook.added` is its first.
      const row: SubscriptionRow = {
        id,
        owner: resourceOwner,
        orgId,
        url: input.url,
        eventTypes,
        secret: this.encryptor.encrypt(secret),
        cursor: await lastEventPosition(manager),
        nextAttemptAt: 0,
        createdAt: Date.now(),
      };
      await insertSubscription(manager, row);
      await this.events.push(manager, {
        type: 'webhook.added',
        aggregateType: 'webhook',
        aggregateId: id,
        resourceOwner,
        editorUserId,
        // The URL without its query: a receiver's URL may carry a token of its own.
        payload: { url: withoutQuery(input.url), eventTypes, orgId },
      });
    });
    return { id, secret };
  }

  async list(owner: WebhookOwner): Promise<WebhookView[]> {
    return (await subscriptionsOf(this.uow.manager, ownerKey(owner))).map(toView);
  }

  async remove(editorUserId: string | null, owner: WebhookOwner, id: string): Promise<void> {
    await this.uow.run(async (manager) => {
      if (!(await deleteSubscription(manager, ownerKey(owner), id))) throw DomainError.notFound('webhook');
      await this.events.push(manager, { type: 'webhook.removed', aggregateType: 'webhook', aggregateId: id, resourceOwner: ownerKey(owner), editorUserId });
    });
    await this.dispatcher.removed(id);
  }

  async deliveries(owner: WebhookOwner, id: string, limit = 100, offset = 0): Promise<DeliveryRow[]> {
    if (!(await subscriptionOf(this.uow.manager, ownerKey(owner), id))) throw DomainError.notFound('webhook');
    return deliveriesOf(this.uow.manager, id, limit, offset);
  }

  /** The organization whose events the subscription sees: an organization's own subscription sees only its own. */
  private async filterOrg(owner: WebhookOwner, orgId: string | undefined): Promise<string | null> {
    if (owner.kind === 'org') {
      if (orgId !== undefined && orgId !== owner.orgId) {
        throw DomainError.invalid("orgId must be this organization's id (or absent)", [{ field: 'orgId', message: "orgId must be this organization's id" }]);
      }
      return owner.orgId;
    }
    if (orgId === undefined) return null;
    if (!(await organizationExists(this.dataSource, orgId))) throw DomainError.notFound('organization');
    return orgId;
  }

  /** Refuses targets the service must not call (outbound-address.ts): checked here, and again at every delivery. */
  private async checkTarget(url: string): Promise<void> {
    const problem = targetUrlProblem(url);
    if (problem) throw DomainError.invalid(problem, [{ field: 'url', message: problem }]);
    if (this.config.webhooks.allowPrivateNetworks) return;
    const host = hostOf(new URL(url));
    let refused: string[];
    try {
      refused = await nonPublicAddressesOf(host);
    } catch {
      throw DomainError.invalid(`url: the host ${host} does not resolve`, [{ field: 'url', message: 'the host does not resolve' }]);
    }
    if (refused.length > 0) {
      const message = `url: ${host} resolves to a non-public address (loopback, private, link-local, reserved or special-purpose) (${refused.join(', ')}); such targets need WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`;
      throw DomainError.invalid(message, [{ field: 'url', message: 'the target is on a non-public network' }]);
    }
  }
}

export function ownerKey(owner: WebhookOwner): string {
  return owner.kind === 'instance' ? 'instance' : owner.orgId;
}

function toView(row: SubscriptionRow): WebhookView {
  return { id: row.id, url: row.url, eventTypes: row.eventTypes, orgId: row.orgId };
}

function withoutQuery(url: string): string {
  const parsed = new URL(url);
  parsed.search = '';
  return parsed.toString();
}
