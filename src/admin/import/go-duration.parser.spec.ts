import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGoDuration } from './go-duration.parser.js';

describe('parseGoDuration', () => {
  it('reads the forms Go accepts', () => {
    assert.equal(parseGoDuration('10m'), 600_000);
    assert.equal(parseGoDuration('1m30s'), 90_000);
    assert.equal(parseGoDuration('500ms'), 500);
    assert.equal(parseGoDuration('1.5h'), 5_400_000);
    assert.equal(parseGoDuration('2h45m0.5s'), 9_900_500);
    assert.equal(parseGoDuration('.5s'), 500);
    assert.equal(parseGoDuration('1500us'), 1.5);
    assert.equal(parseGoDuration('1500µs'), 1.5);
    assert.equal(parseGoDuration('2000000ns'), 2);
    assert.equal(parseGoDuration('+5m'), 300_000);
    assert.equal(parseGoDuration('0'), 0);
  });

  it('refuses what Go refuses, and negative durations', () => {
    for (const bad of ['', '5', '10 m', '1d', 'm', '1.2.3s', 'abc', '-5m', '5M', '1m 30s', '.s']) {
      assert.equal(parseGoDuration(bad), null, bad);
    }
  });
});
