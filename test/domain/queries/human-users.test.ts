import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countUsersWhere, humanUserPage, humanUserRow } from '../../../src/users/queries/human-users.js';
import { statementsOf } from '../../../src/common/database/statements.js';
import type { HumanUserQuery } from '../../../src/users/queries/human-users.js';
import type { OrganizationEntity } from '../../../src/users/entities/organization.entity.js';
import type { UserEntity } from '../../../src/users/entities/user.entity.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

describe('users queries: human users of an organization (SCIM lists)', () => {
  let db: QueryDatabase;
  let org: OrganizationEntity;
  let humans: UserEntity[];

  before(async () => {
    db = await openQueryDatabase();
    org = await db.org();
    humans = [];
    for (const name of ['dora', 'bob', 'eve', 'alice', 'carl'])
      humans.push(await db.user(org, { userName: name, familyName: name === 'eve' ? 'Smith' : null }));
    await db.user(org, { type: 'machine', userName: 'aaa-machine' });
    await db.user(await db.org(), { userName: 'aaa-elsewhere' });
  });
  after(() => db?.close());

  const byName = (orgId: string, extra = ''): HumanUserQuery => ({
    where: `u.org_id = :orgId AND u.type = 'human'${extra}`,
    params: { orgId },
    order: 'u.user_name_lower ASC, u.id ASC',
  });

  it('humanUserRow: the human of that organization only', async () => {
    const row = await humanUserRow(db.dataSource.manager, org.id, humans[0].id);
    assert.equal(row?.user_name, 'dora');
    assert.equal(row?.org_id, org.id);
    assert.equal(await humanUserRow(db.dataSource.manager, 'other-org', humans[0].id), undefined);
    const machine = await db.user(org, { type: 'machine' });
    assert.equal(await humanUserRow(db.dataSource.manager, org.id, machine.id), undefined);
  });

  it('humanUserPage: pages in order from the first row and deeper (deferred join), with every column', async () => {
    const names = async (limit: number, offset: number) =>
      (await humanUserPage(statementsOf(db.dataSource), byName(org.id), limit, offset)).map((r) => r.user_name);
    assert.deepEqual(await names(2, 0), ['alice', 'bob']);
    assert.deepEqual(await names(2, 2), ['carl', 'dora']);
    assert.deepEqual(await names(10, 4), ['eve']);
    assert.deepEqual(await names(10, 5), []);
  });

  it('a fragment parameter without a value is refused, not bound as null', async () => {
    await assert.rejects(
      humanUserPage(statementsOf(db.dataSource), byName(org.id, ' AND u.family_name = :family'), 10, 0),
      /no value for SQL parameter :family/,
    );
    const withValue = { ...byName(org.id, ' AND u.family_name = :family'), params: { orgId: org.id, family: 'Smith' } };
    assert.deepEqual(
      (await humanUserPage(statementsOf(db.dataSource), withValue, 10, 0)).map((r) => r.user_name),
      ['eve'],
    );
  });

  it('countUsersWhere counts what the fragment matches', async () => {
    const { where, params } = byName(org.id);
    assert.equal(await countUsersWhere(statementsOf(db.dataSource), where, params), 5);
    assert.equal(await countUsersWhere(statementsOf(db.dataSource), `${where} AND u.user_name_lower < :before`, { ...params, before: 'c' }), 2);
  });
});
