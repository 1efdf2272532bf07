import type { EntityManager } from 'typeorm';
import { insertValues } from '../common/database/insert-values.js';
import { cursorStateOf } from '../common/operations/cursor-columns.js';
import type { CursorState, RawCursorColumns } from '../common/operations/cursor-columns.js';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity.js';

/** The SQL of the webhook tables (src/webhooks owns them; docs/architecture.md, "Data"). */

export interface SubscriptionRow extends CursorState {
  id: string;
  owner: string;
  orgId: string | null;
  url: string;
  eventTypes: string[] | null;
  /** Encrypted. */
  secret: string;
}

interface RawSubscription extends RawCursorColumns {
  id: string;
  owner: string;
  org_id: string | null;
  url: string;
  event_types: string | null;
  secret: string;
}

const SUBSCRIPTION_COLUMNS = 'id, owner, org_id, url, event_types, secret, cursor_position, next_attempt_at, created_at';

function toSubscription(row: RawSubscription): SubscriptionRow {
  return {
    id: row.id,
    owner: row.owner,
    orgId: row.org_id,
    url: row.url,
    eventTypes: row.event_types == null ? null : (JSON.parse(row.event_types) as string[]),
    secret: row.secret,
    ...cursorStateOf(row),
  };
}

export async function insertSubscription(manager: EntityManager, row: SubscriptionRow): Promise<void> {
  await manager.query(
    `INSERT INTO webhook_subscriptions (id, owner, org_id, url, event_types, secret, cursor_position, lease_owner, leased_until, next_attempt_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 0, 0, ?)`,
    [row.id, row.owner, row.orgId, row.url, row.eventTypes == null ? null : JSON.stringify(row.eventTypes), row.secret, row.cursor, row.createdAt],
  );
}

export async function subscriptionsOf(manager: EntityManager, owner: string): Promise<SubscriptionRow[]> {
  const rows: RawSubscription[] = await manager.query(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE owner = ? ORDER BY created_at, id`, [
    owner,
  ]);
  return rows.map(toSubscription);
}

export async function subscriptionOf(manager: EntityManager, owner: string, id: string): Promise<SubscriptionRow | undefined> {
  const [row]: RawSubscription[] = await manager.query(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE owner = ? AND id = ?`, [owner, id]);
  return row && toSubscription(row);
}

