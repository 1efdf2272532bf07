import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFilter } from '../filter/index.js';
import { ScimError } from '../errors/scim-error.js';
import { MAX_FILTER_CLAUSES, assertFilterCost, clauseCount } from './filter-cost.js';

describe('SCIM filter cost', () => {
  it('counts comparisons and presence tests, inside value paths and under not too', () => {
    assert.equal(clauseCount(parseFilter('userName eq "a"')), 1);
    assert.equal(clauseCount(parseFilter('emails[type eq "work" and value co "x"] or title pr')), 3);
    assert.equal(clauseCount(parseFilter('not (active eq true) and (name.givenName sw "A" or name.familyName ew "z")')), 3);
  });

  it(`accepts ${MAX_FILTER_CLAUSES} comparisons and refuses one more with invalidFilter`, () => {
    const filter = (n: number) => parseFilter(Array.from({ length: n }, (_, i) => `emails[value co "x${i}"]`).join(' or '));
    assert.doesNotThrow(() => assertFilterCost(filter(MAX_FILTER_CLAUSES)));
    assert.throws(
      () => assertFilterCost(filter(MAX_FILTER_CLAUSES + 1)),
      (e: unknown) => e instanceof ScimError && e.scimType === 'invalidFilter' && /11 comparisons; at most 10/.test(e.message),
    );
  });
});
