import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { sqliteStatementsOf } from '../common/database/statements.js';
import { humanUserPageAfter, orderCheckpoints } from './queries/human-user-order.js';
import type { CheckpointColumn, OrderKey } from './queries/human-user-order.js';
import type { UserRow } from './queries/human-users.js';

/**
 * Sort-key checkpoints: index-based paging (RFC 7644 §3.4.2.4 `startIndex`) over 1,000,000 users without
 * walking the index up to the page. Every SPACING rows of an organization's order, the (key, id) at that
 * position; a page seeks to the checkpoint before it and skips fewer than SPACING rows (at 1,000,000
 * users on SQLite a random page's OFFSET statement took 361 ms, the seek's 2.2 ms: BENCHMARKS.md).
 *
 * Never a wrong page: a checkpoint list holds the organization's order version it was read at
 * (`org_user_counts.order_version`, raised in the transaction of every write that changes the order:
 * src/users/org-user-counts.ts), and a page is served from it only when the same statement that reads the
 * page reads the same version; otherwise the caller takes the OFFSET path. Kept per process: other
 * processes' writes are seen through the version in the database.
 */
const SPACING = 1000;
/** Orders (organization × sort key × direction) kept per process; the least recently built go first. */
const MAX_ORDERS = 64;
/** After a stale list, a new walk only once the time since the last is 10× what that walk took. */
const REBUILD_FACTOR = 10;

interface Checkpoints {
  version: number;
  keys: OrderKey[];
  builtAt: number;
  buildMs: number;
}

/** Per data source: the lists by order, and the walks under way (pages that find a list stale at once share one). */
interface Kept {
  orders: Map<string, Checkpoints>;
  walking: Map<string, Promise<Checkpoints | undefined>>;
}

const keptBySource = new WeakMap<DataSource, Kept>();
const logger = new Logger('user-order-checkpoints');

/**
 * The page of `limit` rows at `offset` in the organization's unfiltered order by `column` then id, or
 * undefined when checkpoints cannot serve it (a shallow page, no current checkpoints, past the end):
 * the caller then reads it with OFFSET. Without current checkpoints, this starts reading them. `select`: the
 * columns read, as `humanUserPage` takes them.
 */
export async function pageFromCheckpoints(
  dataSource: DataSource,
  orgId: string,
  column: CheckpointColumn,
  descending: boolean,
  offset: number,
  limit: number,
  select: string,
): Promise<UserRow[] | undefined> {
  if (offset < SPACING || limit === 0) return undefined;
  let kept = keptBySource.get(dataSource);
  if (!kept) keptBySource.set(dataSource, (kept = { orders: new Map(), walking: new Map() }));
  const name = `${orgId} ${column} ${descending ? 'desc' : 'asc'}`;
  const page = (checkpoints: Checkpoints) => seekPage(dataSource, orgId, column, descending, checkpoints, offset, limit, select);
  const cached = kept.orders.get(name);
  if (cached) {
    const rows = await page(cached);
    if (rows) return rows;
    if (Date.now() - cached.builtAt < REBUILD_FACTOR * cached.buildMs) return undefined;
  }
  // The walk goes on behind this page, which takes the OFFSET path: on MariaDB 1,000 seeks took seconds at
  // 1,000,000 users, and no page should wait for them.
  walk(dataSource, kept, name, () => orderCheckpoints(dataSource, orgId, column, descending, SPACING, () => readsCommittedState(dataSource))).catch(
    (error: unknown) => logger.warn(`sort-key checkpoints of ${name} not read: ${error instanceof Error ? error.message : String(error)}`),
  );
  return undefined;
}

/** A new list for the order, read by one walk of its index however many pages wait for it. */
function walk(
  dataSource: DataSource,
  { orders, walking }: Kept,
  name: string,
  read: () => ReturnType<typeof orderCheckpoints>,
): Promise<Checkpoints | undefined> {
  if (!readsCommittedState(dataSource)) return Promise.resolve(undefined);
  let pending = walking.get(name);
  if (!pending) {
    const started = Date.now();
    pending = read()
      .then((found) => {
        if (!found) return undefined;
        const checkpoints = { ...found, builtAt: Date.now(), buildMs: Date.now() - started };
        orders.delete(name);
        orders.set(name, checkpoints);
        if (orders.size > MAX_ORDERS) orders.delete(orders.keys().next().value!);
        return checkpoints;
      })
      .finally(() => walking.delete(name));
    walking.set(name, pending);
  }
  return pending;
}

async function seekPage(
  dataSource: DataSource,
  orgId: string,
  column: CheckpointColumn,
  descending: boolean,
  checkpoints: Checkpoints,
  offset: number,
  limit: number,
  select: string,
): Promise<UserRow[] | undefined> {
  const index = Math.floor(offset / SPACING);
  if (index >= checkpoints.keys.length || !readsCommittedState(dataSource)) return undefined;
  const { version, rows } = await humanUserPageAfter(dataSource, orgId, column, descending, checkpoints.keys[index], offset - index * SPACING, limit, select);
  // An empty page cannot show its version; the OFFSET path answers it (past the end, or emptied since).
  return version === checkpoints.version && rows.length > 0 ? rows : undefined;
}

/**
 * SQLite's one shared connection sees the writes of a transaction still open on it; a version read
 * there could be rolled back and later reached again by other writes, so neither checkpoints nor pages
 * are read from it then. MySQL/MariaDB reads use pooled connections outside any transaction.
 */
function readsCommittedState(dataSource: DataSource): boolean {
  return !sqliteStatementsOf(dataSource)?.inTransaction;
}
