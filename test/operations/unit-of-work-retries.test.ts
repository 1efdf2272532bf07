import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { QueryFailedError } from 'typeorm';
import { isContention, isDatabaseUnavailable } from '../../src/common/database/database-unavailable.js';
import { UnitOfWork } from '../../src/common/database/unit-of-work.js';
import { transactionRetries } from '../../src/common/metrics/metrics.js';
import { openQueryDatabase } from '../domain/queries/query-database.js';
import type { QueryDatabase } from '../domain/queries/query-database.js';

/** What MySQL/MariaDB's driver reports for a deadlock, and Galera for a certification conflict (1213). */
function deadlock(): QueryFailedError {
  const driverError = Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 });
  return new QueryFailedError('UPDATE …', [], driverError);
}

/**
 * The unit of work on MySQL/MariaDB runs a transaction rolled back for a deadlock or a Galera certification conflict
 * again, up to 12 times (docs/high-availability.md), each time in a real transaction of the configured database; a conflict that
 * outlasts them is contention, answered 503 with Retry-After, not an outage and never a 500.
 */
describe('unit of work: retries on 1213', () => {
  let db: QueryDatabase;
  let uow: UnitOfWork;
  before(async () => {
    db = await openQueryDatabase();
    uow = new UnitOfWork(db.dataSource);
  });
  after(() => db?.close());
  const count = async (outcome: string) =>
    (await transactionRetries.get()).values.find((v) => v.labels.reason === 'deadlock' && v.labels.outcome === outcome)?.value ?? 0;

  it('runs the whole unit again until it commits, and counts each retry', async (t) => {
    if (db.dataSource.options.type !== 'mysql') return t.skip('SQLite queues its transactions: nothing collides');
    const retried = await count('retried');
    let attempts = 0;
    const answer = await uow.run(async (manager) => {
      attempts++;
      await manager.query('SELECT 1');
      if (attempts < 4) throw deadlock();
      return 'committed';
    });
    assert.equal(answer, 'committed');
    assert.equal(attempts, 4);
    assert.equal((await count('retried')) - retried, 3);
  });

  it('gives up after the 12th attempt with the conflict, which answers 503 and is no outage', async (t) => {
    if (db.dataSource.options.type !== 'mysql') return t.skip('SQLite queues its transactions: nothing collides');
    const givenUp = await count('given_up');
    let attempts = 0;
    const failure = await uow
      .run(async () => {
        attempts++;
        throw deadlock();
      })
      .catch((error: unknown) => error);
    assert.equal(attempts, 12);
    assert.equal((await count('given_up')) - givenUp, 1);
    assert.ok(isDatabaseUnavailable(failure), '503 with Retry-After, as every surface answers an unavailable database');
    assert.ok(isContention(failure), 'contention: not reported as an outage');
  });
});
