import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import { PATCH_OP, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

/**
 * Concurrent SCIM writes, some of which fail, as a provisioning client's burst produces them. On
 * SQLite the writes queued together share one commit (UnitOfWork group commit): a failed one must
 * leave nothing behind and take nothing of the others with it; each answer must match what is stored.
 */
describe('SCIM concurrent writes with failures among them', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
  });

  const stored = async (sql: string, params: unknown[]) => Number((await svc.dataSource.query(sql, params))[0].n);

  it('creates: every 201 is stored with its event and contacts, every 409 left no row, event or count', async () => {
    const names = Array.from({ length: 20 }, () => unique('burst'));
    // Each of the first ten names twice: one of each pair wins, the other is a uniqueness conflict.
    const bodies = [...names, ...names.slice(0, 10)].map((name) => userBody(`${name}@example.com`));
    const answers = await Promise.all(bodies.map((body) => t.scim('POST', '/Users', { body })));
    assert.equal(answers.filter((r) => r.status === 201).length, 20, answers.map((r) => r.status).join(','));
    assert.equal(answers.filter((r) => r.status === 409).length, 10);
    const ids = answers.filter((r) => r.status === 201).map((r) => r.body.id as string);
    const marks = ids.map(() => '?').join(', ');
    assert.equal(await stored(`SELECT COUNT(*) AS n FROM users WHERE org_id = ? AND user_name LIKE 'burst-%'`, [t.orgId]), 20);
    assert.equal(await stored(`SELECT COUNT(*) AS n FROM users WHERE id IN (${marks})`, ids), 20);
    assert.equal(await stored(`SELECT COUNT(*) AS n FROM events WHERE resource_owner = ? AND type = 'user.human.added'`, [t.orgId]), 20);
    assert.equal(await stored(`SELECT COUNT(*) AS n FROM events WHERE type = 'user.human.added' AND aggregate_id IN (${marks})`, ids), 20);
    assert.equal(await stored(`SELECT COUNT(*) AS n FROM user_contacts WHERE org_id = ?`, [t.orgId]), 20);
    assert.equal((await t.scim('GET', '/Users?count=0')).body.totalResults, 20);
    for (const answer of answers.filter((r) => r.status === 201)) {
      const read = await t.scim('GET', `/Users/${answer.body.id}`);
      assert.equal(read.status, 200);
      assert.equal(read.body.userName, answer.body.userName);
    }
  });

  it('create → PATCH → DELETE cycles from 8 clients at once never fail (MySQL deadlocks are retried) and leave nothing behind', async () => {
    const failures: string[] = [];
    const before = await stored('SELECT COUNT(*) AS n FROM users WHERE org_id = ?', [t.orgId]);
    const listed = (await t.scim('GET', '/Users?count=0')).body.totalResults;
    const client = async () => {
      for (let i = 0; i < 15; i++) {
        const created = await t.scim('POST', '/Users', { body: userBody(`${unique('cycle')}@example.com`) });
        if (created.status !== 201) {
          failures.push(`create ${created.status}`);
          continue;
        }
        const patched = await t.scim('PATCH', `/Users/${created.body.id}`, {
          body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] },
        });
        if (patched.status !== 204) failures.push(`patch ${patched.status}`);
        const removed = await t.scim('DELETE', `/Users/${created.body.id}`);
        if (removed.status !== 204) failures.push(`delete ${removed.status}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    assert.deepEqual(failures, []);
    assert.equal(await stored('SELECT COUNT(*) AS n FROM users WHERE org_id = ?', [t.orgId]), before);
    assert.equal(await stored(`SELECT COUNT(*) AS n FROM users WHERE org_id = ? AND user_name LIKE 'cycle-%'`, [t.orgId]), 0);
    assert.equal((await t.scim('GET', '/Users?count=0')).body.totalResults, listed);
  });

  it('PATCH and DELETE: unknown users answer 404 while the others in the burst are stored with their events', async () => {
    const created = await Promise.all(Array.from({ length: 6 }, () => t.scim('POST', '/Users', { body: userBody(`${unique('patched')}@example.com`) })));
    const ids = created.map((r) => r.body.id as string);
    const deactivate = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] };
    const missing = '01900000-0000-7000-8000-000000000000';
    const answers = await Promise.all([
      ...ids.slice(0, 4).map((id) => t.scim('PATCH', `/Users/${id}`, { body: deactivate })),
      t.scim('PATCH', `/Users/${missing}`, { body: deactivate }),
      ...ids.slice(4).map((id) => t.scim('DELETE', `/Users/${id}`)),
      t.scim('DELETE', `/Users/${missing}`),
    ]);
    assert.deepEqual(
      answers.map((r) => r.status),
      [204, 204, 204, 204, 404, 204, 204, 404],
    );
    for (const id of ids.slice(0, 4)) assert.equal((await t.scim('GET', `/Users/${id}`)).body.active, false);
    for (const id of ids.slice(4)) assert.equal((await t.scim('GET', `/Users/${id}`)).status, 404);
    const marks = ids.map(() => '?').join(', ');
    assert.equal(await stored(`SELECT COUNT(*) AS n FROM events WHERE type = 'user.deactivated' AND aggregate_id IN (${marks})`, ids), 4);
    assert.equal(await stored(`SELECT COUNT(*) AS n FROM events WHERE type = 'user.removed' AND aggregate_id IN (${marks})`, ids), 2);
    assert.equal(await stored(`SELECT COUNT(*) AS n FROM events WHERE aggregate_id = ?`, [missing]), 0);
  });
});
