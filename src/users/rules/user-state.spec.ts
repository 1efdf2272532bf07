import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activeUserSql, isActive, isInactive, isLocked, notActiveUserSql } from './user-state.js';

describe('user state rules', () => {
  it('tells the three states apart', () => {
    assert.deepEqual(
      (['active', 'inactive', 'locked'] as const).map((state) => [isActive({ state }), isInactive({ state }), isLocked({ state })]),
      [
        [true, false, false],
        [false, true, false],
        [false, false, true],
      ],
    );
  });

  it('writes the same condition for SQL, with or without a table alias', () => {
    assert.equal(activeUserSql(), "state = 'active'");
    assert.equal(activeUserSql('u'), "u.state = 'active'");
    assert.equal(notActiveUserSql('u'), "u.state <> 'active'");
  });
});
