import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ASSERTION_LIFETIME_S, assertionLifetimeProblem } from './assertion-lifetime.js';

describe('assertionLifetimeProblem', () => {
  const now = 1_800_000_000;

  it('accepts an assertion of up to an hour, with or without iat', () => {
    assert.equal(assertionLifetimeProblem({ exp: now + 300 }, now), undefined);
    assert.equal(assertionLifetimeProblem({ iat: now, exp: now + MAX_ASSERTION_LIFETIME_S }, now), undefined);
    assert.equal(assertionLifetimeProblem({ iat: now - 1800, exp: now + 1800 }, now), undefined);
  });

  it('refuses a missing exp, an exp years away, a day-old iat and exp - iat beyond an hour', () => {
    assert.match(assertionLifetimeProblem({}, now)!, /"exp" is required/);
    assert.match(assertionLifetimeProblem({ exp: now + 10 * 365 * 86400 }, now)!, /"exp" is more than 3600 seconds away/);
    assert.match(assertionLifetimeProblem({ iat: now - 86400, exp: now + 60 }, now)!, /"iat" is more than 3600 seconds ago/);
    assert.match(assertionLifetimeProblem({ iat: now - 600, exp: now + MAX_ASSERTION_LIFETIME_S }, now)!, /"exp" - "iat" exceeds/);
    assert.match(assertionLifetimeProblem({ iat: 'yesterday', exp: now + 60 }, now)!, /"iat" must be a number/);
  });
});
