import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseMd5CryptHash, verifyMd5CryptHash, type Md5CryptFormat } from './md5-crypt.verifier.js';
import { MalformedPasswordHashError } from './password-hash.errors.js';

const verify = (password: string, hash: string, format: Md5CryptFormat = 'md5-crypt') => verifyMd5CryptHash(password, parseMd5CryptHash(hash, format));

/**
 * Published vectors: passlib's md5_crypt_test.known_correct_hashes (passlib/tests/test_handlers.py;
 * the first five come from John the Ripper 1.7.9's test suite) and apr_md5_crypt_test, whose first
 * vector is the example in Apache's documentation (https://httpd.apache.org/docs/2.4/misc/password_encryptions.html).
 */
const MD5_CRYPT_VECTORS: Array<[string, string]> = [
  ['U*U*U*U*', '$1$dXc3I7Rw$ctlgjDdWJLMT.qwHsWhXR1'],
  ['U*U***U', '$1$dXc3I7Rw$94JPyQc/eAgQ3MFMCoMF.0'],
  ['U*U***U*', '$1$dXc3I7Rw$is1mVIAEtAhIzSdfn5JOO0'],
  ['*U*U*U*U', '$1$eQT9Hwbt$XtuElNJD.eW5MN5UCWyTQ0'],
  ['', '$1$Eu.GHtia$CFkL/nE1BYTlEPiVx1VWX0'],
  ['', '$1$dOHYPKoP$tnxS1T8Q6VVn3kpV8cN6o.'],
  [' ', '$1$m/5ee7ol$bZn0kIBFipq39e.KDXX8I0'],
  ['test', '$1$ec6XvcoW$ghEtNK2U1MC5l.Dwgi3020'],
  ['Compl3X AlphaNu3meric', '$1$nX1e7EeI$ljQn72ZUgt6Wxd9hfvHdV0'],
  ['4lpHa N|_|M3r1K W/ Cur5Es: #$%(*)(*%#', '$1$jQS7o98J$V6iTcr71CGgwW2laf17pi1'],
  ['test', '$1$SuMrG47N$ymvzYjr7QcEQjaK5m1PGx1'],
  ['s', '$1$ssssssss$YgmLTApYTv12qgTwBoj8i/'],
  ['t\u00e1\u0411\u2113\u0259', '$1$d6/Ky1lU$/xpf8m7ftmWLF.TjHCqel0'], // passlib's UPASS_TABLE: UTF-8 bytes are hashed
];
const APR1_VECTORS: Array<[string, string]> = [
  ['myPassword', '$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/'],
  ['t\u00e1\u0411\u2113\u0259', '$apr1$bzYrOHUx$a1FcpXuQDJV3vPY20CS6N1'],
];

describe('MD5-crypt verifier', () => {
  for (const [password, hash] of MD5_CRYPT_VECTORS) {
    it(`matches ${hash} (${JSON.stringify(password)})`, async () => {
      assert.equal(await verify(password, hash), true);
      assert.equal(await verify(`${password}1`, hash), false);
    });
  }
  for (const [password, hash] of APR1_VECTORS) {
    it(`matches Apache ${hash}`, async () => {
      assert.equal(await verify(password, hash, 'apache-md5-crypt'), true);
      assert.equal(await verify(password.toUpperCase(), hash, 'apache-md5-crypt'), false);
    });
  }

  it('does not accept an $apr1$ checksum under $1$ (the magic is part of the digest)', async () => {
    assert.equal(await verify('myPassword', '$1$r31.....$HqJZimcKQFAMYayBlzkrA/'), false);
  });

  describe('rejects garbled hashes with a clear message', () => {
    const cases: Array<[string, RegExp]> = [
      ['$1$dOHYPKoP$tnxS1T8Q6VVn3kpV8cN6o!', /checksum must be 22 characters/], // passlib: bad char
      ['$1$dOHYPKoP$tnxS1T8Q6VVn3kpV8cN6o.$', /extra/], // passlib: too many fields
      ['$1$dOHYPKoP', /missing checksum/],
      ['$1$dOHYPKoP$', /missing checksum/],
      ['$1$dOHYPKoPx$tnxS1T8Q6VVn3kpV8cN6o.', /salt must be at most 8 characters/],
      ['$1$dOHYPKoP$tnxS1T8Q6VVn3kpV8cN6oz', /non-canonical last character/],
    ];
    for (const [hash, message] of cases) {
      it(hash, () => {
        assert.throws(
          () => parseMd5CryptHash(hash, 'md5-crypt'),
          (error: unknown) => {
            assert.ok(error instanceof MalformedPasswordHashError, String(error));
            assert.match(error.message, /^malformed md5-crypt hash: /);
            assert.match(error.message, message);
            return true;
          },
        );
      });
    }
  });
});
