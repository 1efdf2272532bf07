import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applicationKeyByClientId, machineUserKey, userById, userByIdOrFail } from '../../../src/users/queries/grant-parties.js';
import type { OrganizationEntity } from '../../../src/users/entities/organization.entity.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

describe('users queries: parties of the OIDC grants', () => {
  let db: QueryDatabase;
  let org: OrganizationEntity;

  before(async () => {
    db = await openQueryDatabase();
    org = await db.org();
  });
  after(() => db?.close());

  it("machineUserKey: the machine user's own key of that id only", async () => {
    const machine = await db.user(org, { type: 'machine' });
    const other = await db.user(org, { type: 'machine' });
    const key = await db.publicKey({ ownerType: 'machine', ownerId: machine.id, orgId: org.id, publicKey: 'PEM-M' });
    assert.equal((await machineUserKey(db.dataSource, machine.id, key.id))?.publicKey, 'PEM-M');
    assert.equal(await machineUserKey(db.dataSource, other.id, key.id), null);
    const appKey = await db.publicKey({ ownerType: 'application', ownerId: machine.id, orgId: org.id });
    assert.equal(await machineUserKey(db.dataSource, machine.id, appKey.id), null);
  });

  it('applicationKeyByClientId: the key of the application of that client id', async () => {
    const app = await db.application(org);
    const key = await db.publicKey({ ownerType: 'application', ownerId: app.id, orgId: org.id, publicKey: 'PEM-A' });
    assert.equal((await applicationKeyByClientId(db.dataSource, app.clientId, key.id))?.publicKey, 'PEM-A');
    assert.equal(await applicationKeyByClientId(db.dataSource, 'unknown-client', key.id), null);
    assert.equal(await applicationKeyByClientId(db.dataSource, app.clientId, 'unknown-kid'), null);
  });

  it('userById and userByIdOrFail', async () => {
    const user = await db.user(org);
    assert.equal((await userById(db.dataSource, user.id))?.orgId, org.id);
    assert.equal(await userById(db.dataSource, 'nobody'), null);
    await db.dataSource.transaction(async (manager) => {
      assert.equal((await userByIdOrFail(manager, user.id)).userName, user.userName);
      await assert.rejects(userByIdOrFail(manager, 'nobody'));
    });
  });
});
