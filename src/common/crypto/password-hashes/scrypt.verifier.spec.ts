import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { MalformedPasswordHashError, PasswordHashLimitExceededError } from './password-hash.errors.js';
import { parseScryptHash, verifyScryptHash } from './scrypt.verifier.js';

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** A PHC/passlib-style scrypt string made with Node's crypto.scrypt (the reference for RFC 7914 here). */
function referenceHash(password: string, logN = 4, r = 8, p = 1, keyLength = 32): string {
  const salt = randomBytes(16);
  const key = scryptSync(Buffer.from(password, 'utf8'), salt, keyLength, { N: 2 ** logN, r, p });
  return `$scrypt$ln=${logN},r=${r},p=${p}$${b64(salt)}$${b64(key)}`;
}

const verify = (password: string, hash: string) => verifyScryptHash(password, parseScryptHash(hash));

describe('scrypt verifier', () => {
  it('verifies PHC strings made with crypto.scrypt', async () => {
    const hash = referenceHash('correct horse battery staple');
    assert.equal(await verify('correct horse battery staple', hash), true);
    assert.equal(await verify('correct horse battery stapler', hash), false);
    assert.equal(await verify('', hash), false);
  });

  it('honours r, p and the stored key length', async () => {
    const hash = referenceHash('pässwörd', 5, 4, 3, 64);
    const parsed = parseScryptHash(hash);
    assert.deepEqual([parsed.logN, parsed.blockSize, parsed.parallelism, parsed.hash.length], [5, 4, 3, 64]);
    assert.equal(await verify('pässwörd', hash), true);
    assert.equal(await verify('passwörd', hash), false);
  });

  it("verifies passlib's published example (ln=16, r=8, p=1: 64 MiB, above Node's default maxmem)", async () => {
    // https://passlib.readthedocs.io/en/stable/lib/passlib.hash.scrypt.html, password "password";
    // also the RustCrypto scrypt crate's test vector.
    const hash = '$scrypt$ln=16,r=8,p=1$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4CbdRSCdEBsjjJxD+iCs5E';
    assert.equal(await verify('password', hash), true);
    assert.equal(await verify('passwort', hash), false);
  });

  describe('rejects garbled hashes with a clear message', () => {
    const salt = 'c29tZXNhbHRzYWx0';
    const out = b64(Buffer.alloc(32, 3));
    const cases: Array<[string, RegExp]> = [
      [`$scrypt$ln=4,r=8,p=1$${salt}`, /missing hash/],
      [`$scrypt$ln=4,r=8,p=1`, /missing salt/],
      [`$scrypt$ln=4,r=8$${salt}$${out}`, /missing parameter 'p'/],
      [`$scrypt$N=16,r=8,p=1$${salt}$${out}`, /unknown parameter 'N'/],
      [`$scrypt$ln=0,r=8,p=1$${salt}$${out}`, /'ln' must be an integer from 1 to 63/],
      [`$scrypt$v=1$ln=4,r=8,p=1$${salt}$${out}`, /no version field/],
      [`$scrypt$ln=4,r=8,p=1$${salt}$${out}==`, /hash is not valid unpadded base64/],
      [`$scrypt$ln=4,r=8,p=1$${salt}$AAAA`, /hash must be 16 to 128 bytes, got 3/],
    ];
    for (const [hash, message] of cases) {
      it(hash, () => {
        assert.throws(
          () => parseScryptHash(hash),
          (error: unknown) => {
            assert.ok(error instanceof MalformedPasswordHashError, String(error));
            assert.match(error.message, /^malformed scrypt hash: /);
            assert.match(error.message, message);
            return true;
          },
        );
      });
    }
  });

  it('parses the strongest common settings and refuses costs above the caps', () => {
    const tail = `c29tZXNhbHRzYWx0$${b64(Buffer.alloc(32))}`;
    assert.equal(parseScryptHash(`$scrypt$ln=18,r=8,p=1$${tail}`).logN, 18);
    const limit = (hash: string, message: RegExp) =>
      assert.throws(
        () => parseScryptHash(hash),
        (error: unknown) => error instanceof PasswordHashLimitExceededError && message.test(error.message),
      );
    limit(`$scrypt$ln=19,r=8,p=1$${tail}`, /memory 128·N·r = 536870912 bytes/);
    limit(`$scrypt$ln=40,r=1,p=1$${tail}`, /memory/);
    limit(`$scrypt$ln=16,r=8,p=8$${tail}`, /work N·r·p = 4194304/);
  });
});
