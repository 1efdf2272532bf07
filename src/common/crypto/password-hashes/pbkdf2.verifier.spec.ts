import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { MalformedPasswordHashError, PasswordHashLimitExceededError } from './password-hash.errors.js';
import { parsePbkdf2Hash, verifyPbkdf2Hash, type Pbkdf2Format } from './pbkdf2.verifier.js';

const unpadded = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
const passlibAb64 = (bytes: Buffer) => unpadded(bytes).replaceAll('+', '.');
const digestOf = (format: Pbkdf2Format) => (format === 'pbkdf2-sha256' ? 'sha256' : 'sha512');

/** Django's PBKDF2PasswordHasher.encode(): pbkdf2_hmac over the salt *text*, base64 with padding. */
function djangoHash(password: string, salt: string, iterations: number, format: Pbkdf2Format): string {
  const keyLength = format === 'pbkdf2-sha256' ? 32 : 64;
  const key = pbkdf2Sync(Buffer.from(password, 'utf8'), Buffer.from(salt, 'utf8'), iterations, keyLength, digestOf(format));
  return `${format.replace('-', '_')}$${iterations}$${salt}$${key.toString('base64')}`;
}

/** passlib's pbkdf2_sha256/sha512 layout: bare iteration count, adapted base64 of salt bytes and key. */
function passlibHash(password: string, iterations: number, format: Pbkdf2Format): string {
  const salt = randomBytes(16);
  const key = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, format === 'pbkdf2-sha256' ? 32 : 64, digestOf(format));
  return `$${format}$${iterations}$${passlibAb64(salt)}$${passlibAb64(key)}`;
}

/** The PHC layout (RustCrypto pbkdf2, or Keycloak credentials converted for import): `i=`, optional `l=`. */
function phcHash(password: string, iterations: number, format: Pbkdf2Format, keyLength: number): string {
  const salt = randomBytes(16);
  const key = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, keyLength, digestOf(format));
  return `$${format}$i=${iterations},l=${keyLength}$${unpadded(salt)}$${unpadded(key)}`;
}

const verify = (password: string, hash: string, format: Pbkdf2Format) => verifyPbkdf2Hash(password, parsePbkdf2Hash(hash, format));

