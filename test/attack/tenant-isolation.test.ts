import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FactorsService } from '../../src/users/factors/factors.service.js';
import { createCaller, createOrg, unique, useService } from '../support/fixtures.js';
import { createApiApp, createHuman, createOidcApp, createProject, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { registerAgent } from '../oidc/support/agent-clients.js';
import { authorize, REDIRECT } from '../oidc/support/agent-consent-flow.js';
import { issueToken, publicClient, register, setMode } from '../oidc/support/dynamic-registration.js';
import { LoginClient } from './support/login-client.js';
import { databaseState } from './support/db-state.js';
import { declaredRoutes, fillPath } from '../support/routes.js';
import type { DeclaredRoute } from '../support/routes.js';
import { idpMetadataXml } from '../federation/support/saml-metadata.js';
import { ScimmyTarget } from '../provisioning/support/scimmy-target.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

/**
 * A body each route accepts, so a refusal below is the access check and not validation. A new route
 * without an entry fails the matrix: it cannot be forgotten.
 */
const directoryBody = () => ({
  name: unique('directory'),
  url: 'ldap://127.0.0.1:1',
  bindDn: 'cn=portcullis,dc=example',
  bindPassword: 'bound-secret',
  usersDn: 'ou=people,dc=example',
  sync: { intervalMinutes: 0 },
});

function validBody(route: DeclaredRoute, ids: Record<string, string>): unknown {
  const key = `${route.method} ${route.path}`;
  const bodies: Record<string, unknown> = {
    'POST /management/v1/orgs/:orgId/projects': { name: unique('p') },
    'POST /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/keys': {},
    'POST /management/v1/orgs/:orgId/projects/:projectId/apps/api': {
      name: unique('api'),
      authMethod: 'client_secret_basic',
      resourceUri: `https://${unique('mcp')}.example.com/mcp`,
      scopes: [{ name: 'files:read', description: 'Read files' }],
      accessTokenType: 'jwt',
    },
    'POST /management/v1/orgs/:orgId/projects/:projectId/apps/oidc': {
      name: unique('web'),
      redirectUris: ['https://app.example.com/cb'],
      responseTypes: ['code'],
      grantTypes: ['authorization_code'],
      authMethod: 'client_secret_basic',
    },
    'POST /management/v1/orgs/:orgId/projects/:projectId/apps/saml': {
      name: unique('sp'),
      entityId: `https://${unique('sp')}.example.com/saml`,
      acsUrls: ['https://sp.example.com/acs'],
    },
    'GET /management/v1/orgs/:orgId/projects': undefined,
    'GET /management/v1/orgs/:orgId/projects/:projectId': undefined,
    'PATCH /management/v1/orgs/:orgId/projects/:projectId': { name: unique('p') },
    'DELETE /management/v1/orgs/:orgId/projects/:projectId': undefined,
    'GET /management/v1/orgs/:orgId/projects/:projectId/apps': undefined,
    'POST /management/v1/orgs/:orgId/projects/:projectId/roles': { key: unique('role') },
    'GET /management/v1/orgs/:orgId/projects/:projectId/roles': undefined,
    'PATCH /management/v1/orgs/:orgId/projects/:projectId/roles/:key': { displayName: 'Victim role' },
    'DELETE /management/v1/orgs/:orgId/projects/:projectId/roles/:key': undefined,
    'GET /management/v1/orgs/:orgId/projects/:projectId/grants': undefined,
    'PATCH /management/v1/orgs/:orgId/projects/:projectId/grants/:grantId': { roles: [] },
    'DELETE /management/v1/orgs/:orgId/projects/:projectId/grants/:grantId': undefined,
    'GET /management/v1/orgs/:orgId/users/:userId/grants': undefined,
    'GET /management/v1/orgs/:orgId/projects/:projectId/apps/:appId': undefined,
    'PATCH /management/v1/orgs/:orgId/projects/:projectId/apps/:appId': { name: unique('app') },
    'DELETE /management/v1/orgs/:orgId/projects/:projectId/apps/:appId': undefined,
    'POST /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/secret': {},
    'GET /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/keys': undefined,
    'DELETE /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/keys/:keyId': undefined,
    'GET /management/v1/orgs/:orgId/members': undefined,
    'DELETE /management/v1/orgs/:orgId/members/:userId': undefined,
    'GET /management/v1/orgs/:orgId/users': undefined,
    'GET /management/v1/orgs/:orgId/users/:userId': undefined,
    'PATCH /management/v1/orgs/:orgId/users/:userId': { description: 'changed' },
    'DELETE /management/v1/orgs/:orgId/users/:userId': undefined,
    'POST /management/v1/orgs/:orgId/users/:userId/deactivate': {},
    'POST /management/v1/orgs/:orgId/users/:userId/reactivate': {},
    'POST /management/v1/orgs/:orgId/users/:userId/unlock': {},
    'POST /management/v1/orgs/:orgId/users/:userId/invite': {},
    'POST /management/v1/orgs/:orgId/users/:userId/email/verify': {},
    'POST /management/v1/orgs/:orgId/users/:userId/password/reset': {},
    'GET /management/v1/orgs/:orgId/users/:userId/sessions': undefined,
    'DELETE /management/v1/orgs/:orgId/users/:userId/sessions/:sessionId': undefined,
    'GET /management/v1/orgs/:orgId/agents': undefined,
    'GET /management/v1/orgs/:orgId/users/:userId/agents': undefined,
    'DELETE /management/v1/orgs/:orgId/users/:userId/agents/:clientId': undefined,
    'GET /management/v1/orgs/:orgId/registered-clients': undefined,
    'DELETE /management/v1/orgs/:orgId/registered-clients/:clientId': undefined,
    'PUT /management/v1/orgs/:orgId/users/:userId/password': { password: 'Isolation-Pass-42!' },
    'DELETE /management/v1/orgs/:orgId/users/:userId/secret': undefined,
    'GET /management/v1/orgs/:orgId/users/:userId/keys': undefined,
    'DELETE /management/v1/orgs/:orgId/users/:userId/keys/:keyId': undefined,
    'GET /management/v1/orgs/:orgId/users/:userId/pats': undefined,
    'DELETE /management/v1/orgs/:orgId/users/:userId/pats/:tokenId': undefined,
    'POST /management/v1/orgs/:orgId/users/:userId/keys': {},
    'POST /management/v1/orgs/:orgId/users/:userId/pats': {},
    'POST /management/v1/orgs/:orgId/users/:userId/secret': {},
    'POST /management/v1/orgs/:orgId/users/human': {
      userName: unique('h'),
      profile: { firstName: 'A', lastName: 'B' },
      email: { email: `${unique('h')}@example.com` },
    },
    'POST /management/v1/orgs/:orgId/users/machine': { userName: unique('m'), name: 'm', accessTokenType: 'opaque' },
    'PUT /management/v1/orgs/:orgId/members/:userId': { roles: ['ORG_OWNER'] },
    'GET /management/v1/orgs/:orgId/users/:userId/factors': undefined,
    'DELETE /management/v1/orgs/:orgId/users/:userId/factors/:factorId': undefined,
    'GET /management/v1/orgs/:orgId/login-policy': undefined,
    'PUT /management/v1/orgs/:orgId/login-policy': { mfa: 'off', passkeys: false, allowRegistration: false },
    'POST /management/v1/orgs/:orgId/agent-registration-tokens': { expiresIn: 600 },
    'GET /management/v1/orgs/:orgId/groups': undefined,
    'GET /management/v1/orgs/:orgId/groups/:groupId/members': undefined,
    'POST /management/v1/orgs/:orgId/groups': { displayName: unique('g') },
    'DELETE /management/v1/orgs/:orgId/groups/:groupId': undefined,
    'PUT /management/v1/orgs/:orgId/groups/:groupId/members/:userId': undefined,
    'DELETE /management/v1/orgs/:orgId/groups/:groupId/members/:userId': undefined,
    'POST /management/v1/orgs/:orgId/idps': { type: 'oidc', name: unique('idp'), issuer: 'https://93.184.215.14/', clientId: 'c', clientSecret: 's' },
    'GET /management/v1/orgs/:orgId/idps': undefined,
    'GET /management/v1/orgs/:orgId/idps/:idpId': undefined,
    'PATCH /management/v1/orgs/:orgId/idps/:idpId': { name: 'changed' },
    'DELETE /management/v1/orgs/:orgId/idps/:idpId': undefined,
    // A test sign-in of the SAML IdP (see call()): its upstream URL is built from stored metadata, no network needed.
    'POST /management/v1/orgs/:orgId/idps/:idpId/test': undefined,
    // Shared Signals of an IdP that is this very instance (see call()): it transmits, so the control can subscribe.
    'PUT /management/v1/orgs/:orgId/idps/:idpId/signals': undefined,
    'GET /management/v1/orgs/:orgId/idps/:idpId/signals': undefined,
    'DELETE /management/v1/orgs/:orgId/idps/:idpId/signals': undefined,
    'POST /management/v1/orgs/:orgId/domains': { domain: `${unique('d')}.example` },
    'GET /management/v1/orgs/:orgId/domains': undefined,
    // An instance owner's verify vouches for the domain (the control); anyone else's finds no challenge of another organization.
    'POST /management/v1/orgs/:orgId/domains/:domain/verify': {},
    'DELETE /management/v1/orgs/:orgId/domains/:domain': undefined,
    'POST /management/v1/orgs/:orgId/external-resources': {
      name: unique('external'),
      issuer: 'https://as.example',
      resource: `https://${unique('r')}.example/mcp`,
      scopes: [],
      clientIdAtIssuer: 'c',
      projectId: ids.projectId,
    },
    'GET /management/v1/orgs/:orgId/external-resources': undefined,
    'DELETE /management/v1/orgs/:orgId/external-resources/:externalResourceId': undefined,
    'GET /management/v1/orgs/:orgId/users/:userId/identities': undefined,
    // POST …/identities takes its body from the ids (the IdP to link through): see call().
    'DELETE /management/v1/orgs/:orgId/users/:userId/identities/:idpId/:subject': undefined,
    'POST /management/v1/orgs/:orgId/webhooks': { url: 'https://93.184.215.14/hook' },
    'GET /management/v1/orgs/:orgId/webhooks': undefined,
    'DELETE /management/v1/orgs/:orgId/webhooks/:id': undefined,
    'GET /management/v1/orgs/:orgId/webhooks/:id/deliveries': undefined,
    'POST /management/v1/orgs/:orgId/provisioning/targets': {
      name: unique('target'),
      baseUrl: 'https://93.184.215.14/scim/v2',
      auth: { type: 'bearer', token: 't' },
      enabled: false,
    },
    'GET /management/v1/orgs/:orgId/provisioning/targets': undefined,
    'GET /management/v1/orgs/:orgId/provisioning/targets/:targetId': undefined,
    'PATCH /management/v1/orgs/:orgId/provisioning/targets/:targetId': { name: 'changed' },
    'DELETE /management/v1/orgs/:orgId/provisioning/targets/:targetId': undefined,
    'POST /management/v1/orgs/:orgId/provisioning/targets/:targetId/test': {},
    'GET /management/v1/orgs/:orgId/provisioning/targets/:targetId/status': undefined,
    'GET /management/v1/orgs/:orgId/provisioning/targets/:targetId/objects': undefined,
    // The victim's target is the scimmy peer (see the victim's setup): its Users can be read and a user of it retried.
    'POST /management/v1/orgs/:orgId/provisioning/targets/:targetId/reconcile': { dryRun: false },
    'POST /management/v1/orgs/:orgId/provisioning/targets/:targetId/objects/:kind/:localId/retry': {},
    'POST /management/v1/orgs/:orgId/audit-streams': { name: unique('stream'), type: 'https', url: 'https://93.184.215.14/audit' },
    'GET /management/v1/orgs/:orgId/audit-streams': undefined,
    'GET /management/v1/orgs/:orgId/audit-streams/:streamId': undefined,
    'PATCH /management/v1/orgs/:orgId/audit-streams/:streamId': { name: 'changed' },
    'DELETE /management/v1/orgs/:orgId/audit-streams/:streamId': undefined,
    'GET /management/v1/orgs/:orgId/branding': undefined,
    'PUT /management/v1/orgs/:orgId/branding': { displayName: 'changed' },
    'DELETE /management/v1/orgs/:orgId/branding': undefined,
    'POST /management/v1/orgs/:orgId/branding/preview': { displayName: 'peek' },
    'GET /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/branding': undefined,
    'PUT /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/branding': { displayName: 'changed' },
    'DELETE /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/branding': undefined,
    // The victim's directory points at a closed loopback port (allowed in the setup): a test or a sync fails fast.
    'POST /management/v1/orgs/:orgId/directories': { ...directoryBody(), name: unique('directory') },
    'GET /management/v1/orgs/:orgId/directories': undefined,
    'GET /management/v1/orgs/:orgId/directories/:directoryId': undefined,
    'PATCH /management/v1/orgs/:orgId/directories/:directoryId': { name: 'changed' },
    'DELETE /management/v1/orgs/:orgId/directories/:directoryId': undefined,
    'POST /management/v1/orgs/:orgId/directories/:directoryId/test': undefined,
    'POST /management/v1/orgs/:orgId/directories/:directoryId/sync': {},
    'GET /management/v1/orgs/:orgId/directories/:directoryId/syncs': undefined,
    'GET /management/v1/orgs/:orgId/directories/:directoryId/syncs/:syncId': undefined,
    'GET /scim/v2/:orgId/Groups': undefined,
    'GET /scim/v2/:orgId/Groups/:id': undefined,
    'DELETE /scim/v2/:orgId/Groups/:id': undefined,
    'POST /scim/v2/:orgId/Groups': { schemas: [GROUP], displayName: unique('g') },
    'POST /scim/v2/:orgId/Groups/.search': { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'] },
    'PUT /scim/v2/:orgId/Groups/:id': { schemas: [GROUP], displayName: unique('g') },
    'PATCH /scim/v2/:orgId/Groups/:id': {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'externalId', value: 'x' }],
    },
    'GET /scim/v2/:orgId/Users': undefined,
    'GET /scim/v2/:orgId/Users/:id': undefined,
    'DELETE /scim/v2/:orgId/Users/:id': undefined,
    'POST /scim/v2/:orgId/Users': { schemas: [USER], userName: unique('s') },
    'POST /scim/v2/:orgId/Users/.search': { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'] },
    'PUT /scim/v2/:orgId/Users/:id': { schemas: [USER], userName: unique('s'), active: false },
    'PATCH /scim/v2/:orgId/Users/:id': {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    },
    'POST /scim/v2/:orgId/Bulk': {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
      Operations: [{ method: 'POST', path: '/Users', bulkId: 'b1', data: { schemas: [USER], userName: unique('b') } }],
    },
  };
  if (key === 'POST /management/v1/orgs/:orgId/users/:userId/identities') return { idpId: ids.linkIdpId, subject: unique('subject') };
  if (key === 'POST /management/v1/orgs/:orgId/projects/:projectId/grants') return { userId: ids.granteeId, roles: [] };
  if (!(key in bodies)) throw new Error(`no request body for ${key}: add one to the isolation matrix`);
  return bodies[key];
}

/**
 * docs/product-rules.md, "API": "404 for what does not exist or is outside the caller's organizations". Every
 * organization-scoped route, found by walking the controllers, is called by the owner of organization A
 * (a) on organization B and (b) on its own organization with B's resource ids. Instance routes answer
 * 403. After every call the whole database is byte-for-byte what it was.
 */
describe('tenant isolation matrix', () => {
  // The victim's provisioning target is a local SCIM peer: a reconcile reads its Users.
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let peer: ScimmyTarget;
  let attacker: { orgId: string; token: string };
  let victim: Record<string, string>;
  let ownIds: Record<string, string>;
  let orgRoutes: DeclaredRoute[];
  let instanceRoutes: DeclaredRoute[];

  before(async () => {
    const orgA = await createOrg(svc);
    attacker = { orgId: orgA.id, token: (await createCaller(svc, orgA.id, { org: ['ORG_OWNER'] })).token };
    const projectA = await createProject(svc, orgA.id);
    ownIds = { orgId: orgA.id, projectId: projectA.projectId };

    const orgB = await createOrg(svc);
    const projectB = await createProject(svc, orgB.id);
    const app = await createApiApp(svc, projectB, 'private_key_jwt');
    const secretApp = await createOidcApp(svc, projectB, { authMethod: 'client_secret_basic' });
    // A project without applications (only an empty project can be removed) and credentials to list and remove.
    const emptyProject = await createProject(svc, orgB.id);
    const admin = (method: string, path: string, body?: unknown) =>
      svc.api(method, `/management/v1/orgs/${orgB.id}${path}`, { token: svc.adminToken, ...(body === undefined ? {} : { body }) });
    const appKey = await admin('POST', `/projects/${projectB.projectId}/apps/${app.appId}/keys`, {});
    assert.equal(appKey.status, 201, appKey.text);
    const human = await createHuman(svc, orgB.id);
    // A person with a session (signed in to the organization's app), for the session routes.
    const sessionUser = await createHuman(svc, orgB.id);
    const signedIn = await signIn(svc, {
      clientId: secretApp.clientId,
      clientSecret: secretApp.clientSecret,
      redirectUri: 'http://127.0.0.1:65530/cb',
      loginName: sessionUser.userName,
      password: PASSWORD,
    });
    assert.ok(signedIn.tokens, signedIn.error);
    const [session] = (await admin('GET', `/users/${sessionUser.userId}/sessions`)).body.sessions;
    // A person who allowed an agent client through the consent page, for the connected-agents routes.
    const agentResource = `https://${unique('mcp')}.example/mcp`;
    const agentApi = await admin('POST', `/projects/${projectB.projectId}/apps/api`, {
      name: unique('victim mcp'),
      authMethod: 'client_secret_basic',
      resourceUri: agentResource,
      scopes: [{ name: 'files:read', description: 'Read files' }],
    });
    assert.equal(agentApi.status, 201, agentApi.text);
    const agent = await registerAgent(svc, orgB.id, REDIRECT);
    const agentUser = await createHuman(svc, orgB.id);
    const consented = await authorize(
      new LoginClient(svc.url),
      agent,
      `${agentUser.userName}@${orgB.primaryDomain}`,
      'openid files:read',
      agentResource,
      'allow',
    );
    assert.ok(consented.consent && consented.callback.searchParams.get('code'), 'the victim consented');
    // A client registered to the organization with its initial access token (RFC 7591), for the registered-clients routes.
    await setMode(svc, orgB.id, 'initialAccessToken');
    const registered = await register(svc, publicClient(), await issueToken(svc, orgB.id));
    assert.equal(registered.status, 201, registered.text);
    const machine = await createCaller(svc, orgB.id);
    const machineKey = await admin('POST', `/users/${machine.userId}/keys`, {});
    assert.equal(machineKey.status, 201, machineKey.text);
    const pat = await admin('POST', `/users/${machine.userId}/pats`, {});
    assert.equal(pat.status, 201, pat.text);
    const group = async () =>
      (await svc.api('POST', `/management/v1/orgs/${orgB.id}/groups`, { token: svc.adminToken, body: { displayName: unique('victims') } })).body.id as string;
    // The human's recovery codes, enrolled as at sign-in: the factor routes are called with the human's id.
    const factors = svc.app.get(FactorsService);
    await factors.newRecoveryCodes({ id: human.userId, orgId: orgB.id });
    const [factor] = await factors.list(null, orgB.id, human.userId);
    // A stream of one event type the matrix never writes: once it has read past the setup's events it has nothing to
    // deliver, so its row stays as it is while the matrix compares the database.
    const stream = await admin('POST', '/audit-streams', {
      name: unique('stream'),
      type: 'https',
      url: 'https://127.0.0.1:1/audit',
      eventTypes: ['audit.stream.removed'],
    });
    assert.equal(stream.status, 201, stream.text);
    const hosts = await svc.api('PUT', '/admin/v1/directory-hosts', { token: svc.adminToken, body: { allow: ['127.0.0.1'] } });
    assert.equal(hosts.status, 200, hosts.text);
    const directory = await admin('POST', '/directories', directoryBody());
    assert.equal(directory.status, 201, directory.text);
    const sync = await admin('POST', `/directories/${directory.body.id}/sync`, {});
    assert.equal(sync.status, 202, sync.text);
    for (let i = 0; (await admin('GET', `/audit-streams/${stream.body.id}`)).body.lag !== 0; i++) {
      assert.ok(i < 400, 'the stream read past the setup');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The sync fails at once (nothing listens): it must be over before the matrix compares the database.
    for (let i = 0; ; i++) {
      const state = (await admin('GET', `/directories/${directory.body.id}/syncs/${sync.body.syncId}`)).body.state;
      if (state !== 'running') break;
      assert.ok(i < 200, 'the sync ended');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The organization's and its application's brands, to read, replace and remove.
    for (const path of ['/branding', `/projects/${projectB.projectId}/apps/${app.appId}/branding`]) {
      const branded = await admin('PUT', path, { displayName: 'Victim' });
      assert.equal(branded.status, 200, branded.text);
    }
    const webhook = await svc.api('POST', `/management/v1/orgs/${orgB.id}/webhooks`, { token: svc.adminToken, body: { url: 'https://93.184.215.14/hook' } });
    assert.equal(webhook.status, 201, webhook.text);
    // Disabled: nothing is pushed while the matrix runs. A reconcile marks the human, so the target knows an object to retry.
    peer = await ScimmyTarget.start('t');
    const target = await admin('POST', '/provisioning/targets', {
      name: unique('target'),
      baseUrl: peer.baseUrl,
      auth: { type: 'bearer', token: 't' },
      enabled: false,
    });
    assert.equal(target.status, 201, target.text);
    const reconciled = await admin('POST', `/provisioning/targets/${target.body.id}/reconcile`, {});
    assert.equal(reconciled.status, 202, reconciled.text);
    // Two IdPs: the human is linked through one (to read and unlink), the control links it through the other.
    const idp = async () =>
      (await admin('POST', '/idps', { type: 'oidc', name: unique('idp'), issuer: 'https://93.184.215.14/', clientId: 'c', clientSecret: 's' })).body
        .id as string;
    const idpId = await idp();
    const linked = await admin('POST', `/users/${human.userId}/identities`, { idpId, subject: 'victim-subject' });
    assert.equal(linked.status, 201, linked.text);
    // An IdP that is this instance itself, through an application of its own: a Shared Signals transmitter to subscribe to.
    const ssfApp = await createOidcApp(svc, projectB, { authMethod: 'client_secret_basic', settings: { ssfReceiver: true } });
    const signalsIdp = await admin('POST', '/idps', {
      type: 'oidc',
      name: unique('ssf'),
      issuer: svc.url,
      clientId: ssfApp.clientId,
      clientSecret: ssfApp.clientSecret,
    });
    assert.equal(signalsIdp.status, 201, signalsIdp.text);
    const samlIdp = await admin('POST', '/idps', { type: 'saml', name: unique('saml'), metadataXml: idpMetadataXml() });
    assert.equal(samlIdp.status, 201, samlIdp.text);
    const domain = await admin('POST', '/domains', { domain: `${unique('victim')}.example` });
    assert.equal(domain.status, 201, domain.text);
    const external = await admin('POST', '/external-resources', {
      name: 'victim resource',
      issuer: 'https://as.example',
      resource: 'https://victim.example/mcp',
      scopes: ['files:read'],
      clientIdAtIssuer: 'victim-client',
      projectId: projectB.projectId,
    });
    assert.equal(external.status, 201, external.text);
    // A role and a grant of the victim's project, and a person not yet granted (the control grants them).
    const role = await admin('POST', `/projects/${projectB.projectId}/roles`, { key: 'victim-role' });
    assert.equal(role.status, 201, role.text);
    const grant = await admin('POST', `/projects/${projectB.projectId}/grants`, { userId: human.userId, roles: ['victim-role'] });
    assert.equal(grant.status, 201, grant.text);
    const grantee = await admin('POST', '/users/human', {
      userName: unique('grantee'),
      profile: { firstName: 'Gran', lastName: 'Tee' },
      email: { email: `${unique('grantee')}@example.com` },
    });
    assert.equal(grantee.status, 201, grantee.text);
    // SCIM's Groups/:id gets a group of its own: the control below deletes through both APIs.
    victim = {
      orgId: orgB.id,
      projectId: projectB.projectId,
      appId: app.appId,
      userId: machine.userId,
      id: human.userId,
      inviteeId: (
        await admin('POST', '/users/human', {
          userName: unique('invitee'),
          profile: { firstName: 'In', lastName: 'Vitee' },
          email: { email: `${unique('invitee')}@example.com` },
        })
      ).body.userId,
      factorId: factor.id,
      groupId: await group(),
      scimGroupId: await group(),
      streamId: stream.body.id,
      directoryId: directory.body.id,
      syncId: sync.body.syncId,
      // Instance routes are refused before any id is read: any value fills their paths.
      migrationId: unique('migration'),
      webhookId: webhook.body.id,
      targetId: target.body.id,
      kind: 'user',
      localId: human.userId,
      idpId,
      linkIdpId: await idp(),
      samlIdpId: samlIdp.body.id,
      signalsIdpId: signalsIdp.body.id,
      domain: domain.body.domain,
      subject: 'victim-subject',
      emptyProjectId: emptyProject.projectId,
      secretAppId: secretApp.appId,
      appKeyId: appKey.body.keyId,
      keyId: machineKey.body.keyId,
      tokenId: pat.body.tokenId,
      sessionId: session.sessionId,
      sessionUserId: sessionUser.userId,
      agentUserId: agentUser.userId,
      clientId: agent.clientId,
      registeredClientId: registered.body.client_id,
      key: 'victim-role',
      grantId: grant.body.grantId,
      granteeId: grantee.body.userId,
      externalResourceId: external.body.id,
    };

    const routes = declaredRoutes(svc).filter((r) => r.policy && !r.policy.public);
    orgRoutes = routes.filter((r) => r.policy!.public !== true && 'scope' in r.policy! && r.policy!.scope === 'org');
    instanceRoutes = routes.filter((r) => r.policy!.public !== true && 'scope' in r.policy! && r.policy!.scope === 'instance');
  });
  after(async () => {
    await peer?.close();
  });

  async function call(route: DeclaredRoute, ids: Record<string, string>, token: string) {
    const body = validBody(route, ids);
    const filled = route.path.includes('/Groups/:id')
      ? { ...ids, id: ids.scimGroupId }
      : route.path.endsWith('/idps/:idpId/test')
        ? { ...ids, idpId: ids.samlIdpId }
        : route.path.endsWith('/idps/:idpId/signals')
          ? { ...ids, idpId: ids.signalsIdpId }
          : route.path.includes('/webhooks/:id')
            ? { ...ids, id: ids.webhookId }
            : route.path.includes('/registered-clients/')
              ? { ...ids, clientId: ids.registeredClientId }
              : route.path.includes('/users/:userId/agents')
                ? { ...ids, userId: ids.agentUserId } // a person who allowed an agent client
                : route.path.includes('/sessions')
                  ? { ...ids, userId: ids.sessionUserId } // a person signed in once, whom no other route of the control signs out
                  : /\/(invite|email\/verify|password\/reset)$/.test(route.path)
                    ? { ...ids, userId: ids.inviteeId } // a person who stays active and unverified (the control deactivates the other)
                    : /\/factors|\/identities|\/(deactivate|reactivate|unlock|password)$/.test(route.path)
                      ? { ...ids, userId: ids.id } // the human: factors, identities, state and password are a person's
                      : route.path.endsWith('/projects/:projectId')
                        ? { ...ids, projectId: ids.emptyProjectId }
                        : route.path.endsWith('/apps/:appId/secret')
                          ? { ...ids, appId: ids.secretAppId } // the API app signs with keys: it has no secret to renew
                          : route.path.includes('/apps/:appId/keys/:keyId')
                            ? { ...ids, keyId: ids.appKeyId }
                            : ids;
    return svc.api(route.method, fillPath(route.path, filled), { token, ...(body === undefined ? {} : { body }) });
  }

  it('finds the organization-scoped routes of the management API and SCIM, and the instance routes', () => {
    const paths = orgRoutes.map((r) => r.path);
    assert.ok(paths.some((p) => p.startsWith('/management/v1/orgs/:orgId/')));
    assert.ok(paths.some((p) => p.startsWith('/scim/v2/:orgId/')));
    assert.ok(orgRoutes.length >= 15, `${orgRoutes.length} organization routes`);
    assert.ok(instanceRoutes.some((r) => r.path === '/admin/v1/import') && instanceRoutes.some((r) => r.path === '/admin/v1/events/_search'));
  });

  it("another organization's id in the path: 404 on every route, nothing changes", async () => {
    const leaks: string[] = [];
    for (const route of orgRoutes) {
      const before = await databaseState(svc);
      const res = await call(route, victim, attacker.token);
      if (res.status !== 404) leaks.push(`${route.method} ${route.path} → ${res.status} ${res.text.slice(0, 200)}`);
      if ((await databaseState(svc)) !== before) leaks.push(`${route.method} ${route.path} changed the database`);
    }
    assert.deepEqual(leaks, []);
  });

  it("the caller's own organization with another organization's resource ids: 404, nothing changes", async () => {
    const leaks: string[] = [];
    const withForeignIds = orgRoutes.filter((r) => /:(?!orgId)\w+/.test(r.path));
    assert.ok(withForeignIds.length >= 8);
    for (const route of withForeignIds) {
      const ids: Record<string, string> = { ...victim, orgId: attacker.orgId };
      // A project of the caller's own org with the victim's app id is the sharper test for apps/:appId.
      if (route.path.includes(':appId')) ids.projectId = ownIds.projectId;
      const before = await databaseState(svc);
      const res = await call(route, ids, attacker.token);
      if (res.status !== 404) leaks.push(`${route.method} ${fillPath(route.path, ids)} → ${res.status} ${res.text.slice(0, 200)}`);
      if ((await databaseState(svc)) !== before) leaks.push(`${route.method} ${route.path} changed the database`);
    }
    assert.deepEqual(leaks, []);
  });

  it('instance routes (orgs, members, features, events, import, keys) answer 403 to an organization owner, nothing changes', async () => {
    const leaks: string[] = [];
    for (const route of instanceRoutes) {
      const before = await databaseState(svc);
      const res = await svc.api(route.method, fillPath(route.path, victim), { token: attacker.token, ...(route.method === 'GET' ? {} : { body: {} }) });
      if (res.status !== 403) leaks.push(`${route.method} ${route.path} → ${res.status}`);
      if ((await databaseState(svc)) !== before) leaks.push(`${route.method} ${route.path} changed the database`);
    }
    assert.deepEqual(leaks, []);
  });

  // The control: the same requests, made by the instance administrator, succeed — so the refusals
  // above come from the access checks, not from requests that could never have worked.
  it("the same requests succeed for the instance administrator on the victim's organization", async () => {
    const failures: string[] = [];
    // Deletes last, a member before its group (the longer path first).
    const deletesLast = [...orgRoutes].sort(
      (a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE') || (a.method === 'DELETE' ? b.path.length - a.path.length : 0),
    );
    for (const route of deletesLast) {
      const res = await call(route, victim, svc.adminToken);
      if (res.status >= 300) failures.push(`${route.method} ${route.path} → ${res.status} ${res.text.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
  });
});
