import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextRetryAt } from './retry-schedule.js';

describe('retry schedule of webhooks and mail', () => {
  it('doubles from the base and gives up past the window (defaults: 14 retries within 24 h)', () => {
    const base = 5000;
    const day = 86_400_000;
    let now = 0;
    const delays: number[] = [];
    for (let failures = 1; ; failures++) {
      const at = nextRetryAt(failures, 0, now, base, day);
      if (at === undefined) break;
      delays.push(at - now);
      now = at;
    }
    assert.deepEqual(delays.slice(0, 3), [5000, 10_000, 20_000]);
    assert.equal(delays.length, 14);
    assert.ok(now <= day);
  });

  it('a zero window gives up at the first failure', () => {
    assert.equal(nextRetryAt(1, 1000, 1000, 5000, 0), undefined);
  });
});
