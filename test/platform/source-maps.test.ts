import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

/** The runner (scripts/run-tests.mjs) runs tests with source maps: a failure points at the TypeScript line. */
describe('a failing test points at its TypeScript source', () => {
  it('names the .ts file and line in an error stack', () => {
    const stack = new Error('where').stack ?? '';
    assert.match(stack, /test\/platform\/source-maps\.test\.ts:7:\d+/, stack);
  });
});
