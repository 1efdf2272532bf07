import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { REDIRECT, organization, publicClient, registered, setMode } from '../oidc/support/dynamic-registration.js';
import type { Organization, Registered } from '../oidc/support/dynamic-registration.js';
import { PASSWORD, postForm } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { countRows, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';

/**
 * SECURITY.md, "Applications get no more than their owners": a client that registered itself (RFC 7591) never
 * holds the Portcullis API, whoever consented to it. An anonymous registration under `dynamicRegistration: "open"`,
 * allowed once by an organization owner for an MCP server, asks again without `resource` (RFC 8707): it is refused
 * `invalid_target`, and no token it holds opens the management API or SCIM.
 */
describe('a self-registered agent and the Portcullis API', () => {
  const svc = useService({ DYNAMIC_REGISTRATION_RATE_LIMIT_PER_MINUTE: '100000' });
  let org: Organization;
  let agent: Registered;

  before(async () => {
    org = await organization(svc);
    const userName = org.loginName.slice(0, org.loginName.lastIndexOf('@'));
    const [row] = await svc.dataSource.query('SELECT id FROM users WHERE user_name = ? AND org_id = ?', [userName, org.project.orgId]);
    const ownerId: string | undefined = row?.id;
    assert.ok(ownerId, 'the person of the organization');
    const member = await svc.api('PUT', `/management/v1/orgs/${org.project.orgId}/members/${ownerId}`, {
      token: svc.adminToken,
      body: { roles: ['ORG_OWNER'] },
    });
    assert.equal(member.status, 200, member.text);
    await setMode(svc, org.project.orgId, 'open');
    agent = await registered(svc, publicClient({ client_name: 'Helpful agent' }));
  });

  const flow = (extra: Record<string, string>, scope: string) =>
    signIn(svc, { clientId: agent.client_id, redirectUri: REDIRECT, loginName: org.loginName, password: PASSWORD, scope, extra, consent: 'allow' });

  it('its token for the MCP server is refused by the management API and SCIM', async () => {
    const { tokens, error } = await flow({ resource: org.resourceUri }, 'openid files:read');
    assert.ok(tokens, error);
    await assertNoApi(svc, org, tokens.access_token);
  });

  it('asking without a resource is refused invalid_target, and nothing it was issued reaches the API', async () => {
    const before = await countRows(svc, 'users');
    const { tokens, error } = await flow({}, 'openid');
    // Whatever came back, it opens nothing: said first, so a token that does is named by the door that took it.
    if (tokens) await assertNoApi(svc, org, tokens.access_token);
    assert.equal(error, 'invalid_target');
    assert.equal(await countRows(svc, 'users'), before, 'no machine user was created');
  });

  it('a resource of the API itself is refused invalid_target', async () => {
    const { tokens, error } = await flow({ resource: 'urn:portcullis:api' }, 'openid');
    if (tokens) await assertNoApi(svc, org, tokens.access_token);
    assert.equal(error, 'invalid_target');
  });

  it('its refresh token, asked for the API, yields nothing that reaches it', async () => {
    const { tokens, error } = await flow({ resource: org.resourceUri }, 'openid offline_access files:read');
    assert.ok(tokens?.refresh_token, error ?? 'a refresh token');
    let refreshToken: string = tokens.refresh_token;
    for (const resource of [undefined, 'urn:portcullis:api']) {
      const form: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: agent.client_id };
      if (resource) form.resource = resource;
      const res = await postForm(svc, '/oauth/v2/token', form);
      if (res.status === 200) await assertNoApi(svc, org, res.body.access_token);
      else assert.equal(res.body.error, 'invalid_target', res.text);
      if (res.body?.refresh_token) refreshToken = res.body.refresh_token;
    }
  });
});

/** The management API and SCIM answer 401 to the token, and create nothing. */
async function assertNoApi(svc: TestService, org: Organization, token: string): Promise<void> {
  const orgId = org.project.orgId;
  const users = await svc.api('GET', `/management/v1/orgs/${orgId}/users`, { token });
  assert.equal(users.status, 401, `GET …/users answered ${users.status}`);
  const machine = await svc.api('POST', `/management/v1/orgs/${orgId}/users/machine`, { token, body: { userName: 'agent-made', name: 'agent' } });
  assert.equal(machine.status, 401, `POST …/users/machine answered ${machine.status}`);
  const scim = await svc.api('GET', `/scim/v2/${orgId}/Users`, { token });
  assert.equal(scim.status, 401, `GET /scim/v2/…/Users answered ${scim.status}`);
}
