import { readFileSync } from 'node:fs';
import type { AppConfig } from '../config/config.js';

/** The version in package.json, which the Docker image and a checkout both carry beside dist/. */
export function serviceVersion(): string {
  try {
    const file = new URL('../../../../package.json', import.meta.url);
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The first line an operator reads: what runs, on which database, at which address (docs/operations.md, "Start-up").
 * Never a password: a MySQL URL is reduced to its hosts and database.
 */
export function startUpSummary(config: AppConfig): string {
  const database =
    config.database.type === 'sqlite'
      ? `SQLite ${config.database.path}`
      : `MySQL/MariaDB ${config.database.nodes.map((n) => `${n.host}:${n.port}`).join(',')}${new URL(config.database.url).pathname}`;
  const workers = config.workers === 1 ? '1 process' : `${config.workers} worker processes`;
  return (
    `Portcullis ${serviceVersion()} on Node.js ${process.versions.node}: database ${database}; PUBLIC_URL ${config.publicUrl}; ` +
    `DATA_DIR ${config.dataDir}; port ${config.port}, management ${config.management.host}:${config.management.port}; ${workers}`
  );
}

type Failure = Error & { code?: unknown; errno?: unknown; port?: unknown; address?: unknown; syscall?: unknown; sqlMessage?: unknown };

/**
 * What stopped start-up, as one line that says what to change, for the failures an operator meets on a first day:
 * a port in use, a database that refuses or does not exist, a data directory that cannot be written. Anything else
 * is a defect and keeps its stack (undefined here).
 */
export function startUpProblem(error: unknown, config: AppConfig): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const e = error as Failure;
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (e.syscall === 'listen') {
    const port = Number(e.port);
    const setting = port === config.management.port ? 'MANAGEMENT_PORT' : 'PORT';
    if (code === 'EADDRINUSE')
      return `port ${port} is already in use (EADDRINUSE, ${setting}): stop the process that holds it or set ${setting} to a free port`;
    if (code === 'EACCES') return `port ${port} needs privileges this process does not have (${setting}): use a port above 1023 behind a proxy`;
    if (code === 'EADDRNOTAVAIL') return `address ${String(e.address)} is not one of this machine's (${setting === 'PORT' ? 'PORT' : 'MANAGEMENT_HOST'})`;
  }
  if (config.database.type === 'mysql') {
    const where = `${config.database.nodes.map((n) => `${n.host}:${n.port}`).join(',')} (DATABASE_URL)`;
    const name = new URL(config.database.url).pathname.slice(1);
    switch (code) {
      case 'ECONNREFUSED':
        return `the database server at ${where} refused the connection: is it running and listening there?`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `the database host in ${where} cannot be resolved: check the host name`;
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return `the database server at ${where} cannot be reached (${code}): check the address and the network between`;
      case 'ER_BAD_DB_ERROR':
        return `database "${name}" does not exist on ${where}: create it (CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4) or fix the name`;
      case 'ER_ACCESS_DENIED_ERROR':
      case 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR':
      case 'ER_DBACCESS_DENIED_ERROR':
        return `the database server at ${where} refused the user and password (${code}): check them and the user's grants on "${name}"`;
    }
  }
  if (config.database.type === 'sqlite' && (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY'))
    return `the SQLite file ${config.database.path} cannot be opened for writing (${code}): check DATA_DIR or DATABASE_URL and its permissions`;
  if ((code === 'EACCES' || code === 'EROFS') && typeof (e as { path?: unknown }).path === 'string')
    return `${(e as unknown as { path: string }).path} cannot be written (${code}): DATA_DIR must be writable by the service's user`;
  return undefined;
}
