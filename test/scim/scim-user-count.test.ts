import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OrgUserCounts1763700400000 } from '../../src/common/database/migrations/1763700400000-org-user-counts.js';
import { UserOrderVersions1763702000000 } from '../../src/common/database/migrations/1763702000000-user-order-versions.js';
import { humanUser, importBody, postImport } from '../import/import.helpers.js';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { PATCH_OP, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';

/**
 * An unfiltered list's `totalResults` comes from the organization's kept count of human users, a
 * filtered one from counting rows. Both must agree with the users actually stored after every kind
 * of write: SCIM, Bulk, the management API, import, removal, machine users and another organization.
 */
describe('SCIM totalResults: the kept per-organization user count', () => {
  const svc = useService();
  let t: ScimTenant;
  let other: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
    other = await scimTenant(svc);
  });

  /** `count=0` never reveals the total, so the unfiltered list must read the kept count. */
  async function totals(tenant: ScimTenant): Promise<{ kept: number; counted: number; stored: number }> {
    const kept = await tenant.scim('GET', '/Users?count=0');
    const counted = await tenant.scim('GET', `/Users?count=0&filter=${encodeURIComponent('userName pr')}`);
    assert.equal(kept.status, 200, kept.text);
    assert.equal(counted.status, 200, counted.text);
    const [row] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM users WHERE org_id = ? AND type = 'human'`, [tenant.orgId]);
    return { kept: kept.body.totalResults, counted: counted.body.totalResults, stored: Number(row.n) };
  }

  async function assertTotal(tenant: ScimTenant, expected: number): Promise<void> {
    assert.deepEqual(await totals(tenant), { kept: expected, counted: expected, stored: expected });
  }

  it('follows every path that adds or removes users, and only in its own organization', async () => {
    await assertTotal(t, 0);
    const created = await createUser(t, userBody(unique('scim')));
    await createUser(t, userBody(unique('inactive'), { active: false }));
    await assertTotal(t, 2);

    // A refused duplicate and a machine user change nothing.
    const duplicate = await t.scim('POST', '/Users', { body: userBody(created.userName) });
    assert.equal(duplicate.status, 409, duplicate.text);
    const machine = await svc.api('POST', `/management/v1/orgs/${t.orgId}/users/machine`, {
      token: svc.adminToken,
      body: { userName: unique('robot'), name: 'robot' },
    });
    assert.equal(machine.status, 201, machine.text);
    await assertTotal(t, 2);

    const human = await svc.api('POST', `/management/v1/orgs/${t.orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName: unique('mgmt'), profile: { firstName: 'Ada', lastName: 'Lovelace' }, email: { email: `${unique('ada')}@example.com` } },
    });
    assert.equal(human.status, 201, human.text);
    await assertTotal(t, 3);

    const bulk = await t.scim('POST', '/Bulk', {
      body: {
        schemas: [BULK],
        Operations: [
          { method: 'POST', path: '/Users', bulkId: 'a', data: userBody(unique('bulk-a')) },
          { method: 'POST', path: '/Users', bulkId: 'b', data: userBody(unique('bulk-b')) },
          { method: 'PATCH', path: '/Users/bulkId:a', data: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] } },
          { method: 'DELETE', path: '/Users/bulkId:b' },
        ],
      },
    });
    assert.equal(bulk.status, 200, bulk.text);
    assert.deepEqual(
      bulk.body.Operations.map((o: any) => o.status),
      ['201', '201', '204', '204'],
    );
    await assertTotal(t, 4);

    const imported = await postImport(
      svc,
      importBody([{ orgId: t.orgId, humanUsers: [humanUser(unique('i')), humanUser(unique('i')), humanUser(unique('i'))] }]),
    );
    assert.equal(imported.success.orgs[0].humanUserIds.length, 3, JSON.stringify(imported.errors));
    await assertTotal(t, 7);

    // Removal; a second removal of the same user is a 404 that must not count twice.
    assert.equal((await t.scim('DELETE', `/Users/${created.id}`)).status, 204);
    assert.equal((await t.scim('DELETE', `/Users/${created.id}`)).status, 404);
    await assertTotal(t, 6);

    // A new organization through import starts from its own users only; the other tenant saw none of this.
    const newOrg = unique('imported-org');
    const importedOrg = await postImport(
      svc,
      importBody([{ orgId: newOrg, org: { name: newOrg }, humanUsers: [humanUser(unique('j')), humanUser(unique('j'))] }]),
    );
    assert.deepEqual(importedOrg.errors, []);
    const [row] = await svc.dataSource.query('SELECT humans FROM org_user_counts WHERE org_id = ?', [newOrg]);
    assert.equal(Number(row.humans), 2);
    await assertTotal(other, 0);
  });

  it('stays exact under concurrent creates, duplicates and removals of the same user', async () => {
    const before = (await totals(other)).stored;
    const names = Array.from({ length: 16 }, () => unique('concurrent'));
    const creates = await Promise.all(names.map((name) => other.scim('POST', '/Users', { body: userBody(name) })));
    assert.deepEqual(
      creates.map((r) => r.status),
      names.map(() => 201),
    );
    // The same userName eight times at once: one user, one count.
    const same = unique('same');
    const racing = await Promise.all(Array.from({ length: 8 }, () => other.scim('POST', '/Users', { body: userBody(same) })));
    assert.deepEqual(racing.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
    await assertTotal(other, before + 17);

    const victim = creates[0].body.id;
    const removals = await Promise.all([
      ...Array.from({ length: 4 }, () => other.scim('DELETE', `/Users/${victim}`)),
      ...creates.slice(1, 5).map((r) => other.scim('DELETE', `/Users/${r.body.id}`)),
    ]);
    // Racing removals of one user may each answer 204 or 404 (MySQL lets both read it), but it counts once.
    assert.ok(
      removals.every((r) => r.status === 204 || r.status === 404),
      removals.map((r) => r.text).join('\n'),
    );
    assert.deepEqual(
      removals.slice(4).map((r) => r.status),
      [204, 204, 204, 204],
    );
    await assertTotal(other, before + 12);
  });

  it('is filled from the stored users when the migration runs on an existing database', async () => {
    const expected = await Promise.all([totals(t), totals(other)]);
    const runner = svc.dataSource.createQueryRunner();
    try {
      // The later migration that adds a column to the table goes down first and up again after it.
      const [counts, orderVersions] = [new OrgUserCounts1763700400000(), new UserOrderVersions1763702000000()];
      await orderVersions.down(runner);
      await counts.down(runner);
      await counts.up(runner);
      await orderVersions.up(runner);
    } finally {
      await runner.release();
    }
    assert.deepEqual(await Promise.all([totals(t), totals(other)]), expected);
    assert.ok(expected[0].kept > 0 && expected[1].kept > 0);
  });

  it('answers 404 without a count for users of an organization that does not exist', async () => {
    const org = await createOrg(svc);
    const missing = `${org.id.slice(0, -4)}ffff`;
    const res = await svc.api('POST', `/management/v1/orgs/${missing}/users/human`, {
      token: svc.adminToken,
      body: { userName: unique('ghost'), profile: { firstName: 'G', lastName: 'H' }, email: { email: `${unique('ghost')}@example.com` } },
    });
    assert.equal(res.status, 404, res.text);
    const [row] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM org_user_counts WHERE org_id = ?', [missing]);
    assert.equal(Number(row.n), 0);
  });
});
