import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import type { EntityManager } from 'typeorm';
import { PassRunner } from './pass-runner.js';

/** A runner whose passes are counted, and the transactions' commit listeners it registered, fired by `commit(tx)`. */
function counted(): { runner: PassRunner; passes: () => number; commit: (tx: EntityManager) => void } {
  const listeners = new Map<EntityManager, (() => void)[]>();
  let passes = 0;
  const runner = new PassRunner(
    async () => void passes++,
    (error) => assert.fail(String(error)),
    { afterCommit: (tx, l) => listeners.set(tx, [...(listeners.get(tx) ?? []), l]) },
  );
  const commit = (tx: EntityManager) => {
    for (const l of listeners.get(tx) ?? []) l();
    listeners.delete(tx);
  };
  return { runner, passes: () => passes, commit };
}

/** Stands for the manager of one transaction: the runner only hands it on. */
const transaction = () => ({}) as EntityManager;

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('the outbox pass runner', () => {
  it('starts a pass once the transaction that queued work commits, once, and not after other commits', async () => {
    const { runner, passes, commit } = counted();
    const queuing = transaction();
    const other = transaction();
    runner.queued(queuing);
    commit(other);
    await settled();
    assert.equal(passes(), 0, "another transaction's commit: the queued rows may not be visible yet");
    commit(queuing);
    await settled();
    assert.equal(passes(), 1);
    commit(queuing);
    commit(other);
    await settled();
    assert.equal(passes(), 1, 'the queued work woke one pass');
  });

  it('polls every interval until stopped', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const { runner, passes } = counted();
      runner.poll(1000);
      mock.timers.tick(999);
      await settled();
      assert.equal(passes(), 0);
      mock.timers.tick(1);
      await settled();
      assert.equal(passes(), 1);
      mock.timers.tick(1000);
      await settled();
      assert.equal(passes(), 2);
      const before = passes();
      await runner.stop();
      mock.timers.tick(5000);
      await settled();
      assert.equal(passes(), before, 'no pass after stop');
    } finally {
      mock.timers.reset();
    }
  });

  it('runs again at once when a wake comes during a pass, and never after stop', async () => {
    let release!: () => void;
    let passes = 0;
    const runner = new PassRunner(
      () => {
        passes++;
        return new Promise<void>((resolve) => (release = resolve));
      },
      (error) => assert.fail(String(error)),
      { afterCommit: () => undefined },
    );
    runner.wake();
    runner.wake();
    assert.equal(passes, 1, 'one pass at a time');
    release();
    await settled();
    assert.equal(passes, 2, 'the wake during the pass');
    const stopping = runner.stop();
    runner.wake();
    release();
    await stopping;
    await settled();
    assert.equal(passes, 2);
  });
});
