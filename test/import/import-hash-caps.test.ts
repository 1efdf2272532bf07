import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import { humanUser, importBody, importedIds, postImport, storedCounts, userErrors } from './import.helpers.js';

const b64 = (bytes: number, fill: number) => Buffer.alloc(bytes, fill).toString('base64').replace(/=+$/, '');
const SALT = b64(16, 1);
const SUM32 = b64(32, 2);
const SUM64 = b64(64, 3);
const SHA512_CRYPT_SUM = 'a'.repeat(85) + '.';

/**
 * Costs one step past each cap of password-hash.limits.ts, with what the import must answer. These
 * are the settings an attacker (or a careless export) would bring: libsodium's "sensitive" argon2id
 * preset (1 GiB) took 5 s of CPU and 1 GiB per wrong password before the caps were lowered.
 */
const PAST_THE_CAPS: [label: string, hash: string, message: RegExp][] = [
  [
    'argon2id 1 GiB (libsodium sensitive)',
    `$argon2id$v=19$m=1048576,t=4,p=1$${SALT}$${SUM32}`,
    /argon2id hash exceeds a supported limit: memory 1048576 KiB is above the limit of 262144 KiB/,
  ],
  ['argon2id 64 MiB × 17 passes', `$argon2id$v=19$m=65536,t=17,p=1$${SALT}$${SUM32}`, /memory × passes \(65536 KiB × 17\) is above the limit of 1048576 KiB/],
  ['argon2i 64 lanes', `$argon2i$v=19$m=65536,t=2,p=64$${SALT}$${SUM32}`, /parallelism 64 is above the limit of 8/],
  [
    'scrypt 512 MiB',
    `$scrypt$ln=19,r=8,p=1$${SALT}$${SUM32}`,
    /scrypt hash exceeds a supported limit: memory 128·N·r = 536870912 bytes is above the limit of 268435456/,
  ],
  ['scrypt p=8', `$scrypt$ln=16,r=8,p=8$${SALT}$${SUM32}`, /work N·r·p = 4194304 is above the limit of 2097152/],
  [
    'pbkdf2-sha256 3,000,000',
    `$pbkdf2-sha256$i=3000000$${SALT}$${SUM32}`,
    /pbkdf2-sha256 hash exceeds a supported limit: iterations × output blocks \(3000000 × 1\)/,
  ],
  ['pbkdf2-sha512 Django 2,000,001', `pbkdf2_sha512$2000001$salt$${Buffer.alloc(64, 3).toString('base64')}`, /\(2000001 × 1\) is above the limit of 2000000/],
  [
    'sha512-crypt 1,000,000 rounds',
    `$6$rounds=1000000$saltsalt$${SHA512_CRYPT_SUM}`,
    /sha512-crypt hash exceeds a supported limit: 1000000 rounds is above the limit of 700000/,
  ],
  ['bcrypt cost 16', '$2b$16$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC', /bcrypt hash exceeds a supported limit: cost 16 is above the limit of 15/],
];

/** The strongest settings mainstream libraries write, which must still import. */
const AT_THE_CAPS: [label: string, hash: string][] = [
  ['argon2id 256 MiB × 4, 8 lanes', `$argon2id$v=19$m=262144,t=4,p=8$${SALT}$${SUM32}`],
  ['scrypt 256 MiB', `$scrypt$ln=18,r=8,p=1$${SALT}$${SUM32}`],
  ['pbkdf2-sha512 64-byte key, 2,000,000', `$pbkdf2-sha512$i=2000000$${SALT}$${SUM64}`],
  ['sha512-crypt passlib default', `$6$rounds=656000$saltsalt$${SHA512_CRYPT_SUM}`],
  ['bcrypt cost 15', '$2b$15$c4WoMPo3SXsafkva.HHa6uXQZWr7oboPiC2bT/r7q1BB8I2s0BRqC'],
];

describe('POST /admin/v1/import: cost caps of imported password hashes', () => {
  const svc = useService();

  it('refuses each hash past a cap with a per-user error naming the parameter and the limit, and stores none of them', async () => {
    const orgId = unique('caps');
    const refused = PAST_THE_CAPS.map(([, hash], i) => humanUser(`${orgId}-past-${i}`, `past-${i}`, { hashedPassword: { value: hash } }));
    const accepted = AT_THE_CAPS.map(([, hash], i) => humanUser(`${orgId}-at-${i}`, `at-${i}`, { hashedPassword: { value: hash } }));
    const response = await postImport(svc, importBody([{ orgId, org: { name: orgId }, humanUsers: [...refused, ...accepted] }]));

    const errors = userErrors(response);
    for (const [i, [label, , message]] of PAST_THE_CAPS.entries()) {
      const error = errors.get(refused[i].userId);
      assert.ok(error, `${label}: refused`);
      assert.match(error, /user\.hashedPassword\.value: /, `${label}: names the field`);
      assert.match(error, message, label);
    }
    assert.equal(errors.size, PAST_THE_CAPS.length, `only the hashes past a cap are refused: ${[...errors.values()].join('; ')}`);
    assert.deepEqual(importedIds(response).sort(), accepted.map((u) => u.userId).sort());
    assert.deepEqual(await storedCounts(svc, orgId), { users: AT_THE_CAPS.length, events: AT_THE_CAPS.length });
    const ids = refused.map((u) => u.userId);
    const rows = await svc.dataSource.query(`SELECT id FROM users WHERE id IN (${ids.map(() => '?').join(',')})`, ids);
    assert.deepEqual(rows, [], 'no refused user was written');
  });
});
