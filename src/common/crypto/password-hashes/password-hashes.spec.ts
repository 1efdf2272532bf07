import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import argon2 from 'argon2';
import bcryptjs from 'bcryptjs';
import {
  hashPassword,
  identifyPasswordHash,
  InvalidPasswordHashError,
  MalformedPasswordHashError,
  needsRehash,
  parsePasswordHash,
  PasswordHashLimitExceededError,
  UnsupportedPasswordHashError,
  validatePasswordHash,
  verifyAgainstDummyHash,
  verifyPassword,
  type PasswordHashFormat,
} from './password-hashes.js';

const PASSWORD = 'Tr0ub4dor&3 é';
const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** One hash of PASSWORD per format, made by reference implementations or taken from published vectors. */
async function sampleHashes(): Promise<Record<PasswordHashFormat, string>> {
  const salt = randomBytes(16);
  const djangoSalt = salt.toString('hex');
  const djangoKey = pbkdf2Sync(PASSWORD, djangoSalt, 1000, 32, 'sha256').toString('base64');
  const passlibKey = pbkdf2Sync(PASSWORD, salt, 1000, 64, 'sha512');
  const ab64 = (bytes: Buffer) => b64(bytes).replaceAll('+', '.');
  return {
    bcrypt: bcryptjs.hashSync(PASSWORD, 4),
    argon2id: await argon2.hash(PASSWORD, { type: argon2.argon2id, memoryCost: 64, timeCost: 1, parallelism: 1 }),
    argon2i: await argon2.hash(PASSWORD, { type: argon2.argon2i, memoryCost: 64, timeCost: 1, parallelism: 1 }),
    argon2d: await argon2.hash(PASSWORD, { type: argon2.argon2d, memoryCost: 64, timeCost: 1, parallelism: 1 }),
    scrypt: `$scrypt$ln=4,r=8,p=1$${b64(salt)}$${b64(scryptSync(PASSWORD, salt, 32, { N: 16, r: 8, p: 1 }))}`,
    'pbkdf2-sha256': `pbkdf2_sha256$1000$${djangoSalt}$${djangoKey}`,
    'pbkdf2-sha512': `$pbkdf2-sha512$1000$${ab64(salt)}$${ab64(passlibKey)}`,
    // Drepper's spec vectors and passlib's/Apache's published vectors use other passwords; see below.
    'sha256-crypt': '',
    'sha512-crypt': '',
    'md5-crypt': '',
    'apache-md5-crypt': '',
  };
}

const PUBLISHED: Array<[PasswordHashFormat, string, string]> = [
  ['sha256-crypt', 'Hello world!', '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5'],
  ['sha512-crypt', 'Hello world!', '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1'],
  ['md5-crypt', 'U*U*U*U*', '$1$dXc3I7Rw$ctlgjDdWJLMT.qwHsWhXR1'],
  ['apache-md5-crypt', 'myPassword', '$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/'],
  ['pbkdf2-sha256', 'lètmein', 'pbkdf2_sha256$600000$seasalt$OAXyhAQ/4ZDA9V5RMExt3C1OwQdUpLZ99vm1McFlLRA='],
  ['bcrypt', 'myPassword', '$2y$05$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC'],
];

