import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { nextPurgeBatch, PURGE_BATCH, purgeInBatches } from './oidc-purge.js';

describe('the OIDC purge batch size', () => {
  it('scales the next batch so a statement takes about 15 ms', () => {
    // 500 rows in 50 ms (a 10,000,000-row table): 0.1 ms a row → 150 rows.
    assert.equal(nextPurgeBatch(500, 500, 50), 150);
    // 500 rows in 5 ms: 0.01 ms a row → 1,500 rows.
    assert.equal(nextPurgeBatch(500, 500, 5), 1500);
  });

  it('stays between 20 and 2,000 rows, and keeps its size when nothing was deleted', () => {
    assert.equal(nextPurgeBatch(500, 500, 2000), 20);
    assert.equal(nextPurgeBatch(500, 500, 0), 2000);
    assert.equal(nextPurgeBatch(300, 0, 40), 300);
  });
});

describe('the OIDC purge loop', () => {
  it('starts small, deletes until a batch comes back short, and rests after each full batch as long as it took', async () => {
    let backlog = 1000;
    const asked: number[] = [];
    const rests: number[] = [];
    const purged = await purgeInBatches(
      async (size) => {
        asked.push(size);
        await sleep(10);
        const deleted = Math.min(size, backlog);
        backlog -= deleted;
        return deleted;
      },
      async (ms) => void rests.push(ms),
    );
    assert.equal(purged, 1000);
    assert.equal(backlog, 0);
    assert.equal(asked[0], PURGE_BATCH);
    assert.ok(asked.length >= 3, `batches asked: ${asked.join(', ')}`);
    // No rest after the last, short batch; each rest at least the batch's own time (10 ms of sleep).
    assert.equal(rests.length, asked.length - 1);
    for (const ms of rests) assert.ok(ms >= 9, `rest of ${ms} ms`);
  });

  it('an empty table costs one statement and no rest', async () => {
    const rests: number[] = [];
    assert.equal(
      await purgeInBatches(
        async () => 0,
        async (ms) => void rests.push(ms),
      ),
      0,
    );
    assert.deepEqual(rests, []);
  });

  it('stops after the batch in which shutdown aborted it, with a backlog left', async () => {
    const stopping = new AbortController();
    let batches = 0;
    const purged = await purgeInBatches(
      async (size) => {
        batches++;
        if (batches === 3) stopping.abort();
        return size;
      },
      async () => undefined,
      stopping.signal,
    );
    assert.equal(batches, 3);
    assert.ok(purged > 0);
  });
});
