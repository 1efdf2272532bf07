import { dirname } from 'node:path';
import { DataSource } from 'typeorm';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/config.js';
import { ownerOnlyDir, ownerOnlyFile } from '../fs/owner-only.js';
import { FOLD_SQL_FUNCTION, foldCase } from '../text/case-fold.js';
import { onHealthyNode } from './database-nodes.js';
import { MIGRATIONS } from './migrations/index.js';

/** The table mappings a data source knows; the application's list is src/entities.ts (common names no domain entity). */
export type EntityList = NonNullable<DataSourceOptions['entities']>;

/** TypeORM options for the configured database; migrations only, never `synchronize` (STYLE §8). */
export function dataSourceOptions(database: DatabaseConfig, entities: EntityList): DataSourceOptions {
  const common = { entities, migrations: MIGRATIONS, synchronize: false, migrationsRun: false, logging: false } as const;
  if (database.type === 'sqlite') {
    if (database.path !== ':memory:') {
      ownerOnlyDir(dirname(database.path));
      ownerOnlyFile(database.path, [`${database.path}-wal`, `${database.path}-shm`]);
    }
    return {
      ...common,
      type: 'better-sqlite3',
      database: database.path,
      enableWAL: true,
      // Writers from other processes (WORKERS > 1) wait up to this long for the write lock; past it the
      // request fails fast with 503 (the file is locked: an outage, not contention).
      timeout: database.busyTimeoutMs,
      prepareDatabase: (db: SqliteConnection) => {
        db.pragma('synchronous = NORMAL');
        db.pragma(`busy_timeout = ${database.busyTimeoutMs}`);
        beginImmediate(db);
        // Case-insensitive comparison in SQL with the application's rule (src/common/text/case-fold.ts).
        db.function(FOLD_SQL_FUNCTION, { deterministic: true }, (value: unknown) => (typeof value === 'string' ? foldCase(value) : value));
      },
    };
  }
  const url = new URL(database.url);
  return {
    ...common,
    type: 'mysql',
    host: url.hostname,
    port: url.port ? Number(url.port) : 3306,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.slice(1),
    charset: 'utf8mb4_bin',
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: false,
    // Fail fast while the server is down, so requests answer 503 instead of hanging.
    connectTimeout: 3000,
    extra: { connectionLimit: Number(url.searchParams.get('connectionLimit') ?? 10) },
  };
}

export function createDataSource(database: DatabaseConfig, entities: EntityList): DataSource {
  return new DataSource(dataSourceOptions(database, entities));
}

/** A connected data source; with a list of hosts in DATABASE_URL, on the first healthy node. */
export async function openDataSource(database: DatabaseConfig, entities: EntityList): Promise<DataSource> {
  return createDataSource(await onHealthyNode(database), entities).initialize();
}

interface SqliteConnection {
  pragma(source: string): unknown;
  prepare(source: string): unknown;
  function(name: string, options: { deterministic: boolean }, implementation: (value: unknown) => unknown): unknown;
}

/**
 * Makes every transaction `BEGIN IMMEDIATE`. TypeORM always opens SQLite transactions DEFERRED, which
 * read from a snapshot and upgrade to the write lock at their first write: when another process
 * (WORKERS > 1) committed in between, that upgrade fails at once with SQLITE_BUSY_SNAPSHOT instead of
 * waiting the busy timeout. Taking the write lock at BEGIN makes concurrent writers queue as intended.
 * TypeORM offers no option for the transaction mode, so the statement is rewritten where it is prepared.
 */
function beginImmediate(db: SqliteConnection): void {
  const prepare = db.prepare.bind(db);
  db.prepare = (source: string) => prepare(source === 'BEGIN TRANSACTION' ? 'BEGIN IMMEDIATE TRANSACTION' : source);
}
