import type { EntityManager } from 'typeorm';
import { positional } from '../../common/database/named-parameters.js';
import { literalLimit } from '../../common/database/placeholders.js';
import { readRows } from '../../common/database/statements.js';
import type { Statements } from '../../common/database/statements.js';

/** A raw row of `users`, every column, as the driver returns it. */
export type UserRow = Record<string, unknown>;

/** A `WHERE` fragment over `users u` with named parameters (`:name`), such as the SCIM filter compiles to. */
export interface HumanUserQuery {
  where: string;
  params: Record<string, unknown>;
  /** An `ORDER BY` list over `users u` (columns from USER_COLUMNS), ending in a unique key for stable pages. */
  order: string;
}

/** The human user of that id in that organization; inside a transaction when given its manager. */
export async function humanUserRow(manager: EntityManager, orgId: string, id: string): Promise<UserRow | undefined> {
  const [row] = await readRows<UserRow>(manager, `SELECT u.* FROM users u WHERE u.id = ? AND u.org_id = ? AND u.type = 'human'`, [id, orgId]);
  return row;
}

/**
 * One page of users. From the first row a plain LIMIT reads only the page; deeper, a deferred join takes
 * the page's ids from the (org, type, key, id) index alone, so skipped rows are never read. Hand-written
 * SQL: this is the hottest read path of SCIM (docs/decisions/raw-sql-on-hot-paths.md). `reads` runs the
 * statements: the data source's, or bounded ones for a costly filter (common/database/bounded-reads.ts).
 * `columns`: the select list over `users u` (every column by default; SCIM reads those it presents).
 * `deferred` also takes the ids first from the first row on: a keyset page (a range on the sort key) does, as
 * MariaDB 10.11 plans `org_id = ? AND key > ?` with every column selected as a walk of the organization's part of
 * the index from its start, testing each entry (500,000 tested for a page halfway through 1,000,000), but seeks
 * when only ids are selected (BENCHMARKS.md, "Deep SCIM pages by cursor").
 */
export function humanUserPage(
  reads: Statements,
  query: HumanUserQuery,
  limit: number,
  offset: number,
  columns = 'u.*',
  deferred = offset > 0,
): Promise<UserRow[]> {
  const { where, order } = query;
  const sql = !deferred
    ? `SELECT ${columns} FROM users u WHERE ${where} ORDER BY ${order} LIMIT ${literalLimit(limit)}`
    : `SELECT ${columns} FROM users u JOIN (SELECT u.id FROM users u WHERE ${where} ORDER BY ${order} LIMIT ${literalLimit(limit)} OFFSET :offset) p ON p.id = u.id ORDER BY ${order}`;
  return namedQuery(reads, sql, deferred ? { ...query.params, offset } : query.params);
}

/** How many users the fragment matches. */
export async function countUsersWhere(reads: Statements, where: string, params: Record<string, unknown>): Promise<number> {
  const [row] = await namedQuery(reads, `SELECT COUNT(*) AS n FROM users u WHERE ${where}`, params);
  return Number(row?.n ?? 0);
}

/** Named parameters (`:name`) to the drivers' positional `?`, in order of appearance. */
async function namedQuery(reads: Statements, sql: string, named: Record<string, unknown>): Promise<UserRow[]> {
  const statement = positional(sql, named);
  return reads.rows<UserRow>(statement.sql, statement.values);
}
