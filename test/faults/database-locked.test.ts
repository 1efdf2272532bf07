import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { countRows, useService } from '../support/fixtures.js';

/**
 * Another process holds SQLite's write lock (a backup, a stuck migration): writes fail fast with 503
 * and Retry-After, reads go on, and the service recovers by itself once the lock is released.
 */
describe('faults: SQLite file locked', () => {
  const svc = useService({ SQLITE_BUSY_TIMEOUT_MS: '200' });

  it('answers 503 with Retry-After while locked and recovers without a restart', async (t) => {
    if (svc.config.database.type !== 'sqlite') return t.skip('SQLite only');
    const intruder = new Database(svc.config.database.path);
    const before = await countRows(svc, 'organizations');
    intruder.exec('BEGIN IMMEDIATE');
    try {
      const res = await svc.api('POST', '/admin/v1/orgs', { token: svc.adminToken, body: { name: 'during-lock' } });
      assert.equal(res.status, 503, res.text);
      assert.equal(res.headers.get('retry-after'), '5');
      assert.deepEqual(res.body, { code: 503, message: 'the database is unavailable; retry shortly', details: [] });
      // The SCIM surface answers the same outage in its own envelope, with the same header.
      const orgId = (await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken })).body.orgs[0].id;
      const scim = await svc.api('POST', `/scim/v2/${orgId}/Users`, {
        token: svc.adminToken,
        headers: { 'content-type': 'application/scim+json' },
        body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'during-lock', name: { givenName: 'D', familyName: 'L' } },
      });
      assert.equal(scim.status, 503, scim.text);
      assert.equal(scim.headers.get('retry-after'), '5');
      assert.equal(scim.body.status, '503');
      // Readers are not blocked in WAL mode.
      assert.equal((await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken })).status, 200);
    } finally {
      intruder.exec('ROLLBACK');
      intruder.close();
    }
    assert.equal(await countRows(svc, 'organizations'), before);
    const after = await svc.api('POST', '/admin/v1/orgs', { token: svc.adminToken, body: { name: 'after-lock' } });
    assert.equal(after.status, 201, after.text);
  });
});
