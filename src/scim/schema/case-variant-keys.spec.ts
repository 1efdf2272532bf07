import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScimError } from '../errors/scim-error.js';
import { refuseCaseVariantKeys } from './case-variant-keys.js';

describe('refuseCaseVariantKeys', () => {
  const refusedWith = (message: string) => (error: unknown) =>
    error instanceof ScimError && error.scimType === 'invalidSyntax' && error.message.includes(message);

  it('refuses two spellings of one key at any depth, naming both', () => {
    assert.throws(() => refuseCaseVariantKeys({ userName: 'a', username: 'b' }), refusedWith('"userName" and "username"'));
    assert.throws(() => refuseCaseVariantKeys({ name: { givenName: 'a', GIVENNAME: 'b' } }), refusedWith('"name.givenName" and "name.GIVENNAME"'));
    assert.throws(
      () => refuseCaseVariantKeys({ emails: [{ value: 'a' }, { value: 'b', Value: 'c' }] }),
      refusedWith('"emails[1].value" and "emails[1].Value"'),
    );
  });

  it('accepts one spelling per object, and the same key in different objects', () => {
    assert.doesNotThrow(() => refuseCaseVariantKeys({ UserName: 'a', name: { userName: 'x' }, emails: [{ value: 'a' }, { VALUE: 'b' }] }));
    assert.doesNotThrow(() => refuseCaseVariantKeys('text'));
    assert.doesNotThrow(() => refuseCaseVariantKeys(null));
  });
});
