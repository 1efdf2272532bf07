import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loginUsersByDomainOrName, loginUsersByName } from '../../../src/users/queries/login-users.js';
import type { OrganizationEntity } from '../../../src/users/entities/organization.entity.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

describe('users queries: login names', () => {
  let db: QueryDatabase;
  let home: OrganizationEntity;
  let other: OrganizationEntity;

  before(async () => {
    db = await openQueryDatabase();
    home = await db.org({ name: 'default' });
    other = await db.org();
  });
  after(() => db?.close());

  it('by name: every user of that lower-cased name, the default organization first, at most two', async () => {
    const elsewhere = await db.user(other, { userName: 'Sam', passwordHash: '$2b$04$x', failedPasswordChecks: 2 });
    const inDefault = await db.user(home, { userName: 'sam' });
    await db.user(await db.org(), { userName: 'SAM' });
    const rows = await loginUsersByName(db.dataSource, 'sam');
    assert.equal(rows.length, 2);
    assert.equal(rows[0].id, inDefault.id);
    assert.equal(Number(rows[0].in_default), 1);
    assert.equal(rows[0].via, 'name');
    assert.equal(rows[0].primary_domain, home.primaryDomain);
    const row = (await loginUsersByDomainOrName(db.dataSource, 'sam', other.primaryDomain, `sam@${other.primaryDomain}`)).find((r) => r.via === 'domain');
    assert.equal(row?.id, elsewhere.id);
    assert.equal(row?.password_hash, '$2b$04$x');
    assert.equal(Number(row?.failed_password_checks), 2);
    assert.equal(Number(row?.version), 1);
    assert.deepEqual(await loginUsersByName(db.dataSource, 'nobody'), []);
  });

  it('by domain: the organization with its user, a null user when it has none, and users named x@y', async () => {
    const kim = await db.user(other, { userName: 'kim' });
    const found = await loginUsersByDomainOrName(db.dataSource, 'kim', other.primaryDomain, `kim@${other.primaryDomain}`);
    assert.deepEqual(
      found.map((r) => [r.via, r.id, r.user_name]),
      [['domain', kim.id, 'kim']],
    );
    const missing = await loginUsersByDomainOrName(db.dataSource, 'lee', other.primaryDomain, `lee@${other.primaryDomain}`);
    assert.deepEqual(
      missing.map((r) => [r.via, r.id]),
      [['domain', null]],
    );
    const odd = await db.user(home, { userName: 'x@nowhere.test' });
    const byName = await loginUsersByDomainOrName(db.dataSource, 'x', 'nowhere.test', 'x@nowhere.test');
    assert.deepEqual(
      byName.map((r) => [r.via, r.id]),
      [['name', odd.id]],
    );
  });
});
