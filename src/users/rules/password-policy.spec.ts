import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../common/errors/domain-error.js';
import { PASSWORD_MAX_BYTES } from '../../common/crypto/password-hasher.js';
import { assertPasswordMinLength, passwordTooLong, passwordTooShort } from './password-policy.js';

describe('password policy', () => {
  it('counts characters for the minimum length', () => {
    assert.equal(passwordTooShort('1234567', 8), true);
    assert.equal(passwordTooShort('12345678', 8), false);
    assert.equal(passwordTooShort('ééééééé', 8), true, 'seven characters, fourteen bytes');
  });

  it('counts UTF-8 bytes for the bcrypt limit', () => {
    assert.equal(passwordTooLong('a'.repeat(PASSWORD_MAX_BYTES)), false);
    assert.equal(passwordTooLong('a'.repeat(PASSWORD_MAX_BYTES + 1)), true);
    assert.equal(passwordTooLong('é'.repeat(37)), true, '37 characters, 74 bytes');
  });

  it('throws an invalid-argument error naming the minimum', () => {
    assert.doesNotThrow(() => assertPasswordMinLength('long enough', 8));
    assert.throws(
      () => assertPasswordMinLength('short', 8),
      (error: unknown) =>
        error instanceof DomainError &&
        JSON.stringify(error.details) === JSON.stringify([{ field: 'password', message: 'password must be at least 8 characters' }]),
    );
  });
});
