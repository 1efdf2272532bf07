import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../src/common/config/config.js';
import { migrate } from '../../src/common/database/migrate.js';
import { withMigrationLock } from '../../src/common/database/migration-lock.js';
import { releaseLease, takeLease } from '../../src/common/database/leases.js';
import { openQueryDatabase } from '../domain/queries/query-database.js';
import type { QueryDatabase } from '../domain/queries/query-database.js';

/**
 * Leases (src/common/database/leases.ts) on the configured database: the row that orders migrations and single-runner
 * jobs between processes, where a named lock would be local to one Galera node (docs/high-availability.md). Two holders stand for
 * two processes; times are given, not waited for.
 */
describe('leases', () => {
  let db: QueryDatabase;
  let dataSource: DataSource;
  before(async () => {
    db = await openQueryDatabase();
    dataSource = db.dataSource;
  });
  after(() => db?.close());

  const take = (name: string, holder: string, now: number, ttlMs = 1000) => withRunner((runner) => takeLease(runner, name, ttlMs, holder, now));
  async function withRunner<T>(work: (runner: ReturnType<DataSource['createQueryRunner']>) => Promise<T>): Promise<T> {
    const runner = dataSource.createQueryRunner();
    try {
      return await work(runner);
    } finally {
      await runner.release();
    }
  }

  it('one holder at a time until the lease expires; the holder renews it; a released lease is free at once', async () => {
    const name = `job-${Date.now()}`;
    assert.equal(await take(name, 'a', 10_000), true);
    assert.equal(await take(name, 'b', 10_500), false, 'held by a');
    assert.equal(await take(name, 'a', 10_900), true, 'a renews');
    assert.equal(await take(name, 'b', 11_500), false, 'renewed until 11 900');
    assert.equal(await take(name, 'b', 12_000), true, 'expired: b takes it');
    assert.equal(await take(name, 'a', 12_100), false);
    await withRunner((runner) => releaseLease(runner, name, 'a'));
    assert.equal(await take(name, 'a', 12_200), false, 'a cannot release what b holds');
    await withRunner((runner) => releaseLease(runner, name, 'b'));
    assert.equal(await take(name, 'a', 12_300), true, 'released: free before it would expire');
  });

  it('leases of different names are independent', async () => {
    const stamp = Date.now();
    assert.equal(await take(`one-${stamp}`, 'a', 1000), true);
    assert.equal(await take(`two-${stamp}`, 'b', 1000), true);
  });

  it('a holder renewing from two transactions at once keeps its lease (no deadlock of its own against itself)', {
    skip: process.env.TEST_DATABASE_URL ? false : 'SQLite has one connection: its transactions never overlap',
  }, async () => {
    const name = `renewed-${Date.now()}`;
    assert.equal(await take(name, 'a', 1000, 60_000), true);
    // As a process's lease ticker and a write of its progress do: each in its own transaction, on its own connection.
    const takeInTransaction = (now: number) =>
      withRunner(async (runner) => {
        await runner.startTransaction();
        try {
          const held = await takeLease(runner, name, 60_000, 'a', now);
          await runner.commitTransaction();
          return held;
        } catch (error) {
          await runner.rollbackTransaction();
          throw error;
        }
      });
    for (let round = 0; round < 50; round++) {
      const now = 2000 + round * 10;
      assert.deepEqual(await Promise.all([takeInTransaction(now), takeInTransaction(now + 1)]), [true, true], `round ${round}`);
    }
  });

  it('migrations: a second process waits for the first one’s lease and then finds nothing to do', async () => {
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    const first = withMigrationLock(
      dataSource,
      async () => {
        order.push('first starts');
        await firstHolds;
        order.push('first ends');
      },
      'first process',
    );
    // The first has the lease once its work started.
    while (order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const second = withMigrationLock(dataSource, async () => void order.push('second'), 'second process');
    try {
      await new Promise((resolve) => setTimeout(resolve, 600));
      assert.deepEqual(order, ['first starts'], 'the second waits');
    } finally {
      releaseFirst();
      await Promise.all([first, second]);
    }
    assert.deepEqual(order, ['first starts', 'first ends', 'second']);
    const options = dataSource.options as { type: string; host: string; port: number; username: string; database: string };
    const url = options.type === 'mysql' ? `mysql://${options.username}@${options.host}:${options.port}/${options.database}` : `sqlite:${options.database}`;
    assert.deepEqual(await migrate(loadConfig({ DATABASE_URL: url }).database), [], 'nothing left to apply');
  });
});
