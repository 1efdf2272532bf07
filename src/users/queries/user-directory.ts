import type { EntityManager } from 'typeorm';
import { foldCase } from '../../common/text/case-fold.js';

/** One user as the management API lists it: no credential, hash or document column is read. */
export interface UserListRow {
  id: string;
  user_name: string;
  type: string;
  state: string;
  display_name: string | null;
  email: string | null;
}

export interface UserListQuery {
  /** Matched case-insensitively as a substring of the user name, the names or the e-mail address. */
  query?: string;
  limit: number;
  offset: number;
}

const LIST_COLUMNS = 'u.id, u.user_name, u.type, u.state, u.display_name, u.email';

/**
 * A page of the organization's users ordered by user name, and how many match.
 *
 * Search is a substring match ("ada" finds "Ada Lovelace", "lovelace" and "ada@example.com"), as an
 * operator searching a console expects. No B-tree index gives a substring a range, so a search reads
 * the organization's entries of `ix_users_org_search` (org_id, user_name_lower, search_text): one pass
 * over a narrow index, bounded by the organization's users, in user-name order, so a page of a frequent
 * term stops early and only the page's rows are read from the table. The page tells the total whenever
 * it is not full; otherwise the count is a second pass over the same index. Without a query, page and
 * count walk the index. The text is stored case-folded by the service's rule (rules/user-search.ts) and
 * the query folded the same way here, so both databases compare plain text alike.
 */
export async function listUsers(manager: EntityManager, orgId: string, page: UserListQuery): Promise<{ rows: UserListRow[]; total: number }> {
  const statements = userListStatements(manager.connection.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql', orgId, page);
  const rows: UserListRow[] = await manager.query(statements.page.sql, statements.page.params);
  const known = rows.length < page.limit && (rows.length > 0 || page.offset === 0);
  if (known) return { rows, total: page.offset + rows.length };
  const [count]: { n: number | string }[] = await manager.query(statements.count.sql, statements.count.params);
  return { rows, total: Number(count?.n ?? 0) };
}

interface Statement {
  sql: string;
  params: unknown[];
}

/** The page and the count statement of `listUsers` (exported for the query-plan test). */
export function userListStatements(dialect: 'sqlite' | 'mysql', orgId: string, page: UserListQuery): { page: Statement; count: Statement } {
  const search = page.query ? matchSql(page.query) : undefined;
  const where = `u.org_id = ?${search ? ` AND ${search.sql}` : ''}`;
  const params = [orgId, ...(search?.params ?? [])];
  // Both indexes give the order, and the planners pick the unique one, which makes the search read every
  // row of the table; named, the search index answers the filter alone and only the page's rows are read.
  const hint = !search ? '' : dialect === 'sqlite' ? ' INDEXED BY ix_users_org_search' : ' FORCE INDEX (ix_users_org_search)';
  // user_name_lower is unique in an organization: a stable order across pages, the order of both indexes.
  const order = 'ORDER BY u.user_name_lower';
  // InnoDB reads the whole row of every skipped one (seconds at offset 100,000); a deferred join takes the
  // page's ids from the index alone (its entries carry the primary key), then reads only those rows.
  // SQLite defers the row look-up of skipped rows by itself, and its index entries carry no `id`.
  const sql =
    dialect === 'sqlite'
      ? `SELECT ${LIST_COLUMNS} FROM users u${hint} WHERE ${where} ${order} LIMIT ? OFFSET ?`
      : `SELECT ${LIST_COLUMNS} FROM users u JOIN (SELECT u.id FROM users u${hint} WHERE ${where} ${order} LIMIT ? OFFSET ?) p ON p.id = u.id ${order}`;
  return {
    page: { sql, params: [...params, page.limit, page.offset] },
    count: { sql: `SELECT COUNT(*) AS n FROM users u${hint} WHERE ${where}`, params },
  };
}

function matchSql(query: string): { sql: string; params: string[] } {
  return { sql: "u.search_text LIKE ? ESCAPE '!'", params: [`%${escapeLike(foldCase(query))}%`] };
}

/** `%`, `_` and the escape character itself match literally. */
function escapeLike(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}
