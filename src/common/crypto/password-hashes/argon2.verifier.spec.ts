import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import argon2 from 'argon2';
import { parseArgon2Hash, verifyArgon2Hash, type Argon2Format } from './argon2.verifier.js';
import { MalformedPasswordHashError, PasswordHashLimitExceededError, UnsupportedPasswordHashError } from './password-hash.errors.js';

const TYPES = { argon2id: argon2.argon2id, argon2i: argon2.argon2i, argon2d: argon2.argon2d } as const;
const SMALL = { memoryCost: 64, timeCost: 2, parallelism: 1 };

/** A reference hash from the `argon2` package (the reference C implementation), small parameters. */
function referenceHash(password: string, format: Argon2Format, options: Record<string, unknown> = {}): Promise<string> {
  return argon2.hash(password, { type: TYPES[format], ...SMALL, ...options });
}

const verify = (password: string, hash: string, format: Argon2Format) => verifyArgon2Hash(password, parseArgon2Hash(hash, format));

function expectMalformed(hash: string, format: Argon2Format, message: RegExp): void {
  assert.throws(
    () => parseArgon2Hash(hash, format),
    (error: unknown) => {
      assert.ok(error instanceof MalformedPasswordHashError, String(error));
      assert.match(error.message, new RegExp(`^malformed ${format} hash: `));
      assert.match(error.message, message);
      return true;
    },
  );
}

function expectLimit(hash: string, format: Argon2Format, message: RegExp): void {
  assert.throws(
    () => parseArgon2Hash(hash, format),
    (error: unknown) => {
      assert.ok(error instanceof PasswordHashLimitExceededError, String(error));
      assert.match(error.message, message);
      return true;
    },
  );
}

