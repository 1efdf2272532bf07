import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { insertValues } from '../common/database/insert-values.js';

/**
 * INSERT and UPDATE of entities as plain parameterised SQL, with TypeORM's own value conversions
 * (column transformers, booleans, dates) through the driver. TypeORM's builders write numbers and
 * booleans into the SQL text, so every timestamp made a new statement to prepare (and pushed the
 * useful ones out of the driver's statement cache), and `insert` read each row back for its column
 * defaults, which the caller already set. On the SCIM write path that was a large part of a request.
 */
export async function insertRows<T extends ObjectLiteral>(manager: EntityManager, target: EntityTarget<T>, rows: T[]): Promise<void> {
  if (rows.length === 0) return;
  const metadata = manager.connection.getMetadata(target);
  // Columns no row sets are left to their database defaults, as TypeORM does.
  const columns = metadata.columns.filter((c) => rows.some((row) => c.getEntityValue(row) !== undefined));
  const values = rows.map((row) => columns.map((column) => persistent(manager, column, row)));
  await insertValues(
    manager,
    metadata.tableName,
    columns.map((c) => c.databaseName),
    values,
  );
}

/** `UPDATE … SET <changes> WHERE <where>`, both given as entity properties. */
export async function updateRows<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  where: Partial<T>,
  changes: Partial<T>,
): Promise<void> {
  const metadata = manager.connection.getMetadata(target);
  const columnOf = (property: string): ColumnMetadata => {
    const column = metadata.findColumnWithPropertyName(property);
    if (!column) throw new Error(`${metadata.name} has no property ${property}`);
    return column;
  };
  const set = Object.keys(changes)
    .filter((p) => changes[p] !== undefined)
    .map(columnOf);
  const conditions = Object.keys(where).map(columnOf);
  if (set.length === 0) return;
  const sql =
    `UPDATE ${quoteIdentifier(manager, metadata.tableName)} SET ${set.map((c) => `${quoteIdentifier(manager, c.databaseName)} = ?`).join(', ')}` +
    ` WHERE ${conditions.map((c) => `${quoteIdentifier(manager, c.databaseName)} = ?`).join(' AND ')}`;
  await manager.query(sql, [...set.map((c) => persistent(manager, c, changes)), ...conditions.map((c) => persistent(manager, c, where))]);
}

function persistent(manager: EntityManager, column: ColumnMetadata, entity: ObjectLiteral): unknown {
  return manager.connection.driver.preparePersistentValue(column.getEntityValue(entity), column) ?? null;
}

function quoteIdentifier(manager: EntityManager, name: string): string {
  return manager.connection.driver.escape(name);
}
