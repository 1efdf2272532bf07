import type { DataSource, EntityManager } from 'typeorm';
import type { DynamicRegistrationBounds } from '../../common/config/config.js';
import { changedRows } from '../../common/database/changed-rows.js';
import { json, millis } from '../../common/database/column-values.js';
import { lockingRead } from '../../common/database/locking-read.js';
import type { Page, Paged } from '../../common/database/page.js';
import { statementsOf } from '../../common/database/statements.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import type { DynamicRegistrationMode } from '../../users/entities/login-policy.entity.js';
import { registrationModeOf } from '../../users/queries/registration-modes.js';
import { lockInstanceRow } from '../../users/queries/instance.js';

/**
 * The statements src/oidc needs for clients that register themselves (RFC 7591, RFC 7592; docs/agents.md, "Dynamic
 * registration"): the organizations' settings, initial access tokens, and the registrations with their events.
 */

/** A registration unused this long lapses: it is refused at once and removed by the next purge. */
export const DYNAMIC_CLIENT_LAPSE_MS = 30 * 86_400_000;
/** Its last use is written at most once in this time, so a busy client does not write on every request. */
const TOUCH_EVERY_MS = 3_600_000;

export interface DynamicClientRow {
  client_id: string;
  org_id: string | null;
  metadata: string;
  last_used_at: number;
  /** The bound organization's setting (null while unbound). */
  mode: DynamicRegistrationMode | null;
}

/**
 * The organization of a live initial access token (by its keyed hash) with a use left, whose organization takes
 * registrations. A read before the registration's work; the use itself is taken with the registration (addDynamicClient).
 */
export async function registrationTokenOrganization(dataSource: DataSource, tokenHash: string, now: number): Promise<string | undefined> {
  const rows = await statementsOf(dataSource).rows<{ org_id: string }>(
    `SELECT t.org_id FROM agent_registration_tokens t
      WHERE t.token_hash = ? AND t.expires_at > ? AND t.uses_left > 0 AND ${registrationModeOf('t.org_id')} <> 'off'`,
    [tokenHash, now],
  );
  return rows[0]?.org_id;
}

export async function dynamicClientRow(dataSource: DataSource, clientId: string): Promise<DynamicClientRow | undefined> {
  const rows = await statementsOf(dataSource).rows<DynamicClientRow>(
    `SELECT c.client_id, c.org_id, c.metadata, c.last_used_at, ${registrationModeOf('c.org_id')} AS mode
       FROM dynamic_clients c WHERE c.client_id = ?`,
    [clientId],
  );
  const row = rows[0];
  return row ? { ...row, last_used_at: millis(row.last_used_at) ?? 0 } : undefined;
}

/** Which bound (DynamicRegistrationBounds) a registration or a binding would pass. */
export type DynamicClientBound = 'organization' | 'unbound';

/** Thrown inside the transaction, so that it rolls back: a new registration or a binding would pass a bound. */
export class DynamicClientBoundReached extends Error {
  constructor(
    readonly bound: DynamicClientBound,
    readonly orgId: string | null,
    readonly limit: number,
  ) {
    super(`dynamic registration bound reached: ${bound} (${limit})`);
  }
}

/**
 * Counts, as committed now, the live registrations (used within DYNAMIC_CLIENT_LAPSE_MS) of an organization, or the
 * unbound ones (`orgId` null), after the caller took the instance row. Two registrations at the bound through two
 * processes, or two Galera nodes, cannot both see room: the instance row is a write, which serializes them on one
 * server and is certified across nodes (queries/instance.ts); the count is a locking read, not the transaction's
 * first snapshot.
 */
async function assertRoomFor(manager: EntityManager, orgId: string | null, bounds: DynamicRegistrationBounds, now: number): Promise<void> {
  const { where, parameters } = ownedBy(orgId);
  const [row] = (await manager.query(`SELECT COUNT(*) AS n FROM dynamic_clients WHERE ${where} AND last_used_at >= ?${lockingRead(manager)}`, [
    ...parameters,
    now - DYNAMIC_CLIENT_LAPSE_MS,
  ])) as { n: number | string }[];
  const limit = orgId === null ? bounds.unbound : bounds.perOrganization;
  if (Number(row?.n ?? 0) >= limit) throw new DynamicClientBoundReached(orgId === null ? 'unbound' : 'organization', orgId, limit);
}

/** Thrown inside the transaction, so that it rolls back: the initial access token had no use left (or expired) meanwhile. */
export class RegistrationTokenUsedUp extends Error {
  constructor() {
    super('the initial access token has no registration left');
  }
}

/**
 * A new registration (`orgId` null: bound later) and its event. With the initial access token it came with (its
 * keyed hash), one use of the token is taken in the same transaction: a conditional decrement, so two registrations
 * racing for a token's last use cannot both commit (RegistrationTokenUsedUp for the second). Past its bound it throws
 * DynamicClientBoundReached. Either way nothing is stored.
 */
