import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STRING_BOUNDS } from './string-bounds.js';
import { typedLoginName, userNameProblem } from './user-name.js';

describe('userNameProblem', () => {
  it('accepts names without white space or invisible characters, up to the users.user_name length', () => {
    for (const name of ['ada', 'ada@example.com', 'Ärger', 'σίσυφος', 'a-b_c.d+e', 'x'.repeat(STRING_BOUNDS.userName), '😀'.repeat(STRING_BOUNDS.userName)]) {
      assert.equal(userNameProblem(name), undefined, JSON.stringify(name));
    }
  });

  it('refuses the empty name and a name one character over the bound, counted in code points', () => {
    assert.equal(userNameProblem(''), 'must not be empty');
    assert.match(userNameProblem('x'.repeat(STRING_BOUNDS.userName + 1))!, /at most 255 characters/);
    assert.match(userNameProblem('😀'.repeat(STRING_BOUNDS.userName + 1))!, /at most 255 characters/);
  });

  it('refuses white space of every kind, at the edges and inside', () => {
    const spaces = [
      ' ',
      '\t',
      '\n',
      '\r',
      '\v',
      '\f',
      '\u00a0',
      '\u1680',
      '\u2000',
      '\u2007',
      '\u200a',
      '\u2028',
      '\u2029',
      '\u202f',
      '\u205f',
      '\u3000',
      '\ufeff',
    ];
    for (const space of spaces) {
      for (const name of [`${space}ada`, `ada${space}`, `a${space}da`])
        assert.match(userNameProblem(name) ?? '(accepted)', /white space/, JSON.stringify(name));
    }
  });

  it('refuses zero-width, bidi and control characters', () => {
    for (const invisible of [
      '\u200b',
      '\u200c',
      '\u200d',
      '\u2060',
      '\u200e',
      '\u202e',
      '\u00ad',
      '\u0000',
      '\u0007',
      '\u001f',
      '\u007f',
      '\u0085',
      '\u009f',
    ]) {
      for (const name of [`${invisible}ada`, `ada${invisible}`, `a${invisible}da`]) assert.ok(userNameProblem(name), JSON.stringify(name));
    }
  });

  it('refuses names that Unicode NFKC changes: full-width letters, ligatures, decomposed accents', () => {
    for (const name of ['ｕser', 'ａｄｍｉｎ', 'oﬃce', 'A\u0308rger', 'x²', '㎏']) {
      assert.match(userNameProblem(name) ?? '(accepted)', /full-width or compatibility/, JSON.stringify(name));
    }
  });
});

describe('typedLoginName', () => {
  it('trims white space and invisible characters at the edges only', () => {
    assert.equal(typedLoginName(' \t\u00a0ada@acme.example\u200b\ufeff\n'), 'ada@acme.example');
    assert.equal(typedLoginName('ada'), 'ada');
    assert.equal(typedLoginName('a da'), 'a da');
  });

  it('gives back every acceptable user name unchanged, so a created user always signs in with its name', () => {
    for (const name of ['ada', 'Ärger', '😀x😀', 'a.b@c']) {
      assert.equal(userNameProblem(name), undefined);
      assert.equal(typedLoginName(name), name);
    }
  });
});
