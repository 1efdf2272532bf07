import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { REDIRECT, issueToken, organization, publicClient, register, registered, setMode } from '../oidc/support/dynamic-registration.js';
import type { Organization, Registered } from '../oidc/support/dynamic-registration.js';
import { PASSWORD, createHuman, createOidcApp, createProject, postForm } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { unique, useService } from '../support/fixtures.js';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ADMIN_PASSWORD = 'Agent-Doors-Admin-1';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

/**
 * docs/agents.md and SECURITY.md, "an application gets no more than its owner", tried from the side of a client that
 * registered itself (RFC 7591) and of the account page's static client: none of the other doors of the token
 * endpoint widens what the agent was consented, the API stays out of reach, and a deleted registration ends what it
 * was issued.
 */
describe('doors around a registered agent', () => {
  const svc = useService({ DYNAMIC_REGISTRATION_RATE_LIMIT_PER_MINUTE: '100000', BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD });
  let org: Organization;

  before(async () => {
    org = await organization(svc);
    await setMode(svc, org.project.orgId, 'initialAccessToken');
    const features = await svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body: { tokenExchange: true } });
    assert.equal(features.status, 200, features.text);
  });

  const agent = async (): Promise<Registered> => registered(svc, publicClient(), await issueToken(svc, org.project.orgId));
  const connect = async (client: Registered) => {
    const { tokens, error } = await signIn(svc, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      loginName: org.loginName,
      password: PASSWORD,
      scope: 'openid offline_access files:read',
      extra: { resource: org.resourceUri },
      consent: 'allow',
    });
    assert.ok(tokens?.refresh_token, error ?? 'a refresh token');
    return tokens;
  };
  const introspect = (token: string) => postForm(svc, '/oauth/v2/introspect', { token }, { id: org.resource.clientId, secret: org.resource.clientSecret! });

  it('a deleted registration (RFC 7592 §2.3) leaves no refresh or access token alive', async () => {
    const client = await agent();
    const tokens = await connect(client);
    assert.equal((await introspect(tokens.access_token)).body.active, true, 'live before');
    const deleted = await svc.api('DELETE', new URL(client.registration_client_uri).pathname, { token: client.registration_access_token });
    assert.equal(deleted.status, 204, deleted.text);
    const refreshed = await postForm(svc, '/oauth/v2/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
    });
    assert.notEqual(refreshed.status, 200, `the refresh token outlived its client: ${refreshed.text}`);
    assert.equal((await introspect(tokens.access_token)).body.active, false, 'the access token outlived its client');
  });

  it("an ID-JAG (token exchange) is refused for a user the requesting client's application no longer admits", async () => {
    const orgId = org.project.orgId;
    const base = `/management/v1/orgs/${orgId}`;
    const own = await createProject(svc, orgId);
    const other = await createProject(svc, orgId);
    const app = await createOidcApp(
      svc,
      own,
      { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', EXCHANGE], settings: { access: 'granted' } },
      'http://127.0.0.1:65533',
    );
    const person = await createHuman(svc, orgId);
    const grantIn = async (projectId: string) => {
      const res = await svc.api('POST', `${base}/projects/${projectId}/grants`, { token: svc.adminToken, body: { userId: person.userId, roles: [] } });
      assert.equal(res.status, 201, res.text);
      return res.body.grantId as string;
    };
    const entry = await grantIn(own.projectId);
    await grantIn(other.projectId);
    const resource = `https://${unique('files')}.example/mcp`;
    const external = await svc.api('POST', `${base}/external-resources`, {
      token: svc.adminToken,
      body: { name: unique('files'), issuer: 'https://rs.example', resource, scopes: ['files:read'], clientIdAtIssuer: 'agent', projectId: other.projectId },
    });
    assert.equal(external.status, 201, external.text);
    const { tokens, error } = await signIn(svc, {
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: 'http://127.0.0.1:65533/cb',
      loginName: `${person.userName}${org.loginName.slice(org.loginName.lastIndexOf('@'))}`,
      password: PASSWORD,
      scope: 'openid email',
    });
    assert.ok(tokens?.id_token, error);
    const removed = await svc.api('DELETE', `${base}/projects/${own.projectId}/grants/${entry}`, { token: svc.adminToken });
    assert.equal(removed.status, 204, removed.text);
    const res = await postForm(
      svc,
      '/oauth/v2/token',
      {
        grant_type: EXCHANGE,
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        subject_token: tokens.id_token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        audience: 'https://rs.example',
        resource,
        scope: 'files:read',
      },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(res.status, 400, `an ID-JAG was issued for a user the application no longer admits: ${res.status} ${res.text.slice(0, 200)}`);
    assert.equal(res.body.error, 'invalid_grant');
  });

  it('registering for token exchange, the JWT bearer grant or client_credentials is refused', async () => {
    const token = await issueToken(svc, org.project.orgId);
    for (const grant of [EXCHANGE, JWT_BEARER, 'client_credentials']) {
      const res = await register(svc, publicClient({ grant_types: ['authorization_code', grant] }), token);
      assert.equal(res.status, 400, `${grant}: ${res.text}`);
      assert.equal(res.body.error, 'invalid_client_metadata');
    }
  });

  it('its own access token, exchanged (RFC 8693) for the API or another audience, gets nothing', async () => {
    const client = await agent();
    const tokens = await connect(client);
    for (const audience of ['urn:portcullis:api', org.project.projectId]) {
      const res = await postForm(svc, '/oauth/v2/token', {
        grant_type: EXCHANGE,
        client_id: client.client_id,
        subject_token: tokens.access_token,
        subject_token_type: ACCESS_TOKEN,
        audience,
      });
      assert.notEqual(res.status, 200, `exchanged for ${audience}: ${res.text}`);
    }
    const machine = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials', client_id: client.client_id, scope: 'openid' });
    assert.notEqual(machine.status, 200, machine.text);
  });

  it('a client_id sent in the registration is not taken: an application keeps its own', async () => {
    const app = await createOidcApp(svc, org.project, { authMethod: 'none' }, 'http://127.0.0.1:65532');
    const res = await register(svc, publicClient({ client_id: app.clientId }), await issueToken(svc, org.project.orgId));
    assert.equal(res.status, 201, res.text);
    assert.notEqual(res.body.client_id, app.clientId);
    assert.match(res.body.client_id, /^agent-/);
    const path = new URL(res.body.registration_client_uri).pathname;
    const update = await svc.api('PUT', path, { token: res.body.registration_access_token, body: { ...publicClient(), client_id: app.clientId } });
    assert.notEqual(update.status, 200, `RFC 7592 update renamed the registration to the application's client id: ${update.text}`);
  });

  it("the account page's client, whose code a person may read in their browser, redeems none: no token is issued to it", async () => {
    for (const ask of [{ scope: 'openid urn:portcullis:iam:api:aud' }, { scope: 'openid', extra: { resource: 'urn:portcullis:api' } }]) {
      const { tokens, error } = await signIn(svc, {
        clientId: 'portcullis-account',
        redirectUri: `${svc.config.publicUrl}/ui/account/signed-in`,
        loginName: 'admin',
        password: ADMIN_PASSWORD,
        ...ask,
      });
      if (tokens) assertNoApi(await svc.api('GET', '/admin/v1/orgs', { token: tokens.access_token }), JSON.stringify(ask));
      assert.equal(tokens, undefined, `${JSON.stringify(ask)}: the account page's code was redeemed for ${Object.keys(tokens ?? {}).join(', ')}`);
      assert.equal(error, 'unauthorized_client');
    }
  });
});

function assertNoApi(res: { status: number; text: string }, what: string): void {
  assert.equal(res.status, 401, `${what}: the API answered ${res.status}`);
}
