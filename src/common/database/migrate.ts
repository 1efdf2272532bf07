import type { DatabaseConfig } from '../config/config.js';
import { createDataSource } from './data-source.js';

/** Applies pending migrations, each in its own transaction; returns the names applied. */
export async function migrate(database: DatabaseConfig): Promise<string[]> {
  const dataSource = createDataSource(database);
  await dataSource.initialize();
  try {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await dataSource.destroy();
  }
}
