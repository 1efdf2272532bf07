import type { EntityManager } from 'typeorm';

/**
 * Runs a write and answers how many rows it changed, through the manager's own query runner (its transaction): the
 * drivers answer plain `query` differently (mysql2 `{affectedRows}`, better-sqlite3 rows), the structured result alike.
 */
export async function changedRows(manager: EntityManager, sql: string, parameters: unknown[]): Promise<number> {
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    return (await runner.query(sql, parameters, true)).affected ?? 0;
  } finally {
    if (!manager.queryRunner) await runner.release();
  }
}
