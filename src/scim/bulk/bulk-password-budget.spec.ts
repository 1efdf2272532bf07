import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setsPassword } from './bulk-password-budget.js';

describe('setsPassword', () => {
  it('finds a password attribute or a PATCH path naming it, in any case and schema-qualified', () => {
    for (const data of [
      { userName: 'a', password: 'x' },
      { Password: 'x' },
      { 'urn:ietf:params:scim:schemas:core:2.0:User:password': 'x' },
      { Operations: [{ op: 'replace', path: 'password', value: 'x' }] },
      { Operations: [{ op: 'replace', PATH: ' Password ', value: 'x' }] },
      { Operations: [{ op: 'add', value: { password: 'x' } }] },
      { Operations: [{ op: 'replace', path: 'urn:ietf:params:scim:schemas:core:2.0:User:password', value: 'x' }] },
    ]) {
      assert.equal(setsPassword(data), true, JSON.stringify(data));
    }
  });
  it('does not count other attributes, values or filters that merely mention the word', () => {
    for (const data of [
      undefined,
      null,
      'password',
      { userName: 'password', displayName: 'password' },
      { Operations: [{ op: 'replace', path: 'displayName', value: 'password' }] },
      { Operations: [{ op: 'remove', path: 'emails[type eq "password"]' }] },
      { passwordHint: 'x' },
    ]) {
      assert.equal(setsPassword(data), false, JSON.stringify(data));
    }
  });
});
