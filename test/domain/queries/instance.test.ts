import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { instanceSettings, lockInstanceRow, scimInstanceSettings } from '../../../src/users/queries/instance.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

describe('users queries: the instance row', () => {
  let db: QueryDatabase;

  before(async () => {
    db = await openQueryDatabase();
  });
  after(() => db?.close());

  it('before bootstrap: no settings, and SCIM refuses to guess them', async () => {
    await assert.rejects(scimInstanceSettings(db.dataSource), /not bootstrapped/);
    assert.equal(await instanceSettings(db.dataSource.manager), null);
  });

  it('reads the settings, and takes the row lock inside a transaction', async () => {
    await db.instance({ defaultLanguage: 'de', passwordMinLength: 12, accessTokenLifetime: 600, idTokenLifetime: 900 });
    assert.deepEqual(await scimInstanceSettings(db.dataSource), { defaultLanguage: 'de', passwordMinLength: 12 });
    await db.dataSource.transaction(async (manager) => {
      await lockInstanceRow(manager);
      const settings = await instanceSettings(manager);
      assert.equal(settings?.accessTokenLifetime, 600);
      assert.equal(settings?.idTokenLifetime, 900);
    });
  });
});
