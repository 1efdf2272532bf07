import assert from 'node:assert/strict';
import type { TestService } from '../../support/service.js';

/**
 * Adds `domain` to the organization and has the instance owner vouch for it (docs/federation.md, "Organization
 * domains"): what an IdP's home-realm domains must be. Test domains are in no DNS.
 */
export async function verifiedDomain(svc: TestService, orgId: string, domain: string): Promise<string> {
  const added = await svc.api('POST', `/management/v1/orgs/${orgId}/domains`, { token: svc.adminToken, body: { domain } });
  assert.equal(added.status, 201, added.text);
  const verified = await svc.api('POST', `/management/v1/orgs/${orgId}/domains/${added.body.domain}/verify`, { token: svc.adminToken, body: {} });
  assert.equal(verified.status, 200, verified.text);
  return added.body.domain as string;
}
