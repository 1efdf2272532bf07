import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SEARCH_TEXT_LENGTH, searchText } from './user-search.js';

describe('user search text', () => {
  it('folds user name, e-mail and names by the service rule, one field a line', () => {
    assert.equal(
      searchText({ userName: 'Ada.L', email: 'Ada@Example.COM', givenName: 'Ada', familyName: 'ΣΊΣΥΦΟΣ', displayName: 'Countess' }),
      'ada.l\nada@example.com\nada\nσίσυφοσ\ncountess',
    );
  });

  it('leaves out absent fields and a display name that repeats the names', () => {
    assert.equal(searchText({ userName: 'x', givenName: 'Ada', familyName: 'Lovelace', displayName: 'Ada Lovelace' }), 'x\nada\nlovelace');
    assert.equal(searchText({ userName: 'bot', displayName: 'Deploy Robot' }), 'bot\ndeploy robot');
  });

  it(`is cut at ${SEARCH_TEXT_LENGTH} characters, the user name first`, () => {
    const text = searchText({ userName: 'u'.repeat(255), email: `${'e'.repeat(300)}@example.com`, givenName: 'Ada' });
    assert.equal(text.length, SEARCH_TEXT_LENGTH);
    assert.ok(text.startsWith('u'.repeat(255)));
  });
});
