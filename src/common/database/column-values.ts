/**
 * Column values of plain SQL (common/database/statements.ts) as the two drivers hand them back:
 * better-sqlite3 and mysql2 differ in how they return BIGINT, BOOLEAN and JSON held in TEXT.
 */

/** Epoch milliseconds (BIGINT columns, see common/database/columns.ts) as a number; mysql2 may hand back strings. */
export function millis(value: unknown): number | null {
  return value == null ? null : Number(value);
}

/** BOOLEAN columns: 0/1 on both databases (mysql2 TINYINT, better-sqlite3 INTEGER). */
export function flag(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** JSON held in a TEXT column. */
export function json<T>(value: unknown, fallback: T): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value == null ? fallback : (value as T);
}
