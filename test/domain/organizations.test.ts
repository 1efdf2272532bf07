import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/common/errors/domain-error.js';
import { OrganizationsService } from '../../src/users/organizations.service.js';
import { UsersService } from '../../src/users/users.service.js';
import { useDomain } from './support.js';

describe('domain: organizations', () => {
  const domain = useDomain();

  it('creates an organization with its primary domain and event', async () => {
    const orgs = domain.get(OrganizationsService);
    const org = await orgs.create(domain.adminId, 'Acme Widgets');
    assert.equal(org.primaryDomain, `${orgs.primaryDomain('Acme Widgets')}`);
    assert.match(org.primaryDomain, /^acme-widgets\./);
    assert.equal((await orgs.get(org.id)).name, 'Acme Widgets');
    assert.deepEqual(await domain.eventsOf(org.id), [
      { type: 'org.added', aggregateId: org.id, editorUserId: domain.adminId, payload: { name: 'Acme Widgets', primaryDomain: org.primaryDomain } },
    ]);
  });

  it('refuses a second organization with the same primary domain', async () => {
    const orgs = domain.get(OrganizationsService);
    await orgs.create(null, 'Duplicate Name');
    await assert.rejects(orgs.create(null, 'duplicate name'), (error: { code?: string }) => error.code === ErrorCode.AlreadyExists);
    assert.equal((await orgs.list()).filter((o) => o.name.toLowerCase() === 'duplicate name').length, 1);
  });

  it('answers not found for an unknown organization', async () => {
    await assert.rejects(domain.get(OrganizationsService).get('no-such-org'), (error: { code?: string }) => error.code === ErrorCode.NotFound);
  });

  it('keeps users to their organization', async () => {
    const org = await domain.get(OrganizationsService).create(null, 'Separate');
    const users = domain.get(UsersService);
    const user = await users.createHuman(null, org.id, { userName: 'someone', firstName: 'S', lastName: 'O', email: 's@separate.test' });
    assert.equal((await users.get(org.id, user.id)).id, user.id);
    await assert.rejects(users.get(domain.defaultOrgId, user.id), (error: { code?: string }) => error.code === ErrorCode.NotFound);
  });
});
