import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientKindById } from '../../../src/oidc/adapter/client.store.js';
import type { OrganizationEntity } from '../../../src/users/entities/organization.entity.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

/**
 * What a token's client is, by its id alone (the audience asks it): clientKindOf over the marks its registration
 * carries, so a client is never taken for a machine user or a first-party application by a row that is missing.
 */
describe('client kinds by id', () => {
  let db: QueryDatabase;
  let org: OrganizationEntity;

  before(async () => {
    db = await openQueryDatabase();
    org = await db.org();
  });
  after(() => db?.close());

  it('an application with API access is first-party; one without, and a SAML application, are applications', async () => {
    assert.equal(await clientKindById(db.dataSource, (await db.application(org, { apiAccess: true })).clientId), 'first-party');
    assert.equal(await clientKindById(db.dataSource, (await db.application(org)).clientId), 'application');
    assert.equal(await clientKindById(db.dataSource, (await db.application(org, { kind: 'saml' })).clientId), 'application');
  });

  it('an active machine user is a machine, with or without a secret; a locked one is of no kind', async () => {
    const machine = await db.user(org, { type: 'machine' });
    await db.machineSecret(machine.id, 'secret-hash');
    assert.equal(await clientKindById(db.dataSource, machine.id), 'machine');
    assert.equal(await clientKindById(db.dataSource, (await db.user(org, { type: 'machine' })).id), 'machine');
    assert.equal(await clientKindById(db.dataSource, (await db.user(org, { type: 'machine', state: 'locked' })).id), 'unknown');
  });

  it('a person and an unknown id are of no kind; a client id URL and a registered agent id are told by their form', async () => {
    assert.equal(await clientKindById(db.dataSource, (await db.user(org)).id), 'unknown');
    assert.equal(await clientKindById(db.dataSource, 'nobody'), 'unknown');
    assert.equal(await clientKindById(db.dataSource, 'https://agent.example/client.json'), 'metadata-document');
    assert.equal(await clientKindById(db.dataSource, 'agent-gone'), 'registered');
  });
});
