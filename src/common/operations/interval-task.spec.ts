import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { IntervalTask } from './interval-task.js';

const settled = () => new Promise((resolve) => setImmediate(resolve));

/** A task whose runs wait until `finish()` is called; `runs()` counts the runs started. */
function gated(onError: (error: unknown) => void = (error) => assert.fail(String(error))) {
  let runs = 0;
  let finish: (value?: unknown) => void = () => undefined;
  const task = new IntervalTask(() => {
    runs++;
    return new Promise((resolve) => (finish = resolve));
  }, onError);
  return { task, runs: () => runs, finish: () => finish() };
}

describe('a task run every interval', () => {
  it('runs at each interval, skipping the ticks that come while a run is still going', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const { task, runs, finish } = gated();
      task.start(1000);
      mock.timers.tick(999);
      assert.equal(runs(), 0);
      mock.timers.tick(1);
      assert.equal(runs(), 1);
      mock.timers.tick(3000);
      assert.equal(runs(), 1, 'no second run beside the first');
      finish();
      await settled();
      mock.timers.tick(1000);
      assert.equal(runs(), 2);
      finish();
      await task.stop();
    } finally {
      mock.timers.reset();
    }
  });

  it('hands a failed run to its error handler and runs again at the next tick', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const errors: unknown[] = [];
      let runs = 0;
      const task = new IntervalTask(
        async () => {
          runs++;
          throw new Error('the database is away');
        },
        (error) => errors.push(error),
      );
      task.start(1000);
      mock.timers.tick(1000);
      await settled();
      mock.timers.tick(1000);
      await settled();
      assert.equal(runs, 2);
      assert.deepEqual(
        errors.map((e) => (e as Error).message),
        ['the database is away', 'the database is away'],
      );
      await task.stop();
    } finally {
      mock.timers.reset();
    }
  });

  it('stops: no run starts any more, and stop() resolves only once the running run has ended', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const { task, runs, finish } = gated();
      task.start(1000);
      mock.timers.tick(1000);
      let stopped = false;
      const stopping = task.stop().then(() => (stopped = true));
      await settled();
      assert.equal(stopped, false, 'the run is still going');
      finish();
      await stopping;
      mock.timers.tick(5000);
      assert.equal(runs(), 1);
    } finally {
      mock.timers.reset();
    }
  });
});
