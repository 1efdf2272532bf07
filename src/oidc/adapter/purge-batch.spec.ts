import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextPurgeBatch } from './oidc-payload.adapter.js';

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
