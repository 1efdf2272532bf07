import type { DataSource } from 'typeorm';
import { migrationState } from '../database/migrate.js';

/** How long a readiness probe waits for the database before calling it unreachable. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * Ready means the database answers and every migration this code knows is applied. A database
 * upgraded by a newer version, or one another process is still migrating, is not ready for this code.
 */
export function databaseReadiness(dataSource: DataSource): () => Promise<string | undefined> {
  return async () => {
    let state;
    try {
      state = await withTimeout(migrationState(dataSource), PROBE_TIMEOUT_MS);
    } catch {
      return 'the database is not reachable';
    }
    if (state.unknown.length > 0) return 'the database schema is newer than this version';
    return state.pending.length > 0 ? 'migrations are pending' : undefined;
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
