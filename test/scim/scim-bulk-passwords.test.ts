import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { passwordHashing } from '../../src/common/crypto/password-hashes/expensive-verifications.js';
import { unique, useService } from '../support/fixtures.js';
import { PATCH_OP, assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
/** ServiceProviderConfig's bulk.maxOperations. */
const MAX_OPERATIONS = 100;
/** How many new passwords are hashed at once, and how many may wait (expensive-verifications.ts). */
const POOL_CAPACITY = passwordHashing.limits.atOnce + passwordHashing.limits.maxWaiting;

/**
 * A Bulk request may set as many passwords as it has operations (RFC 7644 §3.7 and the
 * advertised maxOperations; the spec's minimal user carries a password). The hashing cost is bounded by the
 * process's pool for new passwords instead (SECURITY.md, "What we defend": "Checks are atomic"): requests queue for it, and once
 * its queue is full an operation that needs a hash is answered 503 with Retry-After, nothing written.
 */
describe('SCIM /Bulk: passwords are hashed in the bounded pool, not refused per request', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
  });

  const bulk = (Operations: unknown[]) => t.scim('POST', '/Bulk', { body: { schemas: [BULK], Operations } });
  const hashOf = async (id: string) => ((await svc.dataSource.query('SELECT password_hash AS h FROM users WHERE id = ?', [id])) as { h: string | null }[])[0].h;
  const create = (i: number, password?: string) => ({
    method: 'POST',
    path: '/Users',
    bulkId: `u${i}`,
    data: userBody(unique(`bulk${i}`), password ? { password } : {}),
  });

  /** Runs `work` while every slot and every place in the queue of the password pool is taken. */
  async function withPoolFull<T>(work: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The waiters give up after the pool's longest wait; only their places in the queue matter here.
    const holders = Array.from({ length: POOL_CAPACITY }, () => passwordHashing.run(() => gate).catch(() => undefined));
    try {
      return await work();
    } finally {
      release();
      await Promise.all(holders);
    }
  }

  it(`${MAX_OPERATIONS} creations that each set a password: every one is created with its hash`, async () => {
    const res = await bulk(Array.from({ length: MAX_OPERATIONS }, (_, i) => create(i, 'Bulk-Passw0rd!')));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.Operations.length, MAX_OPERATIONS);
    assert.deepEqual(new Set(res.body.Operations.map((o: { status: string }) => o.status)), new Set(['201']));
    const ids = res.body.Operations.map((o: { location: string }) => o.location.split('/').pop()!);
    for (const id of ids) assert.match((await hashOf(id)) ?? '', /^\$2[aby]\$/, 'a bcrypt hash');
  });

  it('with the pool full, an operation that sets a password gets 503 and Retry-After; the others run', async () => {
    const target = await createUser(t, userBody(unique('target'), { password: 'Original-Passw0rd!' }));
    const before = await hashOf(target.id);
    const res = await withPoolFull(() =>
      bulk([
        create(1, 'Bulk-Passw0rd!'),
        {
          method: 'PATCH',
          path: `/Users/${target.id}`,
          data: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'password', value: 'New-Passw0rd-1!' }] },
        },
        create(2),
      ]),
    );
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.Operations.map((o: { status: string }) => o.status),
      ['503', '503', '201'],
    );
    assert.equal(res.headers.get('retry-after'), '5');
    assert.equal(await hashOf(target.id), before, 'the password did not change');
  });

  it('a single POST /Users with a password gets 503 with Retry-After while the pool is full, and creates nothing', async () => {
    const userName = unique('busy');
    const res = await withPoolFull(() => t.scim('POST', '/Users', { body: userBody(userName, { password: 'Busy-Passw0rd!' }) }));
    assertScimError(res, 503);
    assert.equal(res.headers.get('retry-after'), '5');
    const found = await t.scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    assert.equal(found.body.totalResults, 0);
  });
});
