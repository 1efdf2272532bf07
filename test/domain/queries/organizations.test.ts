import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { organizationExists } from '../../../src/users/queries/organizations.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

describe('users queries: organizations', () => {
  let db: QueryDatabase;

  before(async () => {
    db = await openQueryDatabase();
  });
  after(() => db?.close());

  it('organizationExists answers for the id, exactly', async () => {
    const org = await db.org();
    assert.equal(await organizationExists(db.dataSource, org.id), true);
    assert.equal(await organizationExists(db.dataSource, org.id.toUpperCase()), false);
    assert.equal(await organizationExists(db.dataSource, 'nobody'), false);
  });
});
