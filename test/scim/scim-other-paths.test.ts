import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { scimTenant } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';
import { useService } from '../support/fixtures.js';

/** Users created outside SCIM (management API) are found by SCIM filters on their e-mail and phone. */
describe('SCIM filters over users from other paths', () => {
  const svc = useService();
  let tenant: ScimTenant;
  before(async () => {
    tenant = await scimTenant(svc);
  });

  it('finds a management-API user by emails.value and phoneNumbers.value', async () => {
    const created = await svc.api('POST', `/management/v1/orgs/${tenant.orgId}/users/human`, {
      token: svc.adminToken,
      body: {
        userName: 'managed',
        profile: { firstName: 'Man', lastName: 'Aged' },
        email: { email: 'Managed@Example.com' },
        phone: { phone: '+41 79 123 45 67' },
      },
    });
    assert.equal(created.status, 201, created.text);
    for (const filter of ['emails.value eq "managed@example.com"', 'emails co "@EXAMPLE.com"', 'phoneNumbers.value eq "+41791234567"']) {
      const res = await tenant.scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.Resources.map((u: { id: string }) => u.id),
        [created.body.userId],
        filter,
      );
    }
  });
});
