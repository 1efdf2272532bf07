import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/common/errors/domain-error.js';
import { DEFAULT_LOGIN_POLICY, LoginPolicyService } from '../../src/users/login-policy.service.js';
import { OrganizationsService } from '../../src/users/organizations.service.js';
import { useDomain } from './support.js';

describe('domain: login policy', () => {
  const domain = useDomain();

  it('answers the default for an organization without a stored policy', async () => {
    const org = await domain.get(OrganizationsService).create(null, 'Policy Default');
    // An organization created before registration became a setting has no stored policy, and offers registration.
    await domain.dataSource.query('DELETE FROM login_policies WHERE org_id = ?', [org.id]);
    assert.deepEqual(await domain.get(LoginPolicyService).get(org.id), DEFAULT_LOGIN_POLICY);
  });

  it('stores a new organization with registration off, as the instance settings have it by default', async () => {
    const org = await domain.get(OrganizationsService).create(null, 'Policy New');
    assert.deepEqual(await domain.get(LoginPolicyService).get(org.id), { ...DEFAULT_LOGIN_POLICY, allowRegistration: false });
  });

  it('stores a changed policy with its event; an unchanged one writes nothing', async () => {
    const org = await domain.get(OrganizationsService).create(null, 'Policy Changed');
    const policies = domain.get(LoginPolicyService);
    const closed = { ...DEFAULT_LOGIN_POLICY, allowRegistration: false, passkeys: false, mfa: 'required' as const };
    await policies.set(domain.adminId, org.id, closed);
    await policies.set(domain.adminId, org.id, closed);
    assert.deepEqual(await policies.get(org.id), closed);
    const changes = (await domain.eventsOf(org.id)).filter((e) => e.type === 'org.login.policy.changed');
    assert.deepEqual(
      changes.map((e) => e.payload),
      [closed],
    );
  });

  it('answers not found for an unknown organization, reading or writing', async () => {
    const policies = domain.get(LoginPolicyService);
    const notFound = (error: { code?: string }) => error.code === ErrorCode.NotFound;
    await assert.rejects(policies.get('no-such-org'), notFound);
    await assert.rejects(policies.set(null, 'no-such-org', DEFAULT_LOGIN_POLICY), notFound);
  });
});
