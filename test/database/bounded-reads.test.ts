import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/common/config/config.js';
import { BoundedReads, MAX_WAITING_READS, ReadTooCostly } from '../../src/common/database/bounded-reads.js';
import { DomainError, ErrorCode } from '../../src/common/errors/domain-error.js';
import { openQueryDatabase } from '../domain/queries/query-database.js';
import type { QueryDatabase } from '../domain/queries/query-database.js';

/**
 * A read that runs for minutes on either database: a billion rows of a cross join (MariaDB stops recursion
 * itself at max_recursive_iterations, so the rows come from joining, not recursing).
 */
const ENDLESS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT COUNT(*) AS n FROM c a, c b, c d';

/**
 * Reads whose cost a client chooses (SCIM list filters) are stopped at their time limit —
 * by MariaDB's max_statement_time, or on SQLite by ending the read thread — and on SQLite the request
 * thread stays free while one runs.
 */
describe('bounded reads: a costly read is stopped at its limit, off the request thread on SQLite', () => {
  let db: QueryDatabase;
  const readsWithLimit = (ms: number) => new BoundedReads(db.dataSource, { ...loadConfig({}), listReadTimeLimitMs: ms });
  const opened: BoundedReads[] = [];
  before(async () => {
    db = await openQueryDatabase();
  });
  after(async () => {
    for (const reads of opened) await reads.onModuleDestroy();
    await db?.close();
  });

  it('answers an ordinary read with the rows the data source would give', async () => {
    const reads = readsWithLimit(5000);
    opened.push(reads);
    const org = await db.org();
    await db.user(org, { userName: 'Bounded.Reader' });
    const rows = await reads.rows<{ user_name: string }>('SELECT user_name FROM users WHERE org_id = ? AND user_name_lower = ?', [org.id, 'bounded.reader']);
    assert.deepEqual(
      rows.map((r) => r.user_name),
      ['Bounded.Reader'],
    );
  });

  it('stops a read at the limit with ReadTooCostly, then answers the next read', async () => {
    const reads = readsWithLimit(300);
    opened.push(reads);
    const order: string[] = [];
    const stopped = reads.rows(ENDLESS, []).then(
      () => order.push('finished'),
      (error: unknown) => {
        assert.ok(error instanceof ReadTooCostly, String(error));
        order.push('stopped');
      },
    );
    // A timer due at once fires while the read runs: the read does not hold this thread (on SQLite it runs on
    // the read thread; on MariaDB on the server).
    setTimeout(() => order.push('timer'), 0);
    await stopped;
    assert.deepEqual(order, ['timer', 'stopped']);
    assert.deepEqual(await reads.rows<{ n: number }>('SELECT 1 AS n', []), [{ n: 1 }]);
  });

  it('reports a failing statement as a query error, not as a costly one', async () => {
    const reads = readsWithLimit(5000);
    opened.push(reads);
    await assert.rejects(reads.rows('SELECT nope FROM users', []), (error: unknown) => !(error instanceof ReadTooCostly) && /nope/.test(String(error)));
  });

  it('on SQLite, refuses a read with 503 (unavailable) when the read thread already has its fill waiting', {
    skip: process.env.TEST_DATABASE_URL ? 'MariaDB reads wait for a connection of the pool' : false,
  }, async () => {
    const reads = readsWithLimit(1000);
    opened.push(reads);
    const running = reads.rows(ENDLESS, []).catch((error: unknown) => error);
    // Once the thread has taken the costly read, it no longer waits: then the queue fills.
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = Array.from({ length: MAX_WAITING_READS }, () => reads.rows<{ n: number }>('SELECT 1 AS n', []));
    await assert.rejects(reads.rows('SELECT 1 AS n', []), (error: unknown) => error instanceof DomainError && error.code === ErrorCode.Unavailable);
    assert.ok((await running) instanceof ReadTooCostly);
    for (const answer of await Promise.all(waiting)) assert.deepEqual(answer, [{ n: 1 }]);
  });
});
