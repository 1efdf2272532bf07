import { DomainError, ErrorCode } from '../errors/domain-error.js';

/**
 * True when a database error means the database cannot be reached or is locked, not that the query
 * was wrong: the request should fail fast with 503 and be retried, and the service recovers by itself
 * once the database is back (the pool reconnects; SQLite's lock is released).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; errno?: number; message?: string; driverError?: { code?: string; errno?: number; message?: string } };
  const code = e?.driverError?.code ?? e?.code;
  if (code && UNAVAILABLE_CODES.has(code)) return true;
  const message = e?.driverError?.message ?? e?.message ?? '';
  // Galera's commit on a node that just lost the primary component fails with 1180 and this provider status.
  return /Pool is closed|Connection lost|connect ETIMEDOUT|Can't add new command when connection is in closed state|Not connected to Primary Component/i.test(
    message,
  );
}

/**
 * Writes that collided and were still colliding after the unit of work's last retry (src/common/database/unit-of-work.ts):
 * a deadlock, on Galera a certification conflict (1213), or a lock wait timeout (1205). The server is up; the client
 * should try again shortly, so 503 with `Retry-After` (docs/high-availability.md), never 500 — but no outage is reported.
 */
const CONTENTION_CODES = ['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT'];

/** Which contention an error is: a deadlock or certification conflict (1213), a lock wait timeout (1205), or none. */
export function contentionOf(error: unknown): 'deadlock' | 'lock_wait_timeout' | undefined {
  const e = error as { code?: string; driverError?: { code?: string } };
  const code = e?.driverError?.code ?? e?.code;
  return code === 'ER_LOCK_DEADLOCK' ? 'deadlock' : code === 'ER_LOCK_WAIT_TIMEOUT' ? 'lock_wait_timeout' : undefined;
}

export function isContention(error: unknown): boolean {
  return contentionOf(error) !== undefined;
}

const UNAVAILABLE_CODES = new Set([
  // SQLite: another process holds the write lock beyond the busy timeout.
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_TIMEOUT',
  'SQLITE_LOCKED',
  // MySQL / MariaDB: the server is down, restarting or refusing connections.
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_SERVER_GONE_ERROR',
  ...CONTENTION_CODES,
  // MariaDB Galera (1047): this node is outside the cluster's primary component (lost its quorum, or is still
  // joining); another node may take the request (docs/high-availability.md).
  'ER_UNKNOWN_COM_ERROR',
]);

/** The answer to a request that met an outage: DomainError Unavailable, which every surface maps to 503. */
export function databaseUnavailable(): DomainError {
  return new DomainError(ErrorCode.Unavailable, 'the database is unavailable; retry shortly');
}
