import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applicationKeyRows, clientRows } from '../../../src/users/queries/oidc-clients.js';
import type { OrganizationEntity } from '../../../src/users/entities/organization.entity.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

describe('users queries: OIDC clients', () => {
  let db: QueryDatabase;
  let org: OrganizationEntity;

  before(async () => {
    db = await openQueryDatabase();
    org = await db.org();
  });
  after(() => db?.close());

  it('an application by client id, with its registration columns', async () => {
    const app = await db.application(org, {
      clientSecretHash: 'hash-1',
      authMethod: 'private_key_jwt',
      apiAccess: true,
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    const rows = await clientRows(db.dataSource, app.clientId);
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.equal(row.src, 'app');
    assert.equal(row.id, app.id);
    assert.equal(row.org_id, org.id);
    assert.equal(row.project_id, app.projectId);
    assert.equal(row.client_id, app.clientId);
    assert.equal(row.secret, 'hash-1');
    assert.equal(row.auth_method, 'private_key_jwt');
    assert.equal(row.kind, 'oidc');
    assert.equal(Number(row.api_access), 1);
    assert.deepEqual(typeof row.grant_types === 'string' ? JSON.parse(row.grant_types) : row.grant_types, ['authorization_code', 'refresh_token']);
  });

  it('an active machine user by id, with its secret; a locked one or an unknown id is no client', async () => {
    const machine = await db.user(org, { type: 'machine', accessTokenType: 'jwt' });
    await db.machineSecret(machine.id, 'secret-hash');
    const [row] = await clientRows(db.dataSource, machine.id);
    assert.equal(row.src, 'machine');
    assert.equal(row.client_id, machine.id);
    assert.equal(row.name, machine.userName);
    assert.equal(row.secret, 'secret-hash');
    assert.equal(row.access_token_type, 'jwt');
    const noSecret = await db.user(org, { type: 'machine' });
    assert.equal((await clientRows(db.dataSource, noSecret.id))[0].secret, null);
    const locked = await db.user(org, { type: 'machine', state: 'locked' });
    assert.deepEqual(await clientRows(db.dataSource, locked.id), []);
    const human = await db.user(org);
    assert.deepEqual(await clientRows(db.dataSource, human.id), []);
    assert.deepEqual(await clientRows(db.dataSource, 'nobody'), []);
  });

  it("an application's keys, not a machine user's of the same owner id", async () => {
    const app = await db.application(org, { authMethod: 'private_key_jwt' });
    const expiresAt = new Date(Date.UTC(2030, 0, 1));
    const key = await db.publicKey({ ownerType: 'application', ownerId: app.id, orgId: org.id, publicKey: 'PEM', expiresAt });
    await db.publicKey({ ownerType: 'machine', ownerId: app.id, orgId: org.id });
    const rows = await applicationKeyRows(db.dataSource, app.id);
    assert.deepEqual(
      rows.map((r) => [r.id, r.public_key, Number(r.expires_at)]),
      [[key.id, 'PEM', expiresAt.getTime()]],
    );
    assert.deepEqual(await applicationKeyRows(db.dataSource, 'nobody'), []);
  });
});