describe('pbkdf2 verifier', () => {
  for (const format of ['pbkdf2-sha256', 'pbkdf2-sha512'] as const) {
    it(`verifies Django-layout ${format} hashes`, async () => {
      const hash = djangoHash('lètmein', 'Y3t8Vqk0n1Fz', 1000, format);
      assert.equal(parsePbkdf2Hash(hash, format).layout, 'django');
      assert.equal(await verify('lètmein', hash, format), true);
      assert.equal(await verify('letmein', hash, format), false);
    });

    it(`verifies passlib-layout ${format} hashes`, async () => {
      const hash = passlibHash('correct horse', 1212, format);
      assert.equal(parsePbkdf2Hash(hash, format).layout, 'passlib');
      assert.equal(await verify('correct horse', hash, format), true);
      assert.equal(await verify('correct horsE', hash, format), false);
    });

    it(`verifies PHC-layout ${format} hashes, including a 64-byte key`, async () => {
      for (const keyLength of [32, 64]) {
        const hash = phcHash('correct horse', 1000, format, keyLength);
        assert.equal(parsePbkdf2Hash(hash, format).hash.length, keyLength);
        assert.equal(await verify('correct horse', hash, format), true);
        assert.equal(await verify('', hash, format), false);
      }
    });
  }

  it("verifies Django's own test vector (tests/auth_tests/test_hashers.py, Django 4.2: 600,000 iterations)", async () => {
    const hash = 'pbkdf2_sha256$600000$seasalt$OAXyhAQ/4ZDA9V5RMExt3C1OwQdUpLZ99vm1McFlLRA=';
    assert.equal(await verify('lètmein', hash, 'pbkdf2-sha256'), true);
    assert.equal(await verify('lètmeinz', hash, 'pbkdf2-sha256'), false);
  });

  // passlib's published vectors (passlib/tests/test_handlers.py, pbkdf2_sha256_test / pbkdf2_sha512_test).
  const passlibVectors: Array<[Pbkdf2Format, string, string]> = [
    ['pbkdf2-sha256', 'password', '$pbkdf2-sha256$1212$4vjV83LKPjQzk31VI4E0Vw$hsYF68OiOUPdDZ1Fg.fJPeq1h/gXXY7acBp9/6c.tmQ'],
    ['pbkdf2-sha256', '\u0399\u03c9\u03b1\u03bd\u03bd\u03b7\u03c2', '$pbkdf2-sha256$1212$3SABFJGDtyhrQMVt1uABPw$WyaUoqCLgvz97s523nF4iuOqZNbp5Nt8do/cuaa7AiI'],
    [
      'pbkdf2-sha512',
      'password',
      '$pbkdf2-sha512$1212$RHY0Fr3IDMSVO/RSZyb5ow$eNLfBK.eVozomMr.1gYa17k9B7KIK25NOEshvhrSX.esqY3s.FvWZViXz4KoLlQI.BzY/YTNJOiKc5gBYFYGww',
    ],
  ];
  for (const [format, password, hash] of passlibVectors) {
    it(`verifies passlib's vector ${hash.slice(0, 28)}…`, async () => {
      assert.equal(await verify(password, hash, format), true);
      assert.equal(await verify(password.toUpperCase(), hash, format), false);
    });
  }

  it('parses realistic iteration counts (Django 5.2, Keycloak sha512, passlib default)', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    assert.equal(parsePbkdf2Hash(`pbkdf2_sha256$1000000$abcdefghijklmnopqrstuv$${key}`, 'pbkdf2-sha256').iterations, 1_000_000);
    const salt = unpadded(Buffer.alloc(16, 1));
    const key64 = unpadded(Buffer.alloc(64, 1));
    assert.equal(parsePbkdf2Hash(`$pbkdf2-sha512$i=210000,l=64$${salt}$${key64}`, 'pbkdf2-sha512').iterations, 210_000);
    assert.equal(parsePbkdf2Hash(`$pbkdf2-sha256$29000$${salt}$${unpadded(Buffer.alloc(32, 1))}`, 'pbkdf2-sha256').iterations, 29_000);
  });

  describe('rejects garbled hashes with a clear message', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const salt = unpadded(Buffer.alloc(16, 1));
    const key32 = unpadded(Buffer.alloc(32, 1));
    const cases: Array<[string, RegExp]> = [
      ['pbkdf2_sha256$1000$salt', /expected '<algorithm>\$<iterations>\$<salt>\$<hash>'/],
      [`pbkdf2_sha256$1000$$${key}`, /missing salt/],
      ['pbkdf2_sha256$1000$salt$', /missing hash/],
      [`pbkdf2_sha256$01000$salt$${key}`, /iteration count must be a positive decimal/],
      [`pbkdf2_sha256$0$salt$${key}`, /iteration count must be a positive decimal/],
      [`pbkdf2_sha256$1000$salt$${key.slice(0, -1)}`, /hash is not valid padded base64/],
      [`pbkdf2_sha256$1000$salt$${key}$x`, /expected '<algorithm>/],
      [`$pbkdf2-sha256$29000$${salt}`, /missing hash/],
      [`$pbkdf2-sha256$29000$${salt}$${key32}+`, /hash is not valid passlib's adapted base64/],
      [`$pbkdf2-sha256$29000$${salt}$${key32}$`, /extra/],
      [`$pbkdf2-sha256$i=1000,l=16$${salt}$${key32}`, /parameter 'l' does not match the 32-byte hash/],
      [`$pbkdf2-sha256$i=1000,r=8$${salt}$${key32}`, /unknown parameter 'r'/],
      [`$pbkdf2-sha256$${salt}$${key32}`, /missing iteration count/],
      [`$pbkdf2-sha256$i=1000$${salt}$AAAA`, /hash must be 16 to 128 bytes, got 3/],
    ];
    for (const [hash, message] of cases) {
      it(hash, () => {
        assert.throws(
          () => parsePbkdf2Hash(hash, 'pbkdf2-sha256'),
          (error: unknown) => {
            assert.ok(error instanceof MalformedPasswordHashError, String(error));
            assert.match(error.message, /^malformed pbkdf2-sha256 hash: /);
            assert.match(error.message, message);
            return true;
          },
        );
      });
    }
  });

  it('refuses iteration counts above the cap, counting output blocks', () => {
    const salt = unpadded(Buffer.alloc(16, 1));
    const limit = (hash: string, format: Pbkdf2Format, message: RegExp) =>
      assert.throws(
        () => parsePbkdf2Hash(hash, format),
        (error: unknown) => error instanceof PasswordHashLimitExceededError && message.test(error.message),
      );
    limit(`pbkdf2_sha256$2000001$salt$${Buffer.alloc(32).toString('base64')}`, 'pbkdf2-sha256', /2000001 × 1/);
    // A 64-byte sha256 key costs two full runs (RFC 8018 §5.2), so 1,200,000 iterations are 2,400,000.
    limit(`$pbkdf2-sha256$i=1200000,l=64$${salt}$${unpadded(Buffer.alloc(64))}`, 'pbkdf2-sha256', /1200000 × 2/);
    assert.equal(parsePbkdf2Hash(`$pbkdf2-sha512$i=1200000,l=64$${salt}$${unpadded(Buffer.alloc(64))}`, 'pbkdf2-sha512').iterations, 1_200_000);
  });
});
