import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MalformedPasswordHashError } from './password-hash.errors.js';
import { parseDecimalInteger, parsePhcString } from './phc-string.parser.js';

describe('parsePhcString', () => {
  it('splits id, version, parameters, salt and hash', () => {
    const phc = parsePhcString('$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$aGFzaA', 'argon2id');
    assert.equal(phc.id, 'argon2id');
    assert.equal(phc.version, 19);
    assert.deepEqual(
      [...phc.params],
      [
        ['m', '65536'],
        ['t', '3'],
        ['p', '4'],
      ],
    );
    assert.equal(phc.salt, 'c29tZXNhbHQ');
    assert.equal(phc.hash, 'aGFzaA');
  });

  it('accepts a string without version or parameters', () => {
    const phc = parsePhcString('$scrypt$c2FsdA$aGFzaA', 'scrypt');
    assert.equal(phc.version, undefined);
    assert.equal(phc.params.size, 0);
  });

  const malformed: Array<[string, RegExp]> = [
    ['argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA', /starting with '\$'/],
    ['$argon2id$v=19$m=1,t=1,p=1', /missing salt/],
    ['$argon2id$v=19$m=1,t=1,p=1$c2FsdA', /missing hash/],
    ['$argon2id$v=19$m=1,t=1,p=1$c2FsdA$', /missing hash/],
    ['$argon2id$v=19$m=1,t=1,p=1$c2FsdA$aGFzaA$', /extra/],
    ['$argon2id$v=1x$m=1$c2FsdA$aGFzaA', /version/],
    ['$argon2id$m=1,m=2$c2FsdA$aGFzaA', /appears twice/],
    ['$argon2id$m=1,,t=2$c2FsdA$aGFzaA', /name=value/],
    ['$argon2id$m=,t=2$c2FsdA$aGFzaA', /'m' has an empty/],
  ];
  for (const [text, message] of malformed) {
    it(`rejects ${text}`, () => {
      assert.throws(
        () => parsePhcString(text, 'argon2id'),
        (error: unknown) => {
          assert.ok(error instanceof MalformedPasswordHashError);
          assert.match(error.message, /^malformed argon2id hash: /);
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }
});

describe('parseDecimalInteger', () => {
  it('reads canonical decimals only', () => {
    assert.equal(parseDecimalInteger('0'), 0);
    assert.equal(parseDecimalInteger('600000'), 600000);
    assert.equal(parseDecimalInteger('010'), null);
    assert.equal(parseDecimalInteger('-1'), null);
    assert.equal(parseDecimalInteger('1e3'), null);
    assert.equal(parseDecimalInteger(''), null);
    assert.equal(parseDecimalInteger('9'.repeat(16)), null);
  });
});
