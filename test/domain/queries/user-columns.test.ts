import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UserContactEntity } from '../../../src/users/entities/user-contact.entity.js';
import { UserEntity } from '../../../src/users/entities/user.entity.js';
import { CONTACT_COLUMNS, CONTACT_TABLE, USER_COLUMNS, USER_TABLE } from '../../../src/users/queries/user-columns.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

/** The names other modules' SQL fragments use (the SCIM filter compiler) are the migrated schema's. */
describe('users queries: table and column names', () => {
  let db: QueryDatabase;

  before(async () => {
    db = await openQueryDatabase();
  });
  after(() => db?.close());

  async function columnsOf(table: string): Promise<Set<string>> {
    const runner = db.dataSource.createQueryRunner();
    try {
      const found = await runner.getTable(table);
      assert.ok(found, `table ${table} exists`);
      return new Set(found.columns.map((c) => c.name));
    } finally {
      await runner.release();
    }
  }

  it('USER_COLUMNS name columns of the users table, as the entity maps them', async () => {
    assert.equal(db.dataSource.getMetadata(UserEntity).tableName, USER_TABLE);
    const columns = await columnsOf(USER_TABLE);
    for (const column of Object.values(USER_COLUMNS)) assert.ok(columns.has(column), `users.${column}`);
  });

  it('CONTACT_COLUMNS name columns of the contacts table', async () => {
    assert.equal(db.dataSource.getMetadata(UserContactEntity).tableName, CONTACT_TABLE);
    const columns = await columnsOf(CONTACT_TABLE);
    for (const column of Object.values(CONTACT_COLUMNS)) assert.ok(columns.has(column), `${CONTACT_TABLE}.${column}`);
  });
});
