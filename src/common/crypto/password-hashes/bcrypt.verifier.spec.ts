import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import bcryptjs from 'bcryptjs';
import { parseBcryptHash, verifyBcryptHash } from './bcrypt.verifier.js';
import { MalformedPasswordHashError, PasswordHashLimitExceededError } from './password-hash.errors.js';

const verify = (password: string, hash: string) => verifyBcryptHash(password, parseBcryptHash(hash));

/** A reference hash from bcryptjs (pure-JS, independent of the native `bcrypt` package) with the given minor version. */
function referenceHash(password: string, minor: 'a' | 'b' | 'y', cost = 4): string {
  const salt = bcryptjs.genSaltSync(cost).slice(7);
  return bcryptjs.hashSync(password, `$2${minor}$0${cost}$${salt}`);
}

describe('bcrypt verifier', () => {
  for (const minor of ['a', 'b', 'y'] as const) {
    it(`verifies $2${minor}$ hashes made by bcryptjs`, async () => {
      const hash = referenceHash('correct horse battery staple', minor);
      assert.ok(hash.startsWith(`$2${minor}$04$`));
      assert.equal(await verify('correct horse battery staple', hash), true);
      assert.equal(await verify('correct horse battery stapler', hash), false);
      assert.equal(await verify('', hash), false);
    });
  }

  it('verifies non-ASCII passwords as UTF-8', async () => {
    const hash = referenceHash('pässwörd €😀', 'b');
    assert.equal(await verify('pässwörd €😀', hash), true);
    assert.equal(await verify('passwort €😀', hash), false);
  });

  // Openwall crypt_blowfish's own test vectors (wrapper.c, https://www.openwall.com/crypt/), also in
  // passlib's test_handlers_bcrypt.py; and the $2y$ example of Apache's htpasswd documentation
  // (https://httpd.apache.org/docs/2.4/misc/password_encryptions.html).
  const published: Array<[string, string]> = [
    ['U*U', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
    ['U*U*', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK'],
    ['U*U*U', '$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a'],
    ['', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.7uG0VCzI2bS7j6ymqJi9CdcdxiRTWNy'],
    [
      '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789chars after 72 are ignored',
      '$2a$05$abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui',
    ],
    ['myPassword', '$2y$05$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC'],
  ];
  for (const [password, hash] of published) {
    it(`verifies the published vector ${hash.slice(0, 12)}… for ${JSON.stringify(password.slice(0, 12))}`, async () => {
      assert.equal(await verify(password, hash), true);
      assert.equal(await verify(`${password}!`, hash), password.length >= 72);
    });
  }

  it('ignores unused trailing salt bits, as passlib does', async () => {
    // '/' sets a bit bcrypt never reads; bcryptjs and the native package's compare() reject the string.
    const hash = '$2a$05$CCCCCCCCCCCCCCCCCCCCC/E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
    assert.equal(bcryptjs.compareSync('U*U', hash), false);
    assert.equal(await verify('U*U', hash), true);
    assert.equal(await verify('U*U*', hash), false);
  });

  it('parses the cost and minor version', () => {
    const parsed = parseBcryptHash('$2y$12$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC');
    assert.equal(parsed.cost, 12);
    assert.equal(parsed.minor, 'y');
    assert.ok(parsed.normalized.startsWith('$2b$12$'));
  });

  const garbled: Array<[string, RegExp]> = [
    ['$2b$4$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC', /two-digit cost/],
    ['$2b$05$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRq', /checksum is shorter than 31 characters/],
    ['$2b$05$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqCx', /expected 53 characters/],
    ['$2b$05$c4WoMPo3SXsafkva', /salt is shorter/],
    ['$2b$05$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRq!', /alphabet/],
    ['$2b$03$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC', /cost must be from 4 to 31/],
    ['$2b$32$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC', /cost must be from 4 to 31/],
  ];
  for (const [hash, message] of garbled) {
    it(`rejects ${hash} as malformed`, () => {
      assert.throws(
        () => parseBcryptHash(hash),
        (error: unknown) => {
          assert.ok(error instanceof MalformedPasswordHashError);
          assert.match(error.message, /^malformed bcrypt hash: /);
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }

  it('refuses costs above the cap (15) without hashing', () => {
    assert.throws(
      () => parseBcryptHash('$2b$16$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC'),
      (error: unknown) => error instanceof PasswordHashLimitExceededError && /cost 16 is above the limit of 15/.test(error.message),
    );
    assert.equal(parseBcryptHash('$2b$15$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC').cost, 15);
  });
});
