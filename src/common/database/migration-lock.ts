import type { DataSource } from 'typeorm';

/** How long a starting process waits for another one's migrations before giving up. */
const LOCK_WAIT_SECONDS = 600;

/**
 * Runs `work` while holding a MySQL named lock (GET_LOCK) for this database, so that processes starting
 * together apply migrations one after the other; a lock dies with its connection, so a crashed process
 * never leaves it behind. SQLite needs none: one host, and its migrations run in the cluster primary.
 */
export async function withMigrationLock<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  if (dataSource.options.type !== 'mysql') return work();
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    const [row] = await runner.query("SELECT GET_LOCK(CONCAT('portcullis.migrate.', DATABASE()), ?) AS got", [LOCK_WAIT_SECONDS]);
    if (Number(row?.got) !== 1) throw new Error(`another process has held the migration lock for over ${LOCK_WAIT_SECONDS} s; is a migration stuck?`);
    try {
      return await work();
    } finally {
      await runner.query("SELECT RELEASE_LOCK(CONCAT('portcullis.migrate.', DATABASE()))");
    }
  } finally {
    await runner.release();
  }
}
