import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeHashScheme, identifyPasswordHash } from './password-hash.format.js';

describe('identifyPasswordHash', () => {
  const cases: Array<[string, ReturnType<typeof identifyPasswordHash>]> = [
    ['$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy', 'bcrypt'],
    ['$2b$12$abc', 'bcrypt'],
    ['$2y$05$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC', 'bcrypt'],
    ['$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaA', 'argon2id'],
    ['$argon2i$v=19$m=16,t=2,p=1$ZVZWeGtzNVZqeExTVzNSOA$fx0EYEB1zO8i+J2H+OFI4w', 'argon2i'],
    ['$argon2d$v=19$m=16,t=2,p=1$x$y', 'argon2d'],
    ['argon2$argon2id$v=19$m=102400,t=2,p=8$c2FsdA$aGFzaA', 'argon2id'], // Django
    ['$scrypt$ln=16,r=8,p=1$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4CbdRSCdEBsjjJxD+iCs5E', 'scrypt'],
    ['$pbkdf2-sha256$29000$salt$hash', 'pbkdf2-sha256'],
    ['$pbkdf2-sha512$i=1000$salt$hash', 'pbkdf2-sha512'],
    ['pbkdf2_sha256$600000$seasalt$OAXyhAQ/4ZDA9V5RMExt3C1OwQdUpLZ99vm1McFlLRA=', 'pbkdf2-sha256'],
    ['pbkdf2_sha512$1$s$h', 'pbkdf2-sha512'],
    ['$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5', 'sha256-crypt'],
    ['$6$rounds=5000$salt$x', 'sha512-crypt'],
    ['$1$dXc3I7Rw$ctlgjDdWJLMT.qwHsWhXR1', 'md5-crypt'],
    ['$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/', 'apache-md5-crypt'],
  ];
  for (const [hash, format] of cases) {
    it(`names ${format} for ${hash.slice(0, 16)}…`, () => assert.equal(identifyPasswordHash(hash), format));
  }

  it('returns null for schemes it does not support', () => {
    for (const hash of [
      '$y$j9T$abc$def', // yescrypt
      '$2x$10$abc', // crypt_blowfish's buggy-mode marker
      '$pbkdf2$1212$OB.dtnSEXZK8U5cgxU/GYQ$y5LKPOplRmok7CZp/aqVDVg8zGI', // pbkdf2-sha1
      'sha1$salt$hash',
      '5f4dcc3b5aa765d61d8327deb882cf99',
      'rqXexS6ZhobKA', // DES crypt
      '',
      '$argon2$x',
    ]) {
      assert.equal(identifyPasswordHash(hash), null, hash);
    }
  });

  it('requires the exact prefix, not a lookalike', () => {
    assert.equal(identifyPasswordHash(' $2b$10$abc'), null);
    assert.equal(identifyPasswordHash('$argon2idx$v=19'), null);
    assert.equal(identifyPasswordHash('$5rounds=1$x'), null);
  });
});

describe('describeHashScheme', () => {
  it('shows only the scheme identifier', () => {
    assert.equal(describeHashScheme('$y$j9T$salt$checksum'), '$y$');
    assert.equal(describeHashScheme('sha1$somesalt$0123abcd'), 'sha1$');
    assert.equal(describeHashScheme('5f4dcc3b5aa765d61d8327deb882cf99'), null);
    assert.equal(describeHashScheme(`$${'x'.repeat(40)}$rest`), null);
  });
});