describe('password hashes facade', () => {
  describe('verifyPassword', () => {
    it('verifies every format by its own algorithm', async () => {
      const samples = await sampleHashes();
      for (const [format, hash] of Object.entries(samples) as Array<[PasswordHashFormat, string]>) {
        if (hash === '') continue;
        assert.equal(identifyPasswordHash(hash), format, hash);
        assert.equal(await verifyPassword(PASSWORD, hash), true, `${format} right password`);
        assert.equal(await verifyPassword(`${PASSWORD} `, hash), false, `${format} wrong password`);
      }
      for (const [format, password, hash] of PUBLISHED) {
        assert.equal(identifyPasswordHash(hash), format, hash);
        assert.equal(await verifyPassword(password, hash), true, `${format} published vector`);
        assert.equal(await verifyPassword(`${password}?`, hash), false, `${format} published vector, wrong password`);
      }
    });

    it('rejects with a typed error only for unsupported or garbled hashes', async () => {
      const yescrypt = '$y$j9T$F5Jx5fExrKuPp53xLKQ..1$X3DX6M94c7o.9agCG9G317fhZg9SqC.5i5rd.RhAtQ7';
      await assert.rejects(verifyPassword('pw', yescrypt), (error: unknown) => {
        assert.ok(error instanceof UnsupportedPasswordHashError);
        assert.equal(error.code, 'unsupported_password_hash');
        assert.equal(error.message, "unsupported password hash format '$y$'");
        assert.ok(!error.message.includes('F5Jx5fExrKuPp53xLKQ'), 'the salt is not echoed');
        return true;
      });
      await assert.rejects(verifyPassword('pw', '$argon2id$v=19$m=65536,t=3,p=4'), (error: unknown) => {
        assert.ok(error instanceof MalformedPasswordHashError);
        assert.equal(error.code, 'malformed_password_hash');
        assert.equal(error.format, 'argon2id');
        assert.equal(error.message, 'malformed argon2id hash: missing salt');
        return true;
      });
      const hugeArgon2 = `$argon2id$v=19$m=99999999,t=1,p=1$c29tZXNhbHRzYWx0$${'A'.repeat(43)}`;
      await assert.rejects(verifyPassword('pw', hugeArgon2), PasswordHashLimitExceededError);
      await assert.rejects(verifyPassword('pw', ''), /malformed password hash: password hash is empty/);
    });

    it('resolves false, without hashing, for a password over 1024 UTF-8 bytes', async () => {
      const long = 'é'.repeat(513); // 1026 bytes
      const hash = '$6$rounds=700000$salt$' + 'a'.repeat(85) + '.';
      const started = performance.now();
      assert.equal(await verifyPassword(long, hash), false);
      assert.ok(performance.now() - started < 100, 'no 700,000-round computation ran');
      assert.equal(await verifyPassword('é'.repeat(512), bcryptjs.hashSync('é'.repeat(512), 4)), true, '1024 bytes is allowed');
      await assert.rejects(verifyPassword(long, '$y$x$y'), UnsupportedPasswordHashError, 'a bad hash is still reported');
    });
  });

  describe('validatePasswordHash', () => {
    it('accepts every supported format', async () => {
      const samples = await sampleHashes();
      const hashes = [...Object.values(samples).filter((hash) => hash !== ''), ...PUBLISHED.map(([, , hash]) => hash)];
      for (const hash of hashes) {
        const result = validatePasswordHash(hash);
        assert.equal(result.valid, true, `${hash}: ${result.valid ? '' : result.error.message}`);
        assert.equal(result.format, identifyPasswordHash(hash));
      }
    });

    const rejected: Array<[unknown, InvalidPasswordHashError['code'], PasswordHashFormat | null, string]> = [
      ['xyz', 'unsupported_password_hash', null, 'unsupported password hash format (no recognisable scheme identifier)'],
      ['5f4dcc3b5aa765d61d8327deb882cf99', 'unsupported_password_hash', null, 'unsupported password hash format (no recognisable scheme identifier)'],
      ['sha1$a$0123', 'unsupported_password_hash', null, "unsupported password hash format 'sha1$'"],
      ['$2x$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e', 'unsupported_password_hash', null, "unsupported password hash format '$2x$'"],
      ['$argon2id$v=19$m=65536,t=3,p=4', 'malformed_password_hash', 'argon2id', 'malformed argon2id hash: missing salt'],
      ['$2b$10$tooshort', 'malformed_password_hash', 'bcrypt', 'malformed bcrypt hash: salt is shorter than 22 characters'],
      ['$6$salt', 'malformed_password_hash', 'sha512-crypt', 'malformed sha512-crypt hash: missing checksum'],
      [
        ' $2y$05$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC',
        'malformed_password_hash',
        null,
        'malformed password hash: password hash contains whitespace or control characters',
      ],
      [
        '$2y$05$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC\n',
        'malformed_password_hash',
        'bcrypt',
        'malformed bcrypt hash: password hash contains whitespace or control characters',
      ],
      ['', 'malformed_password_hash', null, 'malformed password hash: password hash is empty'],
      [null, 'malformed_password_hash', null, 'malformed password hash: password hash must be a string'],
      [`$6$${'a'.repeat(1100)}`, 'malformed_password_hash', null, 'malformed password hash: password hash is longer than 1024 characters'],
      [
        '$2b$20$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC',
        'password_hash_limit_exceeded',
        'bcrypt',
        'bcrypt hash exceeds a supported limit: cost 20 is above the limit of 15',
      ],
    ];
    for (const [hash, code, format, message] of rejected) {
      it(`rejects ${JSON.stringify(hash)?.slice(0, 30)}: ${message}`, () => {
        const result = validatePasswordHash(hash as string);
        assert.equal(result.valid, false);
        if (result.valid) return;
        assert.equal(result.error.code, code);
        assert.equal(result.format, format);
        assert.equal(result.error.message, message);
      });
    }

    it('parses 100,000 hashes well above the 10,000/s import target (no hashing)', async () => {
      const samples = Object.values(await sampleHashes()).filter((hash) => hash !== '');
      const pool = [...samples, ...PUBLISHED.map(([, , hash]) => hash), '$2b$10$tooshort', '$y$j9T$x$y'];
      const started = performance.now();
      let valid = 0;
      for (let i = 0; i < 100_000; i++) if (validatePasswordHash(pool[i % pool.length]!).valid) valid++;
      const seconds = (performance.now() - started) / 1000;
      assert.ok(valid > 80_000);
      assert.ok(seconds < 10, `100,000 validations took ${seconds.toFixed(2)} s`);
    });
  });

  describe('parsePasswordHash', () => {
    it('throws the same typed errors validatePasswordHash reports', () => {
      assert.throws(() => parsePasswordHash('$7$CU..../....abc'), UnsupportedPasswordHashError);
      assert.throws(() => parsePasswordHash('$scrypt$ln=16,r=8,p=1$c2FsdA'), MalformedPasswordHashError);
      assert.equal(parsePasswordHash('$1$dXc3I7Rw$ctlgjDdWJLMT.qwHsWhXR1').format, 'md5-crypt');
    });
  });

  describe('needsRehash', () => {
    const bcrypt10 = '$2b$10$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC';
    it('is false only for bcrypt at the configured cost, whatever the minor version', () => {
      assert.equal(needsRehash(bcrypt10, 10), false);
      assert.equal(needsRehash(bcrypt10.replace('$2b$', '$2a$'), 10), false);
      assert.equal(needsRehash(bcrypt10.replace('$2b$', '$2y$'), 10), false);
    });
    it('is true for bcrypt at a lower or higher cost', () => {
      assert.equal(needsRehash(bcrypt10, 12), true);
      assert.equal(needsRehash(bcrypt10, 4), true);
    });
    it('is true for every other format and for garbage, without throwing', () => {
      for (const [, , hash] of PUBLISHED.filter(([format]) => format !== 'bcrypt')) assert.equal(needsRehash(hash, 10), true, hash);
      assert.equal(needsRehash('$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$aGFzaA', 10), true);
      assert.equal(needsRehash('$2b$10$tooshort', 10), true);
      assert.equal(needsRehash('', 10), true);
    });
    it('rejects an invalid configured cost', () => {
      assert.throws(() => needsRehash(bcrypt10, 3), RangeError);
      assert.throws(() => needsRehash(bcrypt10, 10.5), RangeError);
    });
  });

  describe('hashPassword', () => {
    it('makes a $2b$ bcrypt hash at the given cost that verifies and needs no rehash', async () => {
      const hash = await hashPassword(PASSWORD, 4);
      assert.match(hash, /^\$2b\$04\$[./A-Za-z0-9]{53}$/);
      assert.equal(await verifyPassword(PASSWORD, hash), true);
      assert.equal(await verifyPassword('other', hash), false);
      assert.equal(bcryptjs.compareSync(PASSWORD, hash), true, 'interoperates with bcryptjs');
      assert.equal(needsRehash(hash, 4), false);
      assert.equal(needsRehash(hash, 5), true);
    });
    it('refuses costs outside 4..15 and passwords over 1024 UTF-8 bytes', async () => {
      await assert.rejects(hashPassword('pw', 3), RangeError);
      await assert.rejects(hashPassword('pw', 16), RangeError);
      await assert.rejects(hashPassword('x'.repeat(1025), 4), /longer than 1024 UTF-8 bytes/);
    });
  });

  describe('verifyAgainstDummyHash', () => {
    it('spends a bcrypt verification and resolves false', async () => {
      assert.equal(await verifyAgainstDummyHash('anything', 4), false);
      assert.equal(await verifyAgainstDummyHash('portcullis dummy password', 4), false);
    });
  });
});
