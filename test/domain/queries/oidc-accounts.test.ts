import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accountRow, organizationOfUser, tokenUserJoin, tokenUserRow } from '../../../src/users/queries/oidc-accounts.js';
import type { OrganizationEntity } from '../../../src/users/entities/organization.entity.js';
import type { UserEntity } from '../../../src/users/entities/user.entity.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

describe('users queries: OIDC accounts and token users', () => {
  let db: QueryDatabase;
  let org: OrganizationEntity;
  let ada: UserEntity;

  before(async () => {
    db = await openQueryDatabase();
    org = await db.org();
    ada = await db.user(org, {
      userName: 'Ada',
      givenName: 'Ada',
      familyName: 'Lovelace',
      email: 'ada@example.test',
      emailVerified: true,
      scimAttributes: { addresses: [] },
    });
  });
  after(() => db?.close());

  it('accountRow reads the claim columns, the state and the organization domain', async () => {
    const row = await accountRow(db.dataSource, ada.id);
    assert.ok(row);
    assert.equal(row.id, ada.id);
    assert.equal(row.org_id, org.id);
    assert.equal(row.state, 'active');
    assert.equal(row.user_name, 'Ada');
    assert.equal(row.given_name, 'Ada');
    assert.equal(row.family_name, 'Lovelace');
    assert.equal(row.email, 'ada@example.test');
    assert.equal(Number(row.email_verified), 1);
    assert.equal(row.primary_domain, org.primaryDomain);
    assert.ok(row.scim_attributes);
    assert.equal(await accountRow(db.dataSource, 'nobody'), undefined);
  });

  it('tokenUserRow reads state, user name and domain; none for an unknown id', async () => {
    const locked = await db.user(org, { state: 'locked' });
    assert.deepEqual({ ...(await tokenUserRow(db.dataSource, ada.id)) }, { state: 'active', user_name: 'Ada', primary_domain: org.primaryDomain });
    assert.equal((await tokenUserRow(db.dataSource, locked.id))?.state, 'locked');
    assert.equal(await tokenUserRow(db.dataSource, 'nobody'), undefined);
  });

  it('tokenUserJoin joins the same columns onto another statement by an id expression', async () => {
    const user = tokenUserJoin('t.user_id');
    const sql = `SELECT t.user_id, ${user.columns} FROM (SELECT ? AS user_id UNION ALL SELECT ?) t ${user.joins} ORDER BY t.user_id`;
    const rows: Record<string, unknown>[] = await db.dataSource.query(sql, [ada.id, 'zz-nobody']);
    assert.deepEqual(
      rows.map((r) => ({ ...r })),
      [
        { user_id: ada.id, user_state: 'active', user_name: 'Ada', primary_domain: org.primaryDomain },
        { user_id: 'zz-nobody', user_state: null, user_name: null, primary_domain: null },
      ],
    );
  });

  it('organizationOfUser names the organization, inside a transaction', async () => {
    await db.dataSource.transaction(async (manager) => {
      assert.equal(await organizationOfUser(manager, ada.id), org.id);
      assert.equal(await organizationOfUser(manager, 'nobody'), undefined);
    });
  });
});
