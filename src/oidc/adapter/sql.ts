import type { DataSource } from 'typeorm';

/**
 * Helpers for the plain parameterised SQL of the provider's hot paths (token endpoint, introspection,
 * userinfo), run through common/database/statements.ts instead of the repository and query builder,
 * whose per-statement overhead exceeds SQLite's own work for one-row look-ups: the dialect, and the
 * column values as the two drivers hand them back.
 */
type Dialect = 'sqlite' | 'mysql';

export function dialectOf(dataSource: DataSource): Dialect {
  return dataSource.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql';
}

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
