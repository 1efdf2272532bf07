import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScimError } from '../errors/scim-error.js';
import { decodeCursor, encodeCursor } from './scim-cursor.js';
import { keysetAfter } from './scim-keyset.js';

const invalidCursor = (error: unknown) => error instanceof ScimError && error.status === 400 && error.scimType === 'invalidCursor';

/** Cursors and keyset conditions; the pages they give are checked on both databases in test/scim/scim-cursor.test.ts. */
describe('SCIM cursors (RFC 9865)', () => {
  it('round-trip a position for the same order, in unreserved characters only', () => {
    for (const value of [1764000000000, 'o’brien', null]) {
      const cursor = encodeCursor('familyName', true, { value, id: '0b8f6c1e-1' });
      assert.match(cursor, /^[A-Za-z0-9_-]+$/);
      assert.deepEqual(decodeCursor(cursor, 'familyName', true), { value, id: '0b8f6c1e-1' });
    }
  });

  it('refuse another order, another shape or a changed character', () => {
    const cursor = encodeCursor('createdAt', false, { value: 5, id: 'abc' });
    assert.throws(() => decodeCursor(cursor, 'createdAt', true), invalidCursor);
    assert.throws(() => decodeCursor(cursor, 'changedAt', false), invalidCursor);
    assert.throws(() => decodeCursor(`${cursor}A`, 'createdAt', false), invalidCursor);
    assert.throws(() => decodeCursor(`${cursor}=`, 'createdAt', false), invalidCursor);
    for (const shape of ['{}', '[]', '["createdAt",0,5]', '["createdAt",0,1.5,"abc"]', '["createdAt",0,5,"a b"]', '["createdAt",0,[5],"abc"]', 'nope']) {
      assert.throws(() => decodeCursor(Buffer.from(shape).toString('base64url'), 'createdAt', false), invalidCursor, shape);
    }
  });
});

describe('keyset conditions', () => {
  const key = { column: 'u.created_at', idColumn: 'u.id', numeric: true };

  it('seek from the value with the leading range, ties broken by id', () => {
    assert.equal(keysetAfter(key, false, { value: 5, id: 'x' }).sql, '((u.created_at >= :keysetValue AND (u.created_at > :keysetValue OR u.id > :keysetId)))');
    assert.equal(keysetAfter(key, true, { value: 5, id: 'x' }).sql, '((u.created_at <= :keysetValue AND (u.created_at < :keysetValue OR u.id < :keysetId)))');
  });

  it('place unassigned values where the order puts them', () => {
    const family = { column: 'u.family_name', idColumn: 'u.id', numeric: false };
    assert.match(keysetAfter({ ...family, nullsAfter: true }, false, { value: 'b', id: 'x' }).sql, / OR u\.family_name IS NULL\)$/);
    assert.equal(keysetAfter({ ...family, nullsAfter: true }, false, { value: null, id: 'x' }).sql, '(u.family_name IS NULL AND u.id > :keysetId)');
    assert.equal(
      keysetAfter({ ...family, nullsAfter: false }, false, { value: null, id: 'x' }).sql,
      '(u.family_name IS NULL AND u.id > :keysetId OR u.family_name IS NOT NULL)',
    );
  });

  it('refuse a value that does not fit the column', () => {
    assert.throws(() => keysetAfter(key, false, { value: 'text', id: 'x' }), invalidCursor);
    assert.throws(() => keysetAfter(key, false, { value: null, id: 'x' }), invalidCursor);
    assert.throws(() => keysetAfter({ ...key, numeric: false }, false, { value: 5, id: 'x' }), invalidCursor);
  });
});