export async function addDynamicClient(
  uow: UnitOfWork,
  events: EventStore,
  registration: { clientId: string; orgId: string | null; metadata: object; tokenHash?: string },
  bounds: DynamicRegistrationBounds,
  now: number,
): Promise<void> {
  const { clientId, orgId, metadata, tokenHash } = registration;
  await uow.run(async (manager) => {
    await lockInstanceRow(manager);
    if (tokenHash !== undefined) {
      const taken = await changedRows(
        manager,
        'UPDATE agent_registration_tokens SET uses_left = uses_left - 1 WHERE token_hash = ? AND uses_left > 0 AND expires_at > ?',
        [tokenHash, now],
      );
      if (taken !== 1) throw new RegistrationTokenUsedUp();
    }
    await assertRoomFor(manager, orgId, bounds, now);
    await manager.query('INSERT INTO dynamic_clients (client_id, org_id, metadata, created_at, last_used_at) VALUES (?, ?, ?, ?, ?)', [
      clientId,
      orgId,
      JSON.stringify(metadata),
      now,
      now,
    ]);
    await events.push(manager, {
      type: 'agent.client.registered',
      aggregateType: 'agent_client',
      aggregateId: clientId,
      resourceOwner: orgId ?? 'instance',
      editorUserId: null,
      payload: { clientId, clientName: String((metadata as { client_name?: unknown }).client_name ?? ''), bound: orgId !== null },
    });
  });
}

/** New metadata for an existing registration (RFC 7592 §2.2). */
export async function updateDynamicClient(uow: UnitOfWork, clientId: string, metadata: object): Promise<void> {
  await uow.write('UPDATE dynamic_clients SET metadata = ? WHERE client_id = ?', [JSON.stringify(metadata), clientId]);
}

/** Why a registration was removed: `deleted` by the client (RFC 7592 §2.3), `lapsed`, or `removed` by an administrator. */
export type DynamicClientRemoval = 'deleted' | 'lapsed' | 'removed';

/**
 * Removes a registration and, in the same transaction, what `alsoRemove` deletes (what was issued to it); its event
 * says why, and names the administrator who removed it. With `orgId`, only a registration bound to that
 * organization (null: only an unbound one). False when there was none.
 */
export function removeDynamicClient(
  uow: UnitOfWork,
  events: EventStore,
  removal: DynamicClientRemovalOf,
  alsoRemove: (manager: EntityManager) => Promise<void>,
): Promise<boolean> {
  return uow.run((manager) => removeDynamicClientIn(manager, events, removal, alsoRemove));
}

/** Which registration goes, why, and who removes it (removeDynamicClient). */
export interface DynamicClientRemovalOf {
  clientId: string;
  reason: DynamicClientRemoval;
  orgId?: string | null;
  editorUserId?: string | null;
}

/** removeDynamicClient in the caller's transaction. */
export async function removeDynamicClientIn(
  manager: EntityManager,
  events: EventStore,
  removal: DynamicClientRemovalOf,
  alsoRemove: (manager: EntityManager) => Promise<void>,
): Promise<boolean> {
  const { clientId, reason } = removal;
  const [row] = (await manager.query('SELECT org_id FROM dynamic_clients WHERE client_id = ?', [clientId])) as { org_id: string | null }[];
  if (!row || (removal.orgId !== undefined && row.org_id !== removal.orgId)) return false;
  await alsoRemove(manager);
  await manager.query('DELETE FROM dynamic_clients WHERE client_id = ?', [clientId]);
  await events.push(manager, {
    type: 'agent.client.removed',
    aggregateType: 'agent_client',
    aggregateId: clientId,
    resourceOwner: row.org_id ?? 'instance',
    editorUserId: removal.editorUserId ?? null,
    payload: { clientId, reason },
  });
  return true;
}

/** A registration as an administrator sees it. */
export interface DynamicClientSummary {
  clientId: string;
  metadata: Record<string, unknown>;
  createdAt: number;
  lastUsedAt: number;
}

/** `org_id = ?`, or the unbound ones for null. */
function ownedBy(orgId: string | null): { where: string; parameters: string[] } {
  return orgId === null ? { where: 'org_id IS NULL', parameters: [] } : { where: 'org_id = ?', parameters: [orgId] };
}

/**
 * A page of an organization's registrations (null: the unbound ones), newest first, with their total (lapsed ones
 * until the purge removes them).
 */
