import type { DataSource } from 'typeorm';

/**
 * Helpers for the plain parameterised SQL of the provider's hot paths (token endpoint, introspection,
 * userinfo), run through common/database/statements.ts instead of the repository and query builder,
 * whose per-statement overhead exceeds SQLite's own work for one-row look-ups: the dialect (the column
 * values as the two drivers hand them back are read with common/database/column-values.ts).
 */
type Dialect = 'sqlite' | 'mysql';

export function dialectOf(dataSource: DataSource): Dialect {
  return dataSource.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql';
}
