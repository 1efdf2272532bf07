import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useService } from '../support/fixtures.js';
import { deviceApp } from './support/device-user.js';
import { organization } from './support/dynamic-registration.js';
import type { Organization } from './support/dynamic-registration.js';
import { postForm } from './support/oidc-fixtures.js';
import type { OidcApp } from './support/oidc-fixtures.js';

/** docs/agents.md, "Resources": a device authorization request (RFC 8628 §3.1) that names a resource needs no `openid`. */
describe('device authorization for a resource', () => {
  const svc = useService({ DEVICE_POLL_INTERVAL_SECONDS: '1' });
  let org: Organization;

  before(async () => {
    org = await organization(svc);
  });

  const deviceAuthorization = (clientId: string, form: Record<string, string>) =>
    postForm(svc, '/oauth/v2/device_authorization', { client_id: clientId, ...form });

  it("an application's device authorization names a resource and no openid: a device code", async () => {
    const app: OidcApp = await deviceApp(svc, org.project);
    const res = await deviceAuthorization(app.clientId, { scope: 'files:read', resource: org.resourceUri });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.device_code && res.body.user_code, res.text);
    const none = await deviceAuthorization(app.clientId, { scope: 'files:read' });
    assert.equal(none.status, 400, none.text);
    assert.equal(none.body.error, 'invalid_scope', 'without a resource, openid is required as at the authorization endpoint');
  });
});
