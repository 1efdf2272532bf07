import type { DataSource } from 'typeorm';
import type { DatabaseConfig } from '../config/config.js';
import { openDataSource } from './data-source.js';
import { createLeasesTable } from './leases.js';
import { withMigrationLock } from './migration-lock.js';

/** What the database holds against what this code knows (docs/operations.md, "Upgrading"). */
interface MigrationState {
  applied: string[];
  /** Known to this code, not yet applied. */
  pending: string[];
  /** Applied by a newer version of Portcullis: this code must not run on that schema. */
  unknown: string[];
}

/** The database was upgraded by a newer version: running older code on it could corrupt data. */
export class SchemaNewerError extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `the database schema is newer than this version of Portcullis: it holds migration(s) ${unknown.join(', ')}, which this version does not know. ` +
        'Run the newer version (or restore the backup taken before the upgrade); nothing was changed.',
    );
  }
}

export async function migrationState(dataSource: DataSource): Promise<MigrationState> {
  const known = dataSource.migrations.map(migrationName);
  const runner = dataSource.createQueryRunner();
  try {
    const hasTable = await runner.hasTable('migrations');
    const applied: string[] = hasTable
      ? (await runner.query('SELECT name FROM migrations ORDER BY timestamp, id')).map((row: { name: string }) => row.name)
      : [];
    const appliedSet = new Set(applied);
    const knownSet = new Set(known);
    return { applied, pending: known.filter((name) => !appliedSet.has(name)), unknown: applied.filter((name) => !knownSet.has(name)) };
  } finally {
    await runner.release();
  }
}

/**
 * Applies pending migrations, each in its own transaction, and returns the names applied. Several
 * processes may start at once on one database: on MySQL they take turns under a lease, and whoever
 * comes second finds nothing left to do. A schema newer than this code is refused before anything runs.
 */
export async function migrate(database: DatabaseConfig): Promise<string[]> {
  // Migrations work on tables, not on entities: no table mappings needed.
  const dataSource = await openDataSource(database, []);
  try {
    await createLeasesTable(dataSource);
    return await withMigrationLock(dataSource, async () => {
      const state = await migrationState(dataSource);
      if (state.unknown.length > 0) throw new SchemaNewerError(state.unknown);
      if (state.pending.length === 0) return [];
      return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
    });
  } finally {
    await dataSource.destroy();
  }
}

function migrationName(migration: { name?: string; constructor: { name: string } }): string {
  return migration.name ?? migration.constructor.name;
}
