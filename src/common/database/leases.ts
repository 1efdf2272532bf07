import { randomUUID } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import { contentionOf } from './database-unavailable.js';
import type { UnitOfWork } from './unit-of-work.js';

/**
 * Leases: a row per name that one process holds until `expires_at` (milliseconds since the epoch), taking turns
 * between processes on one database — also between the nodes of a Galera cluster, where a named lock (`GET_LOCK`)
 * or a `SELECT … FOR UPDATE` is local to one node but a write is certified against every node's writes (see
 * docs/high-availability.md). A process that dies holding one loses it when it expires.
 *
 * The migrator creates the table before anything else, as TypeORM creates its `migrations` table: the lease that
 * orders migrations cannot live in a table a migration makes.
 */
const CREATE_SQL = 'CREATE TABLE IF NOT EXISTS leases (name VARCHAR(100) NOT NULL PRIMARY KEY, holder VARCHAR(64) NOT NULL, expires_at BIGINT NOT NULL)';

/** This process, as a lease holder. */
export const THIS_PROCESS = `${process.pid}-${randomUUID()}`;

export async function createLeasesTable(dataSource: DataSource): Promise<void> {
  await dataSource.query(CREATE_SQL);
}

/**
 * Takes the lease `name` for `holder` until `ttlMs` from now, or renews it; true when `holder` holds it. False when
 * another holder's lease has not expired, or when another node took it at the same moment (Galera certifies the two
 * updates against each other and rolls one back with 1213: that one simply did not get the lease).
 *
 * The update comes first and the row is only inserted when it did not take: an `INSERT IGNORE` of a row that exists
 * holds a shared lock on it until the transaction ends, so two renewals of one holder (a process's lease ticker and a
 * write of its progress) would each wait for the other's shared lock to update, and InnoDB would roll one back — a
 * holder losing its lease to itself.
 */
export async function takeLease(runner: QueryRunner, name: string, ttlMs: number, holder = THIS_PROCESS, now = Date.now()): Promise<boolean> {
  const update = async () =>
    (
      await runner.query(
        'UPDATE leases SET holder = ?, expires_at = ? WHERE name = ? AND (holder = ? OR expires_at < ?)',
        [holder, now + ttlMs, name, holder, now],
        true,
      )
    ).affected === 1;
  try {
    if (await update()) return true;
    // Its first take, or another holder's lease.
    const insert = runner.connection.options.type === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
    await runner.query(`${insert} INTO leases (name, holder, expires_at) VALUES (?, ?, 0)`, [name, holder]);
    return await update();
  } catch (error) {
    if (contentionOf(error) === 'deadlock') return false;
    throw error;
  }
}

/** Gives the lease up at once, if `holder` still holds it. */
export async function releaseLease(runner: QueryRunner, name: string, holder = THIS_PROCESS): Promise<void> {
  await runner.query('UPDATE leases SET expires_at = 0 WHERE name = ? AND holder = ?', [name, holder]);
}

/**
 * Runs `work` in this process only if no other process holds the lease `name`, renewing it every third of `ttlMs`
 * while `work` runs; answers undefined without running it otherwise. For jobs that every process schedules and one
 * should run at a time (the purge of expired OIDC rows). Through the unit of work: on SQLite every statement must
 * queue with the others on the one connection.
 */
export async function whileLeased<T>(uow: UnitOfWork, name: string, ttlMs: number, work: () => Promise<T>): Promise<T | undefined> {
  const take = () => uow.run((manager) => takeLease(manager.queryRunner!, name, ttlMs));
  if (!(await take())) return undefined;
  const renewal = setInterval(() => void take().catch(() => undefined), ttlMs / 3);
  renewal.unref();
  try {
    return await work();
  } finally {
    clearInterval(renewal);
    await uow.run((manager) => releaseLease(manager.queryRunner!, name));
  }
}