describe('argon2 verifier', () => {
  for (const format of ['argon2id', 'argon2i', 'argon2d'] as const) {
    it(`verifies ${format} hashes made by the argon2 package`, async () => {
      const hash = await referenceHash('correct horse battery staple', format);
      assert.ok(hash.startsWith(`$${format}$v=19$`));
      assert.equal(await verify('correct horse battery staple', hash, format), true);
      assert.equal(await verify('correct horse battery stapler', hash, format), false);
      assert.equal(await verify('', hash, format), false);
    });
  }

  it('verifies non-ASCII and empty passwords', async () => {
    const unicode = await referenceHash('táБℓə', 'argon2id');
    assert.equal(await verify('táБℓə', unicode, 'argon2id'), true);
    assert.equal(await verify('taБℓə', unicode, 'argon2id'), false);
    const empty = await referenceHash('', 'argon2id');
    assert.equal(await verify('', empty, 'argon2id'), true);
    assert.equal(await verify(' ', empty, 'argon2id'), false);
  });

  it('verifies version 1.0 hashes, with v=16 or without a version field', async () => {
    const v16 = await referenceHash('pw', 'argon2i', { version: 0x10 });
    assert.ok(v16.startsWith('$argon2i$v=16$'));
    assert.equal(await verify('pw', v16, 'argon2i'), true);
    const unversioned = v16.replace('$v=16', '');
    assert.equal(parseArgon2Hash(unversioned, 'argon2i').version, 0x10);
    assert.equal(await verify('pw', unversioned, 'argon2i'), true);
    assert.equal(await verify('px', unversioned, 'argon2i'), false);
  });

  it('accepts parameters in any order (node-argon2 writes m,p,t) and associated data', async () => {
    const hash = await referenceHash('pw', 'argon2id', { parallelism: 2, memoryCost: 128, associatedData: Buffer.from('tenant-1') });
    assert.match(hash, /\$m=128,p=2,t=2,data=dGVuYW50LTE\$/);
    assert.equal(await verify('pw', hash, 'argon2id'), true);
    const reordered = hash.replace('m=128,p=2,t=2,data=dGVuYW50LTE', 't=2,data=dGVuYW50LTE,m=128,p=2');
    assert.equal(await verify('pw', reordered, 'argon2id'), true);
    const otherData = hash.replace('data=dGVuYW50LTE', 'data=dGVuYW50LTI');
    assert.equal(await verify('pw', otherData, 'argon2id'), false);
  });

  it("verifies Django's Argon2PasswordHasher layout ('argon2' + the PHC string)", async () => {
    const hash = `argon2${await referenceHash('lètmein', 'argon2id')}`;
    assert.ok(hash.startsWith('argon2$argon2id$v=19$'));
    assert.equal(parseArgon2Hash(hash, 'argon2id').encoded, hash.slice('argon2'.length));
    assert.equal(await verify('lètmein', hash, 'argon2id'), true);
    assert.equal(await verify('letmein', hash, 'argon2id'), false);
    expectMalformed('argon2$argon2id$v=19$m=64,t=2,p=1$c29tZXNhbHRzYWx0', 'argon2id', /missing hash/);
  });

  it('verifies a published vector (passlib argon2 docs / passuth test suite)', async () => {
    // https://passlib.readthedocs.io/en/stable/lib/passlib.hash.argon2.html, password "password".
    const hash = '$argon2i$v=19$m=16,t=2,p=1$ZVZWeGtzNVZqeExTVzNSOA$fx0EYEB1zO8i+J2H+OFI4w';
    assert.equal(await verify('password', hash, 'argon2i'), true);
    assert.equal(await verify('Password', hash, 'argon2i'), false);
  });

  it('parses realistic production parameters without hashing', () => {
    const salt = Buffer.alloc(16, 1).toString('base64').replace(/=+$/, '');
    const out = Buffer.alloc(32, 2).toString('base64').replace(/=+$/, '');
    // Keycloak's default argon2 provider, OWASP's minimum, RFC 9106's second option, libsodium "moderate".
    for (const [params, m, t, p] of [
      ['m=7168,t=5,p=1', 7168, 5, 1],
      ['m=19456,t=2,p=1', 19456, 2, 1],
      ['m=65536,t=3,p=4', 65536, 3, 4],
      ['m=262144,t=4,p=1', 262144, 4, 1],
    ] as const) {
      const parsed = parseArgon2Hash(`$argon2id$v=19$${params}$${salt}$${out}`, 'argon2id');
      assert.deepEqual([parsed.memoryKiB, parsed.passes, parsed.parallelism, parsed.version], [m, t, p, 0x13]);
    }
  });

  describe('rejects garbled hashes with a clear message', () => {
    const salt = 'c29tZXNhbHRzYWx0';
    const out = Buffer.alloc(32, 9).toString('base64').replace(/=+$/, '');
    const cases: Array<[string, RegExp]> = [
      [`$argon2id$v=19$m=64,t=2,p=1`, /missing salt/],
      [`$argon2id$v=19$m=64,t=2,p=1$${salt}`, /missing hash/],
      [`$argon2id$v=19$${salt}$${out}`, /missing parameter 'p'/],
      [`$argon2id$v=19$m=64,t=2$${salt}$${out}`, /missing parameter 'p'/],
      [`$argon2id$v=19$m=64,t=2,p=1,x=1$${salt}$${out}`, /unknown parameter 'x'/],
      [`$argon2id$v=20$m=64,t=2,p=1$${salt}$${out}`, /unknown version v=20/],
      [`$argon2id$v=19$m=64,t=0,p=1$${salt}$${out}`, /'t' must be an integer from 1/],
      [`$argon2id$v=19$m=64,t=2,p=0$${salt}$${out}`, /'p' must be an integer from 1/],
      [`$argon2id$v=19$m=7,t=2,p=1$${salt}$${out}`, /'m' must be an integer from 8/],
      [`$argon2id$v=19$m=64,t=2,p=16$${salt}$${out}`, /'m' must be an integer from 128/],
      [`$argon2id$v=19$m=064,t=2,p=1$${salt}$${out}`, /'m' must be an integer/],
      [`$argon2id$v=19$m=64,t=2,p=1$c29tZQ$${out}`, /salt must be 8 to 128 bytes, got 4/],
      [`$argon2id$v=19$m=64,t=2,p=1$${salt}=$${out}`, /salt is not valid unpadded base64/],
      [`$argon2id$v=19$m=64,t=2,p=1$${salt}$${out}!`, /hash is not valid unpadded base64/],
      [`$argon2id$v=19$m=64,t=2,p=1$${salt}$AAAAAAAAAAA`, /hash must be 16 to 128 bytes, got 8/],
      [`$argon2id$v=19$m=64,t=2,p=1,data=*$${salt}$${out}`, /'data' has an empty or invalid value/],
      [`$argon2i$v=19$m=64,t=2,p=1$${salt}$${out}`, /identifier '\$argon2i\$' does not name argon2id/],
    ];
    for (const [hash, message] of cases) it(hash, () => expectMalformed(hash, 'argon2id', message));
  });

  it('refuses keyed hashes (keyid) as unsupported', () => {
    const hash = `$argon2id$v=19$m=64,t=2,p=1,keyid=AAAA$c29tZXNhbHRzYWx0$${'A'.repeat(43)}`;
    assert.throws(
      () => parseArgon2Hash(hash, 'argon2id'),
      (error: unknown) => {
        assert.ok(error instanceof UnsupportedPasswordHashError);
        assert.equal(error.format, 'argon2id');
        assert.match(error.message, /unsupported password hash format '\$argon2id\$': .*keyid/);
        return true;
      },
    );
  });

  it('refuses costs above the caps without touching memory', () => {
    const tail = `c29tZXNhbHRzYWx0$${'A'.repeat(43)}`;
    // RFC 9106's first option (2 GiB), libsodium "sensitive" (1 GiB) and an absurd 95 GiB that would get the process killed.
    expectLimit(`$argon2id$v=19$m=2097152,t=1,p=4$${tail}`, 'argon2id', /memory 2097152 KiB is above the limit of 262144 KiB/);
    expectLimit(`$argon2id$v=19$m=1048576,t=4,p=1$${tail}`, 'argon2id', /memory 1048576 KiB is above the limit of 262144 KiB/);
    expectLimit(`$argon2id$v=19$m=99999999,t=1,p=1$${tail}`, 'argon2id', /memory 99999999 KiB/);
    expectLimit(`$argon2id$v=19$m=262144,t=5,p=1$${tail}`, 'argon2id', /memory × passes/);
    expectLimit(`$argon2id$v=19$m=65536,t=3,p=9$${tail}`, 'argon2id', /parallelism 9 is above the limit of 8/);
    expectLimit(`$argon2id$v=19$m=65536,t=3,p=64$${tail}`, 'argon2id', /parallelism 64 is above the limit of 8/);
  });
});
