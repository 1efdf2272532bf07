import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UserSearch1763701900000 } from '../../../src/common/database/migrations/1763701900000-user-search.js';
import type { OrganizationEntity } from '../../../src/users/entities/organization.entity.js';
import { listUsers, userListStatements } from '../../../src/users/queries/user-directory.js';
import { searchText } from '../../../src/users/rules/user-search.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

describe('users queries: the management API user list and search', () => {
  let db: QueryDatabase;
  let org: OrganizationEntity;
  const sqlite = () => db.dataSource.options.type === 'better-sqlite3';

  before(async () => {
    db = await openQueryDatabase();
    org = await db.org();
    const human = (userName: string, givenName: string, familyName: string, email: string) =>
      db.user(org, {
        userName,
        givenName,
        familyName,
        displayName: `${givenName} ${familyName}`,
        email,
        searchText: searchText({ userName, givenName, familyName, email }),
      });
    await human('sisyphus', 'ΣΊΣΥΦΟΣ', 'Corinth', 's@example.com');
    await human('ada', 'Ada', 'Lovelace', 'ada@example.com');
    await human('Bob', 'Bob', 'Ärger', 'bob@x.example');
    await db.user(await db.org(), { userName: 'ada-elsewhere', searchText: searchText({ userName: 'ada-elsewhere' }) });
  });
  after(() => db?.close());

  const search = async (query: string | undefined, limit = 10, offset = 0) => {
    const { rows, total } = await listUsers(db.dataSource.manager, org.id, { query, limit, offset });
    return { names: rows.map((r) => r.user_name), total };
  };

  it('lists the organization in user-name order; pages tell the total', async () => {
    assert.deepEqual(await search(undefined), { names: ['ada', 'Bob', 'sisyphus'], total: 3 });
    assert.deepEqual(await search(undefined, 2), { names: ['ada', 'Bob'], total: 3 });
    assert.deepEqual(await search(undefined, 2, 2), { names: ['sisyphus'], total: 3 });
    assert.deepEqual(await search(undefined, 2, 5), { names: [], total: 3 });
  });

  it('matches substrings of any field, folded by the service rule, never across fields', async () => {
    assert.deepEqual((await search('σίσυφοσ')).names, ['sisyphus'], 'final sigma');
    assert.deepEqual((await search('ΣΊΣ')).names, ['sisyphus']);
    assert.deepEqual((await search('ärg')).names, ['Bob']);
    assert.deepEqual((await search('X.EXAMPLE')).names, ['Bob']);
    assert.deepEqual((await search('love')).names, ['ada']);
    assert.deepEqual((await search('ada')).total, 1, 'not the other organization');
    assert.deepEqual((await search('lovelace\nada')).names, [], 'the field separator');
    assert.deepEqual((await search('_')).names, [], '_ is literal');
  });

  it('a search reads the search index, in its order, without a sort; the count reads only the index', async () => {
    const statements = userListStatements(sqlite() ? 'sqlite' : 'mysql', org.id, { query: 'ada', limit: 10, offset: 0 });
    if (sqlite()) {
      const plan = async (s: { sql: string; params: unknown[] }) =>
        (await db.dataSource.query(`EXPLAIN QUERY PLAN ${s.sql}`, s.params)).map((r: { detail: string }) => r.detail).join('; ');
      const page = await plan(statements.page);
      assert.match(page, /USING INDEX ix_users_org_search \(org_id=\?\)/, page);
      assert.doesNotMatch(page, /TEMP B-TREE|SCAN/, page);
      assert.match(await plan(statements.count), /USING COVERING INDEX ix_users_org_search/);
    } else {
      const plan: { key: string | null; Extra: string | null }[] = await db.dataSource.query(`EXPLAIN ${statements.page.sql}`, statements.page.params);
      const inner = plan.find((r) => r.key === 'ix_users_org_search');
      assert.ok(inner, JSON.stringify(plan));
      assert.match(inner.Extra ?? '', /Using index/, 'the page ids come from the index alone');
    }
  });

  it('the migration fills the search text of existing users (down, then up again)', async () => {
    const migration = new UserSearch1763701900000();
    const runner = db.dataSource.createQueryRunner();
    try {
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const [row] = await db.dataSource.query('SELECT search_text FROM users WHERE user_name = ?', ['Bob']);
    assert.equal(row.search_text, 'bob\nbob@x.example\nbob\närger');
    assert.deepEqual((await search('ärger')).names, ['Bob']);
  });
});
