import type { DataSource, QueryRunner } from 'typeorm';
import { THIS_PROCESS, releaseLease, takeLease } from './leases.js';

/** How long a starting process waits for another one's migrations before giving up. */
const WAIT_MS = 600_000;
/** The lease outlives a holder that died by this long; a live holder renews it every third of it. */
const LEASE_MS = 30_000;
const POLL_MS = 250;
const LEASE = 'migrations';

/**
 * Runs `work` while holding the `migrations` lease (src/common/database/leases.ts), so that processes starting
 * together apply migrations one after the other, also through different nodes of a Galera cluster (a named lock,
 * `GET_LOCK`, would be local to one node; docs/high-availability.md). A process that crashes mid-migration leaves the lease to
 * expire within LEASE_MS. Two instances on one SQLite file need it too: without it, the second fails on a table the
 * first's migration has just created.
 */
export async function withMigrationLock<T>(dataSource: DataSource, work: () => Promise<T>, holder = THIS_PROCESS): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await waitForLease(runner, holder);
    const renewal = setInterval(() => void takeLease(runner, LEASE, LEASE_MS, holder).catch(() => undefined), LEASE_MS / 3);
    try {
      return await work();
    } finally {
      clearInterval(renewal);
      await releaseLease(runner, LEASE, holder);
    }
  } finally {
    await runner.release();
  }
}

async function waitForLease(runner: QueryRunner, holder: string): Promise<void> {
  for (const deadline = Date.now() + WAIT_MS; !(await takeLease(runner, LEASE, LEASE_MS, holder)); ) {
    if (Date.now() > deadline) throw new Error(`another process has held the migration lease for over ${WAIT_MS / 1000} s; is a migration stuck?`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