export async function dynamicClientsOf(dataSource: DataSource, orgId: string | null, page: Page): Promise<Paged<DynamicClientSummary>> {
  const statements = statementsOf(dataSource);
  const { where, parameters } = ownedBy(orgId);
  const rows = await statements.rows<SummaryRow>(
    `SELECT client_id, metadata, created_at, last_used_at FROM dynamic_clients WHERE ${where}
      ORDER BY created_at DESC, client_id LIMIT ${Number(page.limit)} OFFSET ${Number(page.offset)}`,
    parameters,
  );
  const [count] = await statements.rows<{ n: number | string }>(`SELECT COUNT(*) AS n FROM dynamic_clients WHERE ${where}`, parameters);
  return { items: rows.map(summaryOf), total: Number(count?.n ?? 0) };
}

/**
 * Every registration of an organization (null: the unbound ones), newest first: a list read whole to be searched by
 * what its metadata says (the registrations of an owner are capped, DYNAMIC_REGISTRATION_MAX_PER_ORG and _UNBOUND).
 */
export async function allDynamicClientsOf(dataSource: DataSource, orgId: string | null): Promise<DynamicClientSummary[]> {
  const { where, parameters } = ownedBy(orgId);
  const rows = await statementsOf(dataSource).rows<SummaryRow>(
    `SELECT client_id, metadata, created_at, last_used_at FROM dynamic_clients WHERE ${where} ORDER BY created_at DESC, client_id`,
    parameters,
  );
  return rows.map(summaryOf);
}

type SummaryRow = { client_id: string; metadata: string; created_at: unknown; last_used_at: unknown };

function summaryOf(r: SummaryRow): DynamicClientSummary {
  return {
    clientId: r.client_id,
    metadata: json<Record<string, unknown>>(r.metadata, {}),
    createdAt: millis(r.created_at) ?? 0,
    lastUsedAt: millis(r.last_used_at) ?? 0,
  };
}

/**
 * Up to `limit` (else all) client ids of an organization's registrations (null: the unbound ones), oldest first; with
 * `registeredBy`, only those registered no later than it.
 */
export async function dynamicClientIdsOf(
  manager: EntityManager,
  orgId: string | null,
  { registeredBy, limit }: { registeredBy?: number; limit?: number } = {},
): Promise<string[]> {
  const owned = ownedBy(orgId);
  const where = registeredBy === undefined ? owned.where : `${owned.where} AND created_at <= ?`;
  const parameters = registeredBy === undefined ? owned.parameters : [...owned.parameters, registeredBy];
  const rows = (await manager.query(
    `SELECT client_id FROM dynamic_clients WHERE ${where} ORDER BY created_at, client_id${limit ? ` LIMIT ${Number(limit)}` : ''}`,
    parameters,
  )) as { client_id: string }[];
  return rows.map((r) => r.client_id);
}

/**
 * Binds an unbound registration to an organization; answers the organization it is bound to now. Binding it counts
 * towards the organization's bound: past it, DynamicClientBoundReached and it stays unbound.
 */
export async function bindDynamicClient(
  uow: UnitOfWork,
  clientId: string,
  orgId: string,
  bounds: DynamicRegistrationBounds,
  now: number,
): Promise<string | null> {
  return uow.run(async (manager) => {
    await lockInstanceRow(manager);
    const [row] = (await manager.query(`SELECT org_id FROM dynamic_clients WHERE client_id = ?${lockingRead(manager)}`, [clientId])) as {
      org_id: string | null;
    }[];
    if (!row || row.org_id !== null) return row?.org_id ?? null;
    await assertRoomFor(manager, orgId, bounds, now);
    await manager.query('UPDATE dynamic_clients SET org_id = ? WHERE client_id = ?', [orgId, clientId]);
    return orgId;
  });
}

/** Notes a use of the registration (at most once per TOUCH_EVERY_MS). */
export async function touchDynamicClient(uow: UnitOfWork, clientId: string, lastUsedAt: number, now: number): Promise<void> {
  if (now - lastUsedAt < TOUCH_EVERY_MS) return;
  await uow.write('UPDATE dynamic_clients SET last_used_at = ? WHERE client_id = ? AND last_used_at < ?', [now, clientId, now - TOUCH_EVERY_MS]);
}

/** Registrations unused since before `now - DYNAMIC_CLIENT_LAPSE_MS`, at most `limit`. */
export async function lapsedDynamicClients(dataSource: DataSource, now: number, limit: number): Promise<string[]> {
  const rows = await statementsOf(dataSource).rows<{ client_id: string }>(
    `SELECT client_id FROM dynamic_clients WHERE last_used_at < ? ORDER BY last_used_at LIMIT ${Number(limit)}`,
    [now - DYNAMIC_CLIENT_LAPSE_MS],
  );
  return rows.map((r) => r.client_id);
}

/** The initial access tokens of an organization being removed, in its transaction (its registrations go one by one). */
export async function removeRegistrationTokensOf(manager: EntityManager, orgId: string): Promise<void> {
  await manager.query('DELETE FROM agent_registration_tokens WHERE org_id = ?', [orgId]);
}
