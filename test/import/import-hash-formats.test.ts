import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { describe, it } from 'node:test';
import argon2 from 'argon2';
import bcryptNative from 'bcrypt';
import bcryptjs from 'bcryptjs';
import { PasswordLoginService } from '../../src/login/password-login.service.js';
import { unique, useService } from '../support/fixtures.js';
import { humanUser, importBody, importedIds, postImport, storedHash } from './import.helpers.js';

const PASSWORD = 'correct horse battery staple';
const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');
const ab64 = (bytes: Buffer) => b64(bytes).replace(/\+/g, '.');
/** SHA-crypt and MD5-crypt as OpenSSL writes them (`openssl passwd`), an independent implementation. */
const opensslPasswd = (flag: string) => execFileSync('openssl', ['passwd', flag, '-salt', 'Gs4Lr7pQ', PASSWORD], { encoding: 'utf8' }).trim();

/**
 * Every accepted hash format, each made by a reference implementation, is stored as given,
 * then verified at login by its own algorithm and re-hashed to bcrypt at the configured cost.
 */
async function referenceHashes(): Promise<[format: string, password: string, hash: string][]> {
  const salt = randomBytes(16);
  return [
    ['bcrypt $2a$ (OpenBSD bcrypt via node.bcrypt.js)', PASSWORD, bcryptNative.hashSync(PASSWORD, bcryptNative.genSaltSync(5, 'a'))],
    ['bcrypt $2b$ (bcryptjs)', PASSWORD, bcryptjs.hashSync(PASSWORD, 5)],
    // The example of PHP's password_verify documentation (crypt_blowfish).
    ['bcrypt $2y$ (PHP)', 'rasmuslerdorf', '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a'],
    ['argon2id (reference C implementation via node-argon2)', PASSWORD, await argon2.hash(PASSWORD, { type: argon2.argon2id, memoryCost: 4096, timeCost: 2 })],
    ['argon2i (reference C implementation via node-argon2)', PASSWORD, await argon2.hash(PASSWORD, { type: argon2.argon2i, memoryCost: 4096, timeCost: 2 })],
    ['scrypt PHC (OpenSSL scrypt)', PASSWORD, `$scrypt$ln=10,r=8,p=1$${b64(salt)}$${b64(scryptSync(PASSWORD, salt, 32, { N: 1024, r: 8, p: 1 }))}`],
    ['pbkdf2-sha256 PHC (OpenSSL PBKDF2)', PASSWORD, `$pbkdf2-sha256$i=1000$${b64(salt)}$${b64(pbkdf2Sync(PASSWORD, salt, 1000, 32, 'sha256'))}`],
    ['pbkdf2-sha512 passlib (OpenSSL PBKDF2)', PASSWORD, `$pbkdf2-sha512$1000$${ab64(salt)}$${ab64(pbkdf2Sync(PASSWORD, salt, 1000, 64, 'sha512'))}`],
    ['pbkdf2_sha256 Django (OpenSSL PBKDF2)', PASSWORD, `pbkdf2_sha256$1000$seasalt$${pbkdf2Sync(PASSWORD, 'seasalt', 1000, 32, 'sha256').toString('base64')}`],
    ['sha256-crypt $5$ (openssl passwd -5)', PASSWORD, opensslPasswd('-5')],
    ['sha512-crypt $6$ (openssl passwd -6)', PASSWORD, opensslPasswd('-6')],
    ['md5-crypt $1$ (openssl passwd -1)', PASSWORD, opensslPasswd('-1')],
  ];
}

describe('imported password hashes of every supported format', () => {
  const svc = useService();

  it('are stored as given, verified at login by their own algorithm, then re-hashed to the configured bcrypt cost', async () => {
    const orgId = unique('hashes');
    const hashes = await referenceHashes();
    const users = hashes.map(([, , hash], i) => humanUser(`${orgId}-${i}`, `user-${i}`, { hashedPassword: { value: hash } }));
    const response = await postImport(svc, importBody([{ orgId, org: { name: orgId }, humanUsers: users }]));
    assert.deepEqual(response.errors, []);
    assert.equal(importedIds(response).length, hashes.length);

    const login = svc.app.get(PasswordLoginService);
    const source = { clientIpHash: 'b'.repeat(64) };
    for (const [i, [format, password, hash]] of hashes.entries()) {
      const userId = users[i].userId;
      assert.equal(await storedHash(svc, userId), hash, `${format}: stored as given`);
      const loginName = `user-${i}@${orgId}.localhost`;
      assert.equal((await login.check(loginName, `${password}x`, source)).ok, false, `${format}: a wrong password fails`);
      assert.equal((await login.check(loginName, password, source)).ok, true, `${format}: the right password signs in`);
      assert.match((await storedHash(svc, userId)) ?? '', /^\$2b\$04\$/, `${format}: re-hashed to bcrypt at cost 4 after the first login`);
      assert.equal((await login.check(loginName, password, source)).ok, true, `${format}: still signs in after the re-hash`);
    }
  });
});
