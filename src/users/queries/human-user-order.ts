import type { DataSource } from 'typeorm';
import { literalLimit } from '../../common/database/placeholders.js';
import { statementsOf } from '../../common/database/statements.js';
import { USER_COLUMNS } from './user-columns.js';
import type { UserRow } from './human-users.js';

/** A sort column with no NULLs, whose order a checkpoint can seek into: `user_name_lower` or `id`. */
export type CheckpointColumn = typeof USER_COLUMNS.userNameLower | typeof USER_COLUMNS.id;

/** The (key, id) of the row at one position of an organization's order. */
export interface OrderKey {
  key: string;
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
 * with the order version they were read at: one statement, so one snapshot on both databases. One walk
 * of the (org, type, key, id) index.
 */
export async function orderCheckpoints(dataSource: DataSource, orgId: string, column: CheckpointColumn, descending: boolean, spacing: number): Promise<{ version: number; keys: OrderKey[] } | undefined> {
  const sql =
    `SELECT ${version} AS version, n.k, n.id FROM ` +
    `(SELECT u.${column} AS k, u.${USER_COLUMNS.id} AS id, ROW_NUMBER() OVER (ORDER BY ${order(column, descending)}) AS rn FROM users u WHERE ${humans}) n ` +
    `WHERE (n.rn - 1) % ${literalLimit(spacing)} = 0 ORDER BY n.rn`;
  const rows = await statementsOf(dataSource).rows<{ version: number | string | null; k: string; id: string }>(sql, [orgId, orgId]);
  if (rows.length === 0 || rows[0].version === null) return undefined;
  return { version: Number(rows[0].version), keys: rows.map((r) => ({ key: r.k, id: r.id })) };
}

/**
 * The page of `limit` users that starts `skip` rows after `from` in that order (`from` itself counted),
 * each row carrying the organization's order version read in the same statement. Rows come from a seek
 * into the (org, type, key, id) index, then a short OFFSET, then a deferred join as in `humanUserPage`.
 */
export async function humanUserPageAfter(dataSource: DataSource, orgId: string, column: CheckpointColumn, descending: boolean, from: OrderKey, skip: number, limit: number): Promise<{ version: number | undefined; rows: UserRow[] }> {
  const [past, atOrPast] = descending ? ['<', '<='] : ['>', '>='];
  const seek = `u.${column} ${atOrPast} ? AND (u.${column} ${past} ? OR u.${USER_COLUMNS.id} ${atOrPast} ?)`;
  const sql =
    `SELECT ${version} AS ${VERSION}, u.* FROM users u JOIN ` +
    `(SELECT u.${USER_COLUMNS.id} FROM users u WHERE ${humans} AND ${seek} ORDER BY ${order(column, descending)} LIMIT ${literalLimit(limit)} OFFSET ?) p ` +
    `ON p.${USER_COLUMNS.id} = u.${USER_COLUMNS.id} ORDER BY ${order(column, descending)}`;
  const rows = await statementsOf(dataSource).rows<UserRow>(sql, [orgId, orgId, from.key, from.key, from.id, skip]);
  const first = rows[0]?.[VERSION];
  return { version: first === undefined || first === null ? undefined : Number(first), rows };
}
