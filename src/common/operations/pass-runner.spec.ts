import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { PassRunner } from './pass-runner.js';

/** A runner whose passes are counted, and the commit listeners it registered, fired by `commit()`. */
function counted(): { runner: PassRunner; passes: () => number; commit: () => void } {
  const listeners: (() => void)[] = [];
  let passes = 0;
  const runner = new PassRunner(
    async () => void passes++,
    (error) => assert.fail(String(error)),
    { onCommit: (l) => listeners.push(l) },
  );
  return { runner, passes: () => passes, commit: () => listeners.forEach((l) => l()) };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('the outbox pass runner', () => {
  it('starts a pass after a commit that follows queued work, once, and not after other commits', async () => {
    const { runner, passes, commit } = counted();
    commit();
    await settled();
    assert.equal(passes(), 0, 'a commit that queued nothing');
    runner.queued();
    commit();
    await settled();
    assert.equal(passes(), 1);
    commit();
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
      { onCommit: () => undefined },
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
