import assert from 'node:assert/strict';
import type { TestService } from './service.js';

/**
 * Lets the organizations created from now on offer self-registration: the instance's setting is off by default
 * (docs/operations.md, "Settings"), so a suite about registration turns it on before it creates its organizations.
 */
export async function openRegistration(svc: TestService): Promise<void> {
  const res = await svc.api('PATCH', '/admin/v1/settings', { token: svc.adminToken, body: { registration: { defaultForNewOrganizations: true } } });
  assert.equal(res.status, 200, res.text);
}
