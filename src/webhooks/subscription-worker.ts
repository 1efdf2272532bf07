import type { EventDto } from '../admin/dto/events.dto.js';
import { eventIdsAt } from '../common/events/event-log.js';
import { webhookDeliveries } from '../common/metrics/metrics.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';
import { nextRetryAt } from '../common/operations/retry-schedule.js';
import { StoppableLoop } from '../common/operations/stoppable-loop.js';
import { pendingDelivery, recordAttempts, subscriptionById, subscriptionExists } from './webhook.queries.js';
import type { DeliveryRow, SubscriptionRow } from './webhook.queries.js';

/** How long a subscription waits for its lease to be fresh enough again. */
const POLL_MS = 200;
/** The longest an idle subscription waits before reading again, even when no newer event was seen. */
const IDLE_READ_MS = 2000;
/** Events read and recorded together: a crash sends at most this many again. */
const BATCH = 100;
const MAX_ERROR_LENGTH = 500;

/**
 * Delivers one subscription's events, one at a time in `sequence` order, from its cursor: an event is
 * sent until a 2xx answers it or its retry window closes (webhook-retry.ts); later events wait behind
 * it. Progress is recorded after each batch, so after a crash at most one batch is sent again (the
 * receiver tells repeats by `webhook-id`).
 */
export class SubscriptionWorker extends StoppableLoop {
  constructor(
    private readonly dispatcher: WebhookDispatcher,
    private readonly subscriptionId: string,
  ) {
    super();
  }

  protected async run(): Promise<void> {
    while (!this.stopping) {
      try {
        const subscription = await subscriptionById(this.dispatcher.uow.manager, this.subscriptionId);
        if (!subscription) break;
        await this.deliver(subscription);
        break;
      } catch (error) {
        if (this.stopping) break;
        this.dispatcher.logError(`webhook ${this.subscriptionId}`, error);
        await this.pause(5000);
      }
    }
    this.dispatcher.forget(this.subscriptionId);
  }

  /** Returns when the subscription is gone or no longer this process's; throws on a database error. */
  private async deliver(subscription: SubscriptionRow): Promise<void> {
    const { uow, encryptor, events, delivery, config, leaseOwner } = this.dispatcher;
    const secret = encryptor.decrypt(subscription.secret);
    let cursor = subscription.cursor;
    let holdUntil = subscription.nextAttemptAt;
    let pending = await pendingDelivery(uow.manager, subscription.id, cursor);
    while (!this.stopping) {
      const wait = holdUntil - Date.now();
      if (wait > 0) {
        await this.pause(Math.min(wait, 1000));
        continue;
      }
      if (!this.dispatcher.holds(subscription.id)) {
        await this.pause(POLL_MS);
        continue;
      }
      const seen = this.dispatcher.latestPosition;
      const batch: EventDto[] = await events.search({
        asc: true,
        sequence: String(cursor),
        limit: BATCH,
        ...(subscription.eventTypes ? { event_types: subscription.eventTypes } : {}),
        ...(subscription.orgId ? { resource_owner: subscription.orgId } : {}),
      });
      if (batch.length === 0) {
        await this.dispatcher.waitForEvents(seen, IDLE_READ_MS, this.abort.signal);
        continue;
      }
      // Nothing starts for a subscription whose deletion has committed, in any process
      // (docs/product-rules.md, "Consistency"); the
      // process that served the deletion also stops its worker at once (WebhookDispatcher.removed).
      if (!(await subscriptionExists(uow.manager, subscription.id))) return;
      const ids = await eventIdsAt(
        uow.manager,
        batch.map((e) => e.sequence),
      );
      const attempts = await delivery.send(
        {
          url: subscription.url,
          secret,
          events: batch.map((event) => ({ eventId: ids.get(event.sequence) ?? event.sequence, event })),
          sendUntil: this.dispatcher.sendableUntil(subscription.id),
        },
        this.abort.signal,
      );
      const rows: DeliveryRow[] = [];
      let nextCursor = cursor;
      let nextHold = 0;
      // The thread stopped at the first failed attempt: every result before the last is a delivery.
      for (const [i, result] of attempts.entries()) {
        if (this.stopping && !result.ok) break; // abandoned by the shutdown, not failed by the receiver
        const position = Number(batch[i].sequence);
        const earlier = pending?.position === position ? pending : undefined;
        const row: DeliveryRow = {
          position,
          eventId: ids.get(batch[i].sequence) ?? batch[i].sequence,
          status: 'delivered',
          attempts: (earlier?.attempts ?? 0) + 1,
          lastStatus: result.status ?? null,
          lastError: result.ok ? null : (result.error ?? `HTTP ${result.status}`).slice(0, MAX_ERROR_LENGTH),
          firstAttemptAt: earlier?.firstAttemptAt ?? result.attemptAt,
          lastAttemptAt: result.attemptAt,
          nextAttemptAt: null,
        };
        pending = undefined;
        rows.push(row);
        if (result.ok) {
          webhookDeliveries.inc({ result: 'delivered' });
          nextCursor = position;
          continue;
        }
        const retryAt = nextRetryAt(row.attempts, row.firstAttemptAt, Date.now(), config.webhooks.retryBaseMs, config.webhooks.retryWindowMs);
        if (retryAt === undefined) {
          // Given up on (webhook-retry.ts): recorded as failing, and the subscription moves on (the
          // events after it are read again from the new cursor).
          webhookDeliveries.inc({ result: 'failing' });
          row.status = 'failing';
          nextCursor = position;
          break;
        }
        webhookDeliveries.inc({ result: 'retry' });
        row.status = 'pending';
        row.nextAttemptAt = retryAt;
        pending = row;
        nextHold = retryAt;
      }
      if (rows.length === 0) continue;
      const kept = await uow.run((manager) => recordAttempts(manager, subscription.id, leaseOwner, nextCursor, nextHold, rows));
      if (!kept) return;
      cursor = nextCursor;
      holdUntil = nextHold;
      // Caught up: gather what arrives until the next look at the log (≤ 100 ms) rather than read, send
      // and commit a batch of one or two events at a time, which cost the writers a commit each.
      if (batch.length < BATCH && attempts.length === batch.length && nextHold === 0)
        await this.dispatcher.waitForEvents(seen, IDLE_READ_MS, this.abort.signal);
    }
  }
}