export async function subscriptionById(manager: EntityManager, id: string): Promise<SubscriptionRow | undefined> {
  const [row]: RawSubscription[] = await manager.query(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE id = ?`, [id]);
  return row && toSubscription(row);
}

/** Whether the subscription still exists: checked right before each batch is sent, in every process. */
export async function subscriptionExists(manager: EntityManager, id: string): Promise<boolean> {
  return (await manager.query('SELECT 1 AS found FROM webhook_subscriptions WHERE id = ?', [id])).length > 0;
}

/** Removes a subscription and its delivery log; false when the owner has no such subscription. */
export async function deleteSubscription(manager: EntityManager, owner: string, id: string): Promise<boolean> {
  const { affected } = await manager
    .createQueryBuilder()
    .delete()
    .from(WebhookSubscriptionEntity)
    .where('id = :id AND owner = :owner', { id, owner })
    .execute();
  if (affected !== 1) return false;
  await manager.query('DELETE FROM webhook_deliveries WHERE subscription_id = ?', [id]);
  return true;
}

// ——— leases ———

export interface LeaseCandidate {
  id: string;
  leaseOwner: string | null;
  leasedUntil: number;
}

export async function leaseStates(manager: EntityManager): Promise<LeaseCandidate[]> {
  const rows: { id: string; lease_owner: string | null; leased_until: number | string }[] = await manager.query(
    'SELECT id, lease_owner, leased_until FROM webhook_subscriptions',
  );
  return rows.map((r) => ({ id: r.id, leaseOwner: r.lease_owner, leasedUntil: Number(r.leased_until) }));
}

/** Compare-and-set: takes the lease only if it is still free or expired (`now`); the statement decides, not the reader. */
export const CLAIM_SQL =
  'UPDATE webhook_subscriptions SET lease_owner = ?, leased_until = ? WHERE id = ? AND (lease_owner IS NULL OR leased_until < ? OR lease_owner = ?)';
export const RENEW_SQL = 'UPDATE webhook_subscriptions SET leased_until = ? WHERE lease_owner = ?';
export const RELEASE_SQL = 'UPDATE webhook_subscriptions SET lease_owner = NULL, leased_until = 0 WHERE lease_owner = ?';
export const RELEASE_ONE_SQL = 'UPDATE webhook_subscriptions SET lease_owner = NULL, leased_until = 0 WHERE id = ? AND lease_owner = ?';

// ——— live dispatchers ———

export const HEARTBEAT_SQL = 'UPDATE webhook_dispatchers SET alive_until = ? WHERE owner = ?';
export const JOIN_SQL = 'INSERT INTO webhook_dispatchers (owner, alive_until) VALUES (?, ?)';
export const LEAVE_SQL = 'DELETE FROM webhook_dispatchers WHERE owner = ?';
export const FORGET_DEAD_SQL = 'DELETE FROM webhook_dispatchers WHERE alive_until < ?';

/** How many processes deliver webhooks now (those whose heartbeat has not run out). */
export async function liveDispatchers(manager: EntityManager, now: number): Promise<number> {
  const [row]: { n: number | string }[] = await manager.query('SELECT COUNT(*) AS n FROM webhook_dispatchers WHERE alive_until >= ?', [now]);
  return Number(row?.n ?? 0);
}

// ——— deliveries ———

export type DeliveryStatus = 'delivered' | 'pending' | 'failing';

export interface DeliveryRow {
  position: number;
  eventId: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  firstAttemptAt: number;
  lastAttemptAt: number;
  nextAttemptAt: number | null;
}

const DELIVERY_COLUMNS = [
  'subscription_id',
  'position',
  'event_id',
  'status',
  'attempts',
  'last_status',
  'last_error',
  'first_attempt_at',
  'last_attempt_at',
  'next_attempt_at',
];

interface RawDelivery {
  position: number | string;
  event_id: string;
  status: DeliveryStatus;
  attempts: number | string;
  last_status: number | string | null;
  last_error: string | null;
  first_attempt_at: number | string;
  last_attempt_at: number | string;
  next_attempt_at: number | string | null;
}

function toDelivery(row: RawDelivery): DeliveryRow {
  return {
    position: Number(row.position),
    eventId: row.event_id,
    status: row.status,
    attempts: Number(row.attempts),
    lastStatus: row.last_status == null ? null : Number(row.last_status),
    lastError: row.last_error,
    firstAttemptAt: Number(row.first_attempt_at),
    lastAttemptAt: Number(row.last_attempt_at),
    nextAttemptAt: row.next_attempt_at == null ? null : Number(row.next_attempt_at),
  };
}

/** The log of a subscription, newest event first. */
export async function deliveriesOf(manager: EntityManager, subscriptionId: string, limit: number, offset: number): Promise<DeliveryRow[]> {
  const rows: RawDelivery[] = await manager.query(
    `SELECT ${DELIVERY_COLUMNS.slice(1).join(', ')} FROM webhook_deliveries WHERE subscription_id = ? ORDER BY position DESC LIMIT ? OFFSET ?`,
    [subscriptionId, limit, offset],
  );
  return rows.map(toDelivery);
}

/** The event a subscription is retrying, if any: the one pending row past its cursor. */
export async function pendingDelivery(manager: EntityManager, subscriptionId: string, cursor: number): Promise<DeliveryRow | undefined> {
  const [row]: RawDelivery[] = await manager.query(
    `SELECT ${DELIVERY_COLUMNS.slice(1).join(', ')} FROM webhook_deliveries WHERE subscription_id = ? AND position > ? AND status = 'pending' ORDER BY position LIMIT 1`,
    [subscriptionId, cursor],
  );
  return row && toDelivery(row);
}

/**
 * Records a run of attempts and moves the cursor, fenced by the lease: when this process no longer
 * holds the subscription (its lease expired and another took it, or it was deleted) nothing is written
 * and the answer is false.
 */
export async function recordAttempts(
  manager: EntityManager,
  subscriptionId: string,
  leaseOwner: string,
  cursor: number,
  nextAttemptAt: number,
  rows: readonly DeliveryRow[],
): Promise<boolean> {
  const { affected } = await manager
    .createQueryBuilder()
    .update(WebhookSubscriptionEntity)
    .set({ cursorPosition: cursor, nextAttemptAt })
    .where('id = :id AND lease_owner = :owner', { id: subscriptionId, owner: leaseOwner })
    .execute();
  if (affected !== 1) return false;
  if (rows.length === 0) return true;
  // A retried event's earlier row is replaced by the one carrying all its attempts.
  await manager.query(`DELETE FROM webhook_deliveries WHERE subscription_id = ? AND position IN (${rows.map(() => '?').join(', ')})`, [
    subscriptionId,
    ...rows.map((r) => r.position),
  ]);
  await insertValues(
    manager,
    'webhook_deliveries',
    DELIVERY_COLUMNS,
    rows.map((r) => [
      subscriptionId,
      r.position,
      r.eventId,
      r.status,
      r.attempts,
      r.lastStatus,
      r.lastError,
      r.firstAttemptAt,
      r.lastAttemptAt,
      r.nextAttemptAt,
    ]),
  );
  return true;
}

/** Deletes log rows older than `before` (retention; the cursor, not the log, decides what is delivered). */
export async function purgeDeliveries(manager: EntityManager, before: number): Promise<void> {
  await manager.query("DELETE FROM webhook_deliveries WHERE last_attempt_at < ? AND status <> 'pending'", [before]);
}
