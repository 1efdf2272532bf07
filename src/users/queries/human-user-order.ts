import type { DataSource } from 'typeorm';
import { literalLimit } from '../../common/database/placeholders.js';
import { statementsOf } from '../../common/database/statements.js';
import { USER_COLUMNS } from './user-columns.js';
import type { UserRow } from './human-users.js';

/** A sort column with no NULLs, whose order a checkpoint can seek into: `user_name_lower` or `id`. */
export type CheckpointColumn = typeof USER_COLUMNS.userNameLower | typeof USER_COLUMNS.id;

/** The (key, id) of the row at one position of an organization's order. */
export interface OrderKey {
  k: string;
  id: string;
}

/** The column carrying the order version in each row of a page read by `humanUserPageAfter`. */
const VERSION = 'page_order_version__';

const order = (column: CheckpointColumn, descending: boolean) => {
  const direction = descending ? 'DESC' : 'ASC';
  return `u.${column} ${direction}, u.${USER_COLUMNS.id} ${direction}`;
};
const humans = `u.${USER_COLUMNS.orgId} = ? AND u.${USER_COLUMNS.type} = 'human'`;
const version = `(SELECT order_version FROM org_user_counts WHERE org_id = ?)`;

/**
 * The (key, id) at positions 0, spacing, 2·spacing, … of the organization's human users in that order,
 * with the order version they hold for, or undefined when that version changed during the walk. One short
 * seek per checkpoint, each skipping `spacing` entries of the (org, type, key, id) index: at 1,000,000
 * users a ROW_NUMBER() window over the same index took ≈ 3.5 s on SQLite (it materialises every row).
 * The statements are several, so the version is read before and after: it only rises with committed
 * changes of the order, hence an equal version means every statement saw the same order.
 * `stillCommitted` is asked before each statement (src/users/user-order-checkpoints.ts). On SQLite the walk
 * holds the event loop (≈ 0.6 s at 1,000,000 users): yielding between seeks let queued OFFSET pages starve it
 * for tens of seconds under load, each of them far dearer than the whole walk.
 */
export async function orderCheckpoints(
  dataSource: DataSource,
  orgId: string,
  column: CheckpointColumn,
  descending: boolean,
  spacing: number,
  stillCommitted: () => boolean,
): Promise<{ version: number; keys: OrderKey[] } | undefined> {
  const statements = statementsOf(dataSource);
  const readVersion = async () => Number((await statements.rows<{ v: number | string | null }>(`SELECT ${version} AS v`, [orgId]))[0]?.v ?? NaN);
  const first = `SELECT u.${column} AS k, u.${USER_COLUMNS.id} AS id FROM users u WHERE ${humans} ORDER BY ${order(column, descending)} LIMIT 1`;
  const next = `SELECT u.${column} AS k, u.${USER_COLUMNS.id} AS id FROM users u WHERE ${humans} AND ${seekFrom(column, descending)} ORDER BY ${order(column, descending)} LIMIT 1 OFFSET ${literalLimit(spacing)}`;
  if (!stillCommitted()) return undefined;
  const before = await readVersion();
  const keys: OrderKey[] = [];
  for (let key = (await statements.rows<OrderKey>(first, [orgId]))[0]; key; ) {
    keys.push(key);
    if (!stillCommitted()) return undefined;
    key = (await statements.rows<OrderKey>(next, [orgId, key.k, key.k, key.id]))[0];
  }
  if (!stillCommitted() || Number.isNaN(before) || (await readVersion()) !== before) return undefined;
  return { version: before, keys };
}

/** Rows at or after (?, ?) = (key, id) in the order: a range of the index, ties on the key by id. */
function seekFrom(column: CheckpointColumn, descending: boolean): string {
  const [past, atOrPast] = descending ? ['<', '<='] : ['>', '>='];
  return `u.${column} ${atOrPast} ? AND (u.${column} ${past} ? OR u.${USER_COLUMNS.id} ${atOrPast} ?)`;
}

/**
 * The page of `limit` users that starts `skip` rows after `from` in that order (`from` itself counted),
 * each row carrying the organization's order version read in the same statement. Rows come from a seek
 * into the (org, type, key, id) index, then a short OFFSET, then a deferred join as in `humanUserPage`;
 * `select` names the columns read (`u.*`, or only those the caller presents: a third less time for the
 * statement of a SCIM page on SQLite than all 33).
 */
export async function humanUserPageAfter(
  dataSource: DataSource,
  orgId: string,
  column: CheckpointColumn,
  descending: boolean,
  from: OrderKey,
  skip: number,
  limit: number,
  select: string,
): Promise<{ version: number | undefined; rows: UserRow[] }> {
  const sql =
    `SELECT ${version} AS ${VERSION}, ${select} FROM users u JOIN ` +
    `(SELECT u.${USER_COLUMNS.id} FROM users u WHERE ${humans} AND ${seekFrom(column, descending)} ORDER BY ${order(column, descending)} LIMIT ${literalLimit(limit)} OFFSET ?) p ` +
    `ON p.${USER_COLUMNS.id} = u.${USER_COLUMNS.id} ORDER BY ${order(column, descending)}`;
  const rows = await statementsOf(dataSource).rows<UserRow>(sql, [orgId, orgId, from.k, from.k, from.id, skip]);
  const first = rows[0]?.[VERSION];
  return { version: first === undefined || first === null ? undefined : Number(first), rows };
}
