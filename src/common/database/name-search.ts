import { type EntityManager, type FindOperator, Raw } from 'typeorm';
import { FOLD_SQL_FUNCTION, foldCase } from '../text/case-fold.js';

/**
 * `column` contains `query`, compared by the service's one case-insensitive rule (src/common/text/case-fold.ts):
 * the `?query=` of the lists of organizations, projects, applications and groups (docs/product-rules.md, "API").
 * A substring match reads every row of the (small, per-organization) list; `%` and `_` match themselves.
 */
export function nameContains(manager: EntityManager, query: string): FindOperator<string> {
  return Raw((column) => `${foldedColumn(manager, column)} LIKE :nameQuery ESCAPE '!'`, { nameQuery: likeContains(query) });
}

/** SQL of `column` folded by the service's case rule, to compare with `likeContains`. */
export function foldedColumn(manager: EntityManager, column: string): string {
  // MariaDB's LOWER() maps "İ" to "i" where toLowerCase() gives "i̇" (i + U+0307): spelled out first.
  if (manager.connection.options.type === 'better-sqlite3') return `${FOLD_SQL_FUNCTION}(${column})`;
  return `REPLACE(LOWER(REPLACE(${column}, 'İ', 'i̇')), 'ς', 'σ')`;
}

/** The `LIKE … ESCAPE '!'` pattern of a column, already folded, that contains `query`. */
export function likeContains(query: string): string {
  return `%${escapeLike(foldCase(query))}%`;
}

/** The same rule for a list read whole in memory (organizations, groups). */
export function textContains(text: string, query: string): boolean {
  return foldCase(text).includes(foldCase(query));
}

/** `%`, `_` and the escape character itself match literally. */
function escapeLike(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}
