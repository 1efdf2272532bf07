import type { EntityManager } from 'typeorm';
import { placeholders } from './placeholders.js';

/** Bound values per statement: well below SQLite's limit (32,766), and enough to spread a statement's overhead thin. */
const MAX_PARAMETERS = 16_000;

/**
 * A multi-row INSERT with bound values, in as few statements as that limit allows. TypeORM's insert
 * builder spends time quadratic in the number of parameters per statement and writes some values into
 * the SQL text (a new statement to prepare for every timestamp); at import sizes it cost more than the
 * database itself, and on the SCIM write path a large part of a request.
 */
export async function insertValues(manager: EntityManager, table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const quote = (name: string) => manager.connection.driver.escape(name);
  const head = `INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES `;
  const tuple = `(${placeholders(columns.length)})`;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns.length));
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const parameters: unknown[] = [];
    for (const row of chunk) for (const value of row) parameters.push(value);
    await manager.query(head + new Array(chunk.length).fill(tuple).join(', '), parameters);
  }
}
