import type { TestService } from '../../support/service.js';
import { postForm } from '../../oidc/support/oidc-fixtures.js';
import { EXCHANGE } from './parties.js';
import type { Caller, Target, World } from './parties.js';

/** What an operation answered: the HTTP status, a Bulk operation's status, or an OAuth error code. */
export type Outcome = string;

export interface Operation {
  name: string;
  /** The routes of the route inventory (`METHOD path`) this operation exercises. */
  routes: string[];
  run(svc: TestService, world: World, caller: Caller, target: Target): Promise<Outcome>;
}

const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

async function api(svc: TestService, caller: Caller, method: string, path: string, body?: unknown): Promise<Outcome> {
  return String((await svc.api(method, path, { token: caller.apiToken, body })).status);
}

/** The status of the single operation of a Bulk request (RFC 7644 §3.7.3), or the request's own status. */
async function bulk(svc: TestService, world: World, caller: Caller, operation: Record<string, unknown>): Promise<Outcome> {
  const res = await svc.api('POST', `/scim/v2/${world.org.id}/Bulk`, { token: caller.apiToken, body: { schemas: [BULK], Operations: [operation] } });
  return res.status === 200 ? `bulk ${res.body.Operations[0].status}` : String(res.status);
}

const management = (world: World, target: Target, tail: string) => `/management/v1/orgs/${world.org.id}/users/${target.userId}/${tail}`;
const managedUser = (world: World, target: Target) => `/management/v1/orgs/${world.org.id}/users/${target.userId}`;
const scimUser = (world: World, target: Target) => `/scim/v2/${world.org.id}/Users/${target.userId}`;
const patch = (operations: object[]) => ({ schemas: [PATCH_OP], Operations: operations });

/**
 * Every operation that acts on an existing user (SECURITY.md, "Who may act on whom"), as its real client
 * sends it. Each is run by every caller on every target; the answers form the reviewed table.
 */
export const OPERATIONS: Operation[] = [
  {
    name: 'management: issue a machine secret',
    routes: ['POST /management/v1/orgs/:orgId/users/:userId/secret'],
    run: (svc, world, caller, target) => api(svc, caller, 'POST', management(world, target, 'secret'), {}),
  },
  {
    name: 'management: add a machine key',
    routes: ['POST /management/v1/orgs/:orgId/users/:userId/keys'],
    run: (svc, world, caller, target) => api(svc, caller, 'POST', management(world, target, 'keys'), {}),
  },
  {
    name: 'management: add a personal access token',
    routes: ['POST /management/v1/orgs/:orgId/users/:userId/pats'],
    run: (svc, world, caller, target) => api(svc, caller, 'POST', management(world, target, 'pats'), {}),
  },
  {
    name: "management: read the user's effective grants",
    routes: ['GET /management/v1/orgs/:orgId/users/:userId/grants'],
    run: (svc, world, caller, target) => api(svc, caller, 'GET', management(world, target, 'grants')),
  },
  {
    name: "management: list the user's factors",
    routes: ['GET /management/v1/orgs/:orgId/users/:userId/factors'],
    run: (svc, world, caller, target) => api(svc, caller, 'GET', management(world, target, 'factors')),
  },
  {
    name: 'management: remove a factor',
    routes: ['DELETE /management/v1/orgs/:orgId/users/:userId/factors/:factorId'],
    // Machines have no factors: where the caller may act on one, the answer is 404.
    run: (svc, world, caller, target) => api(svc, caller, 'DELETE', management(world, target, `factors/${target.factorId ?? 'none'}`)),
  },
  // Linked upstream identities (docs/federation.md): the acting rule, and for a user holding any role, IAM_OWNER only.
  {
    name: "management: list the user's linked identities",
    routes: ['GET /management/v1/orgs/:orgId/users/:userId/identities'],
    run: (svc, world, caller, target) => api(svc, caller, 'GET', management(world, target, 'identities')),
  },
  {
    name: 'management: link an upstream identity',
    routes: ['POST /management/v1/orgs/:orgId/users/:userId/identities'],
    // Machines sign in with no IdP: where the caller may act on one, the answer is 400.
    run: (svc, world, caller, target) =>
      api(svc, caller, 'POST', management(world, target, 'identities'), { idpId: world.idpId, subject: `${target.userId}-${caller.name}` }),
  },
  {
    name: 'management: unlink an upstream identity',
    routes: ['DELETE /management/v1/orgs/:orgId/users/:userId/identities/:idpId/:subject'],
    // No target has an identity to start with: where the caller may act on it, the answer is 404.
    run: (svc, world, caller, target) => api(svc, caller, 'DELETE', management(world, target, `identities/${world.idpId}/none`)),
  },
  // Read, change and delete users (docs/product-rules.md, "API"): every act on a user of that table.
  {
    name: 'management: change the user (PATCH)',
    routes: ['PATCH /management/v1/orgs/:orgId/users/:userId'],
    run: (svc, world, caller, target) =>
      api(svc, caller, 'PATCH', managedUser(world, target), target.name.startsWith('human') ? { profile: { firstName: 'Mallory' } } : { name: 'Mallory' }),
  },
  {
    name: 'management: delete the user',
    routes: ['DELETE /management/v1/orgs/:orgId/users/:userId'],
    run: (svc, world, caller, target) => api(svc, caller, 'DELETE', managedUser(world, target)),
  },
  {
    name: 'management: deactivate',
    routes: ['POST /management/v1/orgs/:orgId/users/:userId/deactivate'],
    run: (svc, world, caller, target) => api(svc, caller, 'POST', management(world, target, 'deactivate'), {}),
  },
  {
    name: 'management: reactivate',
    routes: ['POST /management/v1/orgs/:orgId/users/:userId/reactivate'],
    // The targets are active: where the caller may act, the answer is 200 and nothing changes.
    run: (svc, world, caller, target) => api(svc, caller, 'POST', management(world, target, 'reactivate'), {}),
  },
  {
    name: 'management: unlock',
    routes: ['POST /management/v1/orgs/:orgId/users/:userId/unlock'],
    run: (svc, world, caller, target) => api(svc, caller, 'POST', management(world, target, 'unlock'), {}),
  },
  {
    name: 'management: set the password',
    routes: ['PUT /management/v1/orgs/:orgId/users/:userId/password'],
    // Machines have no password: where the caller may act on one, the answer is 400.
    run: (svc, world, caller, target) => api(svc, caller, 'PUT', management(world, target, 'password'), { password: 'Attacker-Chosen-9' }),
  },
  {
    name: 'management: invite (mail a link to set the password)',
    routes: ['POST /management/v1/orgs/:orgId/users/:userId/invite'],
    // Machines have no mailbox: where the caller may act on one, the answer is 409.
    run: (svc, world, caller, target) => api(svc, caller, 'POST', management(world, target, 'invite'), {}),
  },
  {
    name: 'management: mail a password reset link',
    routes: ['POST /management/v1/orgs/:orgId/users/:userId/password/reset'],
    // Machines have no password: where the caller may act on one, the answer is 409.
    run: (svc, world, caller, target) => api(svc, caller, 'POST', management(world, target, 'password/reset'), {}),
  },
  {
    name: 'management: mail a link that verifies the e-mail address',
    routes: ['POST /management/v1/orgs/:orgId/users/:userId/email/verify'],
    // The human targets' addresses are verified already, and machines have none: where the caller may act, 409.
    run: (svc, world, caller, target) => api(svc, caller, 'POST', management(world, target, 'email/verify'), {}),
  },
  {
    name: 'management: end a session of the user',
    routes: ['DELETE /management/v1/orgs/:orgId/users/:userId/sessions/:sessionId'],
    // No target has a session: where the caller may act on it, the answer is 404.
    run: (svc, world, caller, target) => api(svc, caller, 'DELETE', management(world, target, 'sessions/none')),
  },
  {
    name: "management: revoke the user's consent to an agent client",
    routes: ['DELETE /management/v1/orgs/:orgId/users/:userId/agents/:clientId'],
    // No target connected an agent: where the caller may act on it, the answer is 404.
    run: (svc, world, caller, target) => api(svc, caller, 'DELETE', management(world, target, 'agents/none')),
  },
  {
    name: 'management: remove the machine secret',
    routes: ['DELETE /management/v1/orgs/:orgId/users/:userId/secret'],
    // The targets have no secret: where the caller may act, 404 for machines and 400 for humans.
    run: (svc, world, caller, target) => api(svc, caller, 'DELETE', management(world, target, 'secret')),
  },
  {
    name: 'management: remove a machine key',
    routes: ['DELETE /management/v1/orgs/:orgId/users/:userId/keys/:keyId'],
    run: (svc, world, caller, target) => api(svc, caller, 'DELETE', management(world, target, 'keys/none')),
  },
  {
    name: 'management: remove a personal access token',
    routes: ['DELETE /management/v1/orgs/:orgId/users/:userId/pats/:tokenId'],
    run: (svc, world, caller, target) => api(svc, caller, 'DELETE', management(world, target, 'pats/none')),
  },
  {
    name: 'management: set organization roles',
    routes: ['PUT /management/v1/orgs/:orgId/members/:userId'],
    run: (svc, world, caller, target) =>
      api(svc, caller, 'PUT', `/management/v1/orgs/${world.org.id}/members/${target.userId}`, { roles: ['ORG_USER_MANAGER'] }),
  },
  {
    name: 'management: add to a group',
    routes: ['PUT /management/v1/orgs/:orgId/groups/:groupId/members/:userId'],
    run: (svc, world, caller, target) => api(svc, caller, 'PUT', `/management/v1/orgs/${world.org.id}/groups/${world.groups.empty}/members/${target.userId}`),
  },
  {
    name: 'management: remove from a group',
    routes: ['DELETE /management/v1/orgs/:orgId/groups/:groupId/members/:userId'],
    run: (svc, world, caller, target) =>
      api(svc, caller, 'DELETE', `/management/v1/orgs/${world.org.id}/groups/${world.groups.joined}/members/${target.userId}`),
  },
  // A group that holds a project grant (docs/application-access.md, "Groups that hold a grant"): a human
  // ORG_USER_MANAGER ('app with apiAccess') is refused even where it may act on the target.
  {
    name: 'management: add to a group that holds a grant',
    routes: ['PUT /management/v1/orgs/:orgId/groups/:groupId/members/:userId'],
    run: (svc, world, caller, target) =>
      api(svc, caller, 'PUT', `/management/v1/orgs/${world.org.id}/groups/${world.groups.grantEmpty}/members/${target.userId}`),
  },
  {
    name: 'management: remove from a group that holds a grant',
    routes: ['DELETE /management/v1/orgs/:orgId/groups/:groupId/members/:userId'],
    run: (svc, world, caller, target) =>
      api(svc, caller, 'DELETE', `/management/v1/orgs/${world.org.id}/groups/${world.groups.grantJoined}/members/${target.userId}`),
  },
  {
    name: 'admin: make IAM_OWNER',
    routes: ['PUT /admin/v1/members/:userId'],
    run: (svc, _world, caller, target) => api(svc, caller, 'PUT', `/admin/v1/members/${target.userId}`, { roles: ['IAM_OWNER'] }),
  },
  {
    name: 'SCIM: replace the user (PUT)',
    routes: ['PUT /scim/v2/:orgId/Users/:id'],
    run: (svc, world, caller, target) =>
      api(svc, caller, 'PUT', scimUser(world, target), {
        schemas: [SCIM_USER],
        userName: target.userName,
        name: { givenName: 'Mallory', familyName: 'Changed' },
        active: true,
      }),
  },
  {
    name: 'SCIM: set the password (PATCH)',
    routes: ['PATCH /scim/v2/:orgId/Users/:id'],
    run: (svc, world, caller, target) =>
      api(svc, caller, 'PATCH', scimUser(world, target), patch([{ op: 'replace', path: 'password', value: 'Attacker-Chosen-9' }])),
  },
  {
    name: 'SCIM: deactivate (PATCH active)',
    routes: ['PATCH /scim/v2/:orgId/Users/:id'],
    run: (svc, world, caller, target) => api(svc, caller, 'PATCH', scimUser(world, target), patch([{ op: 'replace', value: { active: false } }])),
  },
  {
    name: 'SCIM: delete the user',
    routes: ['DELETE /scim/v2/:orgId/Users/:id'],
    run: (svc, world, caller, target) => api(svc, caller, 'DELETE', scimUser(world, target)),
  },
  {
    name: 'SCIM: add to a group (PATCH members)',
    routes: ['PATCH /scim/v2/:orgId/Groups/:id'],
    run: (svc, world, caller, target) =>
      api(
        svc,
        caller,
        'PATCH',
        `/scim/v2/${world.org.id}/Groups/${world.groups.empty}`,
        patch([{ op: 'Add', path: 'members', value: [{ value: target.userId }] }]),
      ),
  },
  {
    name: 'SCIM: remove from a group (PATCH members[value eq])',
    routes: ['PATCH /scim/v2/:orgId/Groups/:id'],
    run: (svc, world, caller, target) =>
      api(
        svc,
        caller,
        'PATCH',
        `/scim/v2/${world.org.id}/Groups/${world.groups.joined}`,
        patch([{ op: 'remove', path: `members[value eq "${target.userId}"]` }]),
      ),
  },
  {
    name: 'SCIM: add to a group that holds a grant (PATCH members)',
    routes: ['PATCH /scim/v2/:orgId/Groups/:id'],
    run: (svc, world, caller, target) =>
      api(
        svc,
        caller,
        'PATCH',
        `/scim/v2/${world.org.id}/Groups/${world.groups.grantEmpty}`,
        patch([{ op: 'Add', path: 'members', value: [{ value: target.userId }] }]),
      ),
  },
  {
    name: 'SCIM: remove from a group that holds a grant (PATCH members[value eq])',
    routes: ['PATCH /scim/v2/:orgId/Groups/:id'],
    run: (svc, world, caller, target) =>
      api(
        svc,
        caller,
        'PATCH',
        `/scim/v2/${world.org.id}/Groups/${world.groups.grantJoined}`,
        patch([{ op: 'remove', path: `members[value eq "${target.userId}"]` }]),
      ),
  },
  {
    name: 'SCIM: create a group with the user as member',
    routes: ['POST /scim/v2/:orgId/Groups'],
    run: (svc, world, caller, target) =>
      api(svc, caller, 'POST', `/scim/v2/${world.org.id}/Groups`, {
        schemas: [GROUP],
        displayName: `matrix ${target.userId} ${caller.name}`,
        members: [{ value: target.userId }],
      }),
  },
  {
    name: "SCIM: replace a group's members (PUT)",
    routes: ['PUT /scim/v2/:orgId/Groups/:id'],
    run: async (svc, world, caller, target) => {
      // A fresh empty group each time: a PUT also removes the members it does not list.
      const displayName = `matrix put ${target.userId} ${caller.name}`;
      const created = await svc.api('POST', `/scim/v2/${world.org.id}/Groups`, { token: svc.adminToken, body: { schemas: [GROUP], displayName } });
      return api(svc, caller, 'PUT', `/scim/v2/${world.org.id}/Groups/${created.body.id}`, {
        schemas: [GROUP],
        displayName,
        members: [{ value: target.userId }],
      });
    },
  },
  {
    name: 'SCIM Bulk: set the password',
    routes: ['POST /scim/v2/:orgId/Bulk'],
    run: (svc, world, caller, target) =>
      bulk(svc, world, caller, {
        method: 'PATCH',
        path: `/Users/${target.userId}`,
        data: patch([{ op: 'replace', path: 'password', value: 'Attacker-Chosen-9' }]),
      }),
  },
  {
    name: 'SCIM Bulk: delete the user',
    routes: ['POST /scim/v2/:orgId/Bulk'],
    run: (svc, world, caller, target) => bulk(svc, world, caller, { method: 'DELETE', path: `/Users/${target.userId}` }),
  },
  {
    name: 'SCIM Bulk: add to a group that holds a grant',
    routes: ['POST /scim/v2/:orgId/Bulk'],
    run: (svc, world, caller, target) =>
      bulk(svc, world, caller, {
        method: 'PATCH',
        path: `/Groups/${world.groups.grantEmpty}`,
        data: patch([{ op: 'add', path: 'members', value: [{ value: target.userId }] }]),
      }),
  },
  {
    name: 'OAuth: impersonate (token exchange with an actor)',
    // The token endpoint's other grants are classified in GRANTS below.
    routes: ['POST /oauth/v2/token'],
    run: async (svc, world, caller, target) => {
      const form: Record<string, string> = {
        grant_type: EXCHANGE,
        subject_token: target.userId,
        subject_token_type: 'urn:portcullis:params:oauth:token-type:user_id',
        scope: 'openid',
      };
      if (caller.actorToken) Object.assign(form, { actor_token: caller.actorToken, actor_token_type: 'urn:ietf:params:oauth:token-type:access_token' });
      const res = await postForm(svc, '/oauth/v2/token', form, { id: world.exchangeApp.clientId, secret: world.exchangeApp.clientSecret! });
      return res.status === 200 ? '200' : String(res.body?.error ?? res.status);
    },
  },
  // Removing roles (docs/product-rules.md, "Changing and removing resources"): 404 where the target has none there.
  {
    name: 'management: remove organization roles',
    routes: ['DELETE /management/v1/orgs/:orgId/members/:userId'],
    run: (svc, world, caller, target) => api(svc, caller, 'DELETE', `/management/v1/orgs/${world.org.id}/members/${target.userId}`),
  },
  {
    name: 'admin: remove instance roles',
    routes: ['DELETE /admin/v1/members/:userId'],
    run: (svc, _world, caller, target) => api(svc, caller, 'DELETE', `/admin/v1/members/${target.userId}`),
  },
];

/**
 * Routes that act on no existing user, each with why; their role checks are the route policies
 * (route-policies.snapshot.json). A route in neither list fails the matrix test: classify it.
 */
export const NOT_ACTING_ON_A_USER: Record<string, string> = {
  'ALL /scim/v2/:orgId/,*path': 'answers 404 for the bare base and unknown SCIM paths',
  'ALL /scim/v2/:orgId/.search': 'answers 501: no search across resource types',
  'ALL /scim/v2/:orgId/Bulk': 'answers 405 for other methods',
  'ALL /scim/v2/:orgId/ServiceProviderConfig,Schemas,Schemas/:id,ResourceTypes,ResourceTypes/:name': 'answers 405 for other methods',
  'ALL /scim/v2/:orgId/Users': 'answers 405 with Allow for other methods',
  'ALL /scim/v2/:orgId/Users/.search': 'answers 405 with Allow for other methods',
  'ALL /scim/v2/:orgId/Users/:id': 'answers 405 with Allow for other methods',
  'GET /admin/v1/features': 'reads instance settings',
  'GET /admin/v1/settings': "reads the instance's settings (IAM_OWNER only)",
  'GET /auth/v1/users/me': "reads the caller's own id, organization and roles",
  'GET /admin/v1/orgs': 'reads organizations',
  'GET /healthz': 'health',
  'GET /scim/v2/:orgId/Groups': 'reads groups',
  'GET /scim/v2/:orgId/ResourceTypes': 'discovery',
  'GET /scim/v2/:orgId/ResourceTypes/:name': 'discovery',
  'GET /scim/v2/:orgId/Schemas': 'discovery',
  'GET /scim/v2/:orgId/Schemas/:id': 'discovery',
  'GET /scim/v2/:orgId/ServiceProviderConfig': 'discovery',
  'GET /scim/v2/:orgId/Users': 'reads users (reading is not acting)',
  'GET /management/v1/orgs/:orgId/users/:userId/sessions': "reads a user's sessions by their public ids (reading is not acting)",
  'GET /management/v1/orgs/:orgId/users/:userId/agents': "reads a user's connected agents (reading is not acting)",
  'GET /management/v1/orgs/:orgId/agents': "reads the organization's people's connected agents (reading is not acting)",
  'GET /scim/v2/:orgId/Users/:id': 'reads a user (reading is not acting)',
  'POST /scim/v2/:orgId/Users/.search': 'reads users (reading is not acting)',
  'POST /admin/v1/events/_search': 'reads events',
  'POST /admin/v1/import': 'creates users and refuses existing ids (IAM_OWNER only)',
  'POST /admin/v1/migrations': "moves an export's users and groups in, refusing taken ids and names (IAM_OWNER only)",
  'GET /admin/v1/migrations': 'reads the reports of migration runs (IAM_OWNER only)',
  'GET /admin/v1/migrations/:migrationId': 'reads the report of a migration run (IAM_OWNER only)',
  'POST /admin/v1/keys/rotate': 'rotates signing keys',
  'POST /admin/v1/saml/keys/rotate': 'rotates the SAML signing key',
  'GET /management/v1/orgs/:orgId/login-policy': "reads the organization's login policy",
  'PUT /management/v1/orgs/:orgId/login-policy': "changes the organization's login policy",
  'POST /management/v1/orgs/:orgId/agent-registration-tokens': 'issues an initial access token for agent registration (acts on no user)',
  'GET /management/v1/orgs/:orgId/registered-clients': 'reads the clients registered to the organization (acts on no user)',
  'DELETE /management/v1/orgs/:orgId/registered-clients/:clientId': 'removes a client registered to the organization (acts on no user)',
  'GET /admin/v1/registered-clients/unbound': 'reads the openly registered clients no organization holds yet (acts on no user)',
  'DELETE /admin/v1/registered-clients/unbound': 'removes every openly registered client no organization holds yet (acts on no user)',
  'DELETE /admin/v1/registered-clients/unbound/:clientId': 'removes an openly registered client no organization holds yet (acts on no user)',
  'POST /admin/v1/orgs': 'creates an organization',
  'PUT /admin/v1/features': 'changes instance settings',
  'PATCH /admin/v1/settings': "changes the instance's settings (IAM_OWNER only)",
  'POST /management/v1/orgs/:orgId/projects': 'creates a project',
  'POST /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/keys': 'adds an application key',
  'POST /management/v1/orgs/:orgId/projects/:projectId/apps/api': 'creates an application',
  'POST /management/v1/orgs/:orgId/projects/:projectId/apps/oidc':
    'creates an application (apiAccess only by an IAM_OWNER, ssfReceiver only by an ORG_OWNER of its organization)',
  'POST /management/v1/orgs/:orgId/projects/:projectId/apps/saml': 'creates a SAML application',
  'POST /management/v1/orgs/:orgId/users/human': 'creates a user without roles',
  'POST /management/v1/orgs/:orgId/users/machine': 'creates a user without roles',
  'POST /scim/v2/:orgId/Users': 'creates a user without roles',
  'GET /management/v1/orgs/:orgId/users': 'reads users (reading is not acting)',
  'GET /management/v1/orgs/:orgId/users/:userId': 'reads a user (reading is not acting)',
  'GET /management/v1/orgs/:orgId/users/:userId/keys': "reads when a machine's keys were made and expire (reading is not acting)",
  'GET /management/v1/orgs/:orgId/users/:userId/pats': "reads when a machine's tokens were made and expire (reading is not acting)",
  'GET /management/v1/orgs/:orgId/groups': 'reads groups',
  'GET /management/v1/orgs/:orgId/groups/:groupId/members': "reads a group's members (reading is not acting)",
  'GET /scim/v2/:orgId/Groups/:id': 'reads a group',
  'POST /scim/v2/:orgId/Groups/.search': 'reads groups',
  'DELETE /scim/v2/:orgId/Groups/:id': 'removes a group; its members lose a membership that confers no role (docs/product-rules.md, "Groups")',
  'ALL /scim/v2/:orgId/Groups': 'answers 405 with Allow for other methods',
  'ALL /scim/v2/:orgId/Groups/.search': 'answers 405 with Allow for other methods',
  'ALL /scim/v2/:orgId/Groups/:id': 'answers 405 with Allow for other methods',
  'POST /management/v1/orgs/:orgId/groups': 'creates a group without members',
  // Application access (docs/product-rules.md, "Application access"), ORG_OWNER only. The weakest caller, an
  // ORG_OWNER, can admit any user or group of its own organization to its own projects' applications, shut them out,
  // or give them its projects' roles — what the routes are for; no credential, state or Portcullis role of a user
  // changes, and a user or group of another organization is 404.
  'POST /management/v1/orgs/:orgId/projects/:projectId/roles': "adds a project role (no user's Portcullis roles change)",
  'GET /management/v1/orgs/:orgId/projects/:projectId/roles': "reads a project's roles",
  'PATCH /management/v1/orgs/:orgId/projects/:projectId/roles/:key': "changes a project role's display name or description",
  'DELETE /management/v1/orgs/:orgId/projects/:projectId/roles/:key': 'removes a project role from the project and its grants',
  'POST /management/v1/orgs/:orgId/projects/:projectId/grants':
    "admits a user or group to the project's applications (no credential or Portcullis role changes)",
  'GET /management/v1/orgs/:orgId/projects/:projectId/grants': "reads a project's grants",
  'PATCH /management/v1/orgs/:orgId/projects/:projectId/grants/:grantId': "changes a grant's project roles",
  'DELETE /management/v1/orgs/:orgId/projects/:projectId/grants/:grantId': "removes a grant (the user's applications of the project may refuse it)",
  'DELETE /management/v1/orgs/:orgId/groups/:groupId': 'removes a group; its members lose a membership that confers no role (docs/product-rules.md, "Groups")',
  'POST /admin/v1/webhooks': 'subscribes to events (reading is not acting)',
  'GET /admin/v1/webhooks': 'reads webhook subscriptions',
  'DELETE /admin/v1/webhooks/:id': 'removes a webhook subscription',
  'GET /admin/v1/webhooks/:id/deliveries': "reads a subscription's delivery log",
  // Audit streams (docs/audit-and-signals.md): a receiver gets copies of the event log; no user is changed.
  'POST /admin/v1/audit-streams': 'streams audit records to a receiver (reading is not acting)',
  'GET /admin/v1/audit-streams': 'reads audit streams (never their secrets)',
  'GET /admin/v1/audit-streams/:streamId': 'reads an audit stream (never its secret)',
  'PATCH /admin/v1/audit-streams/:streamId': 'changes where an audit stream sends (no user is changed)',
  'DELETE /admin/v1/audit-streams/:streamId': 'removes an audit stream',
  // The weakest caller, an ORG_OWNER of the organization (docs/federation.md, "Organization domains"): POST can add a
  // domain it does not control, which stays unverified, leads no login name anywhere and holds the name until an
  // IAM_OWNER removes it; GET shows its own organization's domains and challenges (published by design); verify
  // without the published challenge is 409 (only an IAM_OWNER vouches); DELETE reaches its own organization's added
  // domains only, never the primary one nor one its IdPs claim.
  'POST /management/v1/orgs/:orgId/domains': 'adds a domain of the organization (unverified; no user is changed)',
  'GET /management/v1/orgs/:orgId/domains': 'reads the organization’s domains',
  'POST /management/v1/orgs/:orgId/domains/:domain/verify': 'verifies a domain by its published challenge (an IAM_OWNER vouches without one)',
  'DELETE /management/v1/orgs/:orgId/domains/:domain': 'removes a domain no IdP claims (no user is changed)',
  // The weakest caller, an ORG_OWNER of the organization (docs/agents.md, "Enterprise-managed authorization"): it can
  // name another authorization server its own people get ID-JAGs for, and only for the people granted in one of its
  // own projects (whom it admits itself); no user, credential or role changes, and the ID-JAG still needs the person's
  // own sign-in.
  'POST /management/v1/orgs/:orgId/external-resources': 'adds an external resource (no user is changed; ID-JAGs need the person’s sign-in)',
  'GET /management/v1/orgs/:orgId/external-resources': 'reads the organization’s external resources',
  'DELETE /management/v1/orgs/:orgId/external-resources/:externalResourceId': 'removes an external resource (no user is changed)',
  'POST /management/v1/orgs/:orgId/idps': 'adds an identity provider (linking identities is an operation above)',
  'GET /management/v1/orgs/:orgId/idps': 'reads identity providers',
  'GET /management/v1/orgs/:orgId/idps/:idpId': 'reads an identity provider',
  'PATCH /management/v1/orgs/:orgId/idps/:idpId': 'changes an identity provider',
  'DELETE /management/v1/orgs/:orgId/idps/:idpId': 'removes an identity provider and the links through it (no user is changed)',
  'POST /management/v1/orgs/:orgId/idps/:idpId/test': 'starts a test sign-in through an identity provider (a dry run: no user is changed, no session made)',
  'POST /management/v1/orgs/:orgId/directories': 'adds an LDAP or Active Directory directory (its users arrive by its sync)',
  'GET /management/v1/orgs/:orgId/directories': 'reads directories',
  'GET /management/v1/orgs/:orgId/directories/:directoryId': 'reads a directory',
  'PATCH /management/v1/orgs/:orgId/directories/:directoryId': 'changes a directory',
  'DELETE /management/v1/orgs/:orgId/directories/:directoryId':
    'removes a directory; its users stay as local users, each deactivated only where the remover may act on it (the acting rule)',
  'POST /management/v1/orgs/:orgId/directories/:directoryId/test': 'tests the connection to a directory (reads, changes nothing)',
  'POST /management/v1/orgs/:orgId/directories/:directoryId/sync':
    "starts a directory's sync; the users it changes are the directory's own, changed by the system, never a user who holds a role linked by name",
  'GET /management/v1/orgs/:orgId/directories/:directoryId/syncs': "reads a directory's syncs",
  'GET /management/v1/orgs/:orgId/directories/:directoryId/syncs/:syncId': "reads a directory's sync",
  'GET /admin/v1/directory-hosts': 'reads the hosts directories may reach',
  'PUT /admin/v1/directory-hosts': 'sets the hosts directories may reach',
  'GET /admin/v1/branding': "reads the instance's brand (test/branding/branding-api.test.ts: privilege rows)",
  'PUT /admin/v1/branding': "sets the instance's brand",
  'GET /admin/v1/branding/text-keys': 'lists the text keys a brand may override and their English text (shipped with the product)',
  'GET /management/v1/orgs/:orgId/branding': "reads an organization's brand",
  'PUT /management/v1/orgs/:orgId/branding': "sets an organization's brand",
  'DELETE /management/v1/orgs/:orgId/branding': "removes an organization's brand",
  'POST /management/v1/orgs/:orgId/branding/preview':
    "previews a draft of an organization's brand (test/branding/branding-preview.test.ts: privilege rows); the role that sets it, since it shows nothing a PUT could not, applies nothing, and its link's pages post nowhere",
  'GET /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/branding': "reads an application's brand",
  'PUT /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/branding': "sets an application's brand",
  'DELETE /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/branding': "removes an application's brand",
  'POST /management/v1/orgs/:orgId/webhooks': "subscribes to the organization's events (reading is not acting)",
  'GET /management/v1/orgs/:orgId/webhooks': 'reads webhook subscriptions',
  'DELETE /management/v1/orgs/:orgId/webhooks/:id': 'removes a webhook subscription',
  'GET /management/v1/orgs/:orgId/webhooks/:id/deliveries': "reads a subscription's delivery log",
  'POST /management/v1/orgs/:orgId/audit-streams': "streams the organization's audit records to a receiver (reading is not acting)",
  'GET /management/v1/orgs/:orgId/audit-streams': 'reads audit streams (never their secrets)',
  'GET /management/v1/orgs/:orgId/audit-streams/:streamId': 'reads an audit stream (never its secret)',
  'PATCH /management/v1/orgs/:orgId/audit-streams/:streamId': 'changes where an audit stream sends (no user is changed)',
  'DELETE /management/v1/orgs/:orgId/audit-streams/:streamId': 'removes an audit stream',
  'GET /.well-known/ssf-configuration': 'the Shared Signals transmitter configuration (public metadata)',
  'POST /ssf/v1/streams': 'a receiver application creates a stream of its own (a token of scope ssf.manage, or client authentication; it acts on no user)',
  'GET /ssf/v1/streams': 'a receiver application reads its own streams',
  'PATCH /ssf/v1/streams': 'a receiver application changes its own stream',
  'PUT /ssf/v1/streams': 'a receiver application replaces its own stream',
  'DELETE /ssf/v1/streams': 'a receiver application deletes its own stream',
  'GET /ssf/v1/streams/status': "a receiver application reads its own stream's status",
  'POST /ssf/v1/streams/status': 'a receiver application pauses, enables or disables its own stream',
  'POST /ssf/v1/streams/subjects/add': 'a receiver application adds a subject to its own stream (it hears of no one its application does not admit)',
  'POST /ssf/v1/streams/subjects/remove': 'a receiver application removes a subject from its own stream',
  'POST /ssf/v1/streams/verify': 'a receiver application asks for a verification event on its own stream',
  'POST /ssf/v1/poll/:streamId': "a receiver application polls its own stream's SETs (only of people its application admits)",
  'POST /ssf/v1/receive/:idpId':
    "an upstream IdP's SET ends a linked user's sessions or deactivates them: allowed by the subscription's push token and the IdP's signature, never by a caller's roles (docs/signals.md)",
  'PUT /management/v1/orgs/:orgId/idps/:idpId/signals': "subscribes to an identity provider's Shared Signals (no user is changed)",
  'GET /management/v1/orgs/:orgId/idps/:idpId/signals': "reads the subscription to an identity provider's Shared Signals",
  'DELETE /management/v1/orgs/:orgId/idps/:idpId/signals': "ends the subscription to an identity provider's Shared Signals",
  // Outbound SCIM (docs/provisioning.md): a target receives copies of users; no local user is changed.
  'POST /management/v1/orgs/:orgId/provisioning/targets': 'adds a provisioning target (pushing copies of users changes no local user)',
  'GET /management/v1/orgs/:orgId/provisioning/targets': 'reads provisioning targets (never their secrets)',
  'GET /management/v1/orgs/:orgId/provisioning/targets/:targetId': 'reads a provisioning target (never its secret)',
  'PATCH /management/v1/orgs/:orgId/provisioning/targets/:targetId': 'changes a provisioning target',
  'DELETE /management/v1/orgs/:orgId/provisioning/targets/:targetId': 'removes a provisioning target (the remote copies stay; no local user is changed)',
  'POST /management/v1/orgs/:orgId/provisioning/targets/:targetId/test': "reads a target's ServiceProviderConfig (changes nothing)",
  'GET /management/v1/orgs/:orgId/provisioning/targets/:targetId/status': "reads a target's state",
  'GET /management/v1/orgs/:orgId/provisioning/targets/:targetId/objects': "reads what a target knows of the organization's users and groups",
  'POST /management/v1/orgs/:orgId/provisioning/targets/:targetId/reconcile': "puts a target's copies of users right (or plans it); no local user is changed",
  'POST /management/v1/orgs/:orgId/provisioning/targets/:targetId/objects/:kind/:localId/retry':
    "pushes a user's copy to a target again; no local user is changed",
  'GET /.well-known/openid-configuration': 'discovery',
  'GET /.well-known/oauth-authorization-server': 'discovery (RFC 8414)',
  'GET /oauth/v2/keys': 'discovery (signing keys)',
  'GET /oauth/v2/authorize': "starts the end-user's own sign-in",
  'POST /oauth/v2/authorize': "starts the end-user's own sign-in",
  'GET /oauth/v2/authorize/:uid': "resumes the end-user's own sign-in",
  'POST /oauth/v2/par': "stores an authorization request for the end-user's own sign-in",
  'POST /oauth/v2/introspect': 'reads a token the client holds (reading is not acting)',
  'POST /oauth/v2/revoke': 'revokes a token the client holds',
  'GET /oidc/v1/userinfo': "reads the token holder's own claims",
  'POST /oidc/v1/userinfo': "reads the token holder's own claims",
  'GET /oidc/v1/end_session': "ends the end-user's own session",
  'POST /oidc/v1/end_session': "ends the end-user's own session",
  'POST /oidc/v1/end_session/confirm': "ends the end-user's own session",
  'GET /oidc/v1/end_session/success': 'a static page',
  // RFC 8628. The weakest attacker is anyone on the network: the device authorization endpoint needs an application
  // registered for the grant (unauthorized_client otherwise) and only starts a sign-in no one has approved; the user
  // code page only lets a signed-in user approve a code for themselves (a guessed code counts against the per-IP limit,
  // and the confirmation names the application and organization against relayed codes).
  'POST /oauth/v2/device_authorization': "starts a device's sign-in that the end-user must approve",
  'GET /ui/login/device': 'shows the user code form',
  'POST /ui/login/device': "approves or denies a device's sign-in as the end-user's own (sign-in follows)",
  'GET /ui/login/device/:uid': "finishes the end-user's own approval of a device",
  'GET /ui/login/:uid': 'shows the sign-in form',
  'POST /ui/login/:uid/login': 'signs the end-user in with their own password',
  'POST /ui/login/:uid/consent': "remembers the signed-in person's own consent to an agent client",
  'POST /ui/login/:uid/consent-deny': 'answers access_denied to the agent client and stores nothing',
  'POST /ui/login/:uid/select': "selects one of the browser's own accounts",
  // docs/directories.md, "Sign-in": only a directory that called the current password expired lets the new one through.
  'POST /ui/login/:uid/directory-password': "changes the end-user's own expired directory password with the current one",
  'POST /ui/login/:uid/register': 'creates a user without roles (self-registration)',
  // The second step acts only on the user whose first factor this interaction verified (or the
  // session's user for a step-up); a passkey sign-in on the user its credential belongs to.
  'POST /ui/login/:uid/code': "checks the signing-in user's own TOTP or recovery code",
  'POST /ui/login/:uid/passkey': "checks the signing-in user's own passkey (or signs its owner in)",
  'POST /ui/login/:uid/enrol/totp': 'starts a TOTP enrolment for the signing-in user',
  'POST /ui/login/:uid/enrol/totp/confirm': "confirms the signing-in user's new TOTP authenticator",
  'POST /ui/login/:uid/enrol/passkey': 'registers a passkey for the signing-in user',
  'POST /ui/login/:uid/enrol/skip': 'the signing-in user declines to enrol now',
  'POST /ui/login/:uid/continue': 'finishes the sign-in after the recovery codes were shown',
  // Federation (docs/federation.md): the user is whoever the organization's own IdP says, resolved by its link rules,
  // which never link a user who holds a role; the callback only records the upstream's answer on its round trip.
  'POST /ui/login/:uid/idp': "sends the end-user to one of the application's organization's identity providers",
  'GET /ui/login/idp/:idpId/callback': "records the upstream identity provider's answer on its round trip",
  'GET /ui/login/:uid/idp/continue': 'signs in the end-user the upstream identity provider vouched for (linked, matched without roles, or created)',
  'POST /ui/login/idp/:idpId/acs': "validates the SAML IdP's response for its round trip and records the identity on it",
  'GET /ui/login/idp/:idpId/metadata': "shows this SP's public metadata for a SAML IdP",
  'GET /ui/login/idp/:idpId/slo': "ends the sessions a SAML IdP's signed LogoutRequest names, or takes its signed LogoutResponse to a sign-out here",
  'GET /ui/login/idp/:idpId/test-result':
    'shows what a sign-in of the upstream identity would do, to whoever completed the test at the upstream; changes nothing',
  'POST /ui/login/:uid/password-change': "sets the signing-in user's own new password, only when its sign-in was stopped for a required change",
  'POST /ui/login/:uid/verify-email': 'completes the sign-in once the signing-in user has verified its address',
  'POST /ui/login/:uid/verify-email/resend': "mails the signing-in user's own address a new verification link",
  'GET /ui/login/email-verification': "shows the confirm button to the holder of a live verification code (the mailbox's owner)",
  'POST /ui/login/email-verification': "marks the code's user's address verified, once per code; only the code's holder can",
  'GET /ui/login/:uid/forgot': 'shows the "forgot password" form',
  'POST /ui/login/:uid/forgot': 'queues a reset link to the mailbox of the named user, if any (the same answer either way); changes no user',
  // Passkeys only (docs/passwordless.md): recovery starts as "forgot password" does and ends at a mailed link.
  'GET /ui/login/:uid/passkey-recovery': 'shows the "lost your passkey?" form of a passkeys-only organization',
  'POST /ui/login/:uid/passkey-recovery':
    'queues a passkey recovery link to the mailbox of the named user, if any (the same answer either way); changes no user',
  'GET /ui/login/invitation':
    "shows the set-password form (a passkeys-only person's: the create-a-passkey form) to the holder of a live invitation code (the mailbox's owner)",
  'POST /ui/login/invitation':
    "sets the invited user's first password, or stores a passkeys-only person's first passkey, once per code; only the code's holder can",
  'GET /ui/login/password-reset': "shows the set-password form to the holder of a live reset code (the mailbox's owner)",
  'POST /ui/login/password-reset': "sets the user's new password (unlocking a lockout), once per code; only the code's holder can",
  // The account page (docs/account.md): only the login session's own user, never one named in the request.
  'GET /ui/account': "shows the session's own user its account (or starts a sign-in)",
  'GET /ui/account/sign-in': 'starts a sign-in of the account page; acts on no user',
  'GET /ui/apps': "lists the applications the session's own user may enter (its organization's, read from its grants)",
  'GET /ui/account/signed-in': 'the sign-in of the account page returns here; acts on no user',
  'POST /ui/account/profile': "changes the session's own user's names and language",
  'POST /ui/account/email': "changes the session's own user's address (unverified; a link to it, a notice to the old one)",
  'POST /ui/account/email/verify': "mails the session's own user's address a new verification link",
  'POST /ui/account/password': "changes the session's own user's password after checking the current one",
  'POST /ui/account/factors/totp': 'starts a TOTP enrolment for the session’s own user',
  'POST /ui/account/factors/totp/confirm': "confirms the session's own user's new TOTP authenticator",
  'POST /ui/account/factors/passkey': "registers a passkey for the session's own user",
  'POST /ui/account/factors/recovery-codes': "replaces the session's own user's recovery codes",
  'POST /ui/account/factors/remove': "removes one of the session's own user's factors (never the last one an organization requires)",
  'POST /ui/account/agents/revoke': "ends the session's own user's consent to an agent client (none: 404)",
  'POST /ui/account/sessions/end': "ends one of the session's own user's other sessions (another user's session id: 404)",
  'POST /ui/account/sessions/end-others': "ends every other session of the session's own user",
  'POST /ui/account/identities/link': "sends the session's own user to one of its organization's identity providers, to link the identity it signs in as",
  'GET /ui/account/identities/linked': "links the identity of this session's own round trip to the session's own user (never one linked to another user)",
  'POST /ui/account/identities/unlink': "unlinks one of the session's own user's upstream identities (never its last way in)",
  'GET /ui/login/assets/webauthn.js': 'a static script (the WebAuthn ceremony)',
  'GET /ui/login/assets/passkeys.js': 'a static script (the WebAuthn ceremony)',
  'GET /ui/login/assets/design-:hash.css': "the design system's stylesheet (docs/design.md); any other hash is 404",
  'GET /ui/login/assets/brand.css': "a brand's stylesheet: custom properties of checked colours only (docs/branding.md); what the sign-in pages show anyway",
  'GET /ui/login/assets/brand-logo.png': "a brand's re-encoded logo (docs/branding.md); what the sign-in pages show anyway",
  'GET /ui/login/preview/:token':
    "a draft brand's preview link (docs/branding.md, \"Preview\"): 32 random bytes made by an ORG_OWNER, ten minutes; checked data only, escaped, forms post nowhere (form-action 'none')",
  // Reading, changing and removing resources other than users (docs/product-rules.md, "Changing and removing resources").
  'GET /admin/v1/orgs/:orgId': 'reads an organization',
  'PATCH /admin/v1/orgs/:orgId': 'renames an organization',
  'DELETE /admin/v1/orgs/:orgId':
    'removes an organization and its users; IAM_OWNER only, who may act on anyone (each user through the removal of one user: the last active IAM_OWNER is refused)',
  'GET /admin/v1/members': 'reads instance members',
  'GET /admin/v1/keys': 'reads signing key metadata',
  'GET /admin/v1/saml/keys': 'reads SAML signing key metadata',
  'GET /saml/v2/:orgId/metadata': "shows an organization's public SAML IdP metadata",
  // The SAML IdP's browser endpoints (docs/saml.md): public, like the OIDC authorization endpoint. Each sends the
  // browser into the ordinary sign-in (the login UI decides who signs in) or answers a session that signed in.
  'GET /saml/v2/:orgId/sso': 'takes an AuthnRequest (HTTP-Redirect) and sends the browser to the sign-in; acts on no user',
  'POST /saml/v2/:orgId/sso': 'takes an AuthnRequest (HTTP-POST) and sends the browser to the sign-in; acts on no user',
  'GET /saml/v2/:orgId/init': 'starts an IdP-initiated sign-in for an application that allows it; acts on no user',
  'GET /saml/v2/:orgId/continue': "answers the browser's own finished sign-in (a one-time code of this browser's request) with a SAML response",
  'GET /saml/v2/:orgId/slo': "ends the session a service provider's signed LogoutRequest names (as its user's sign-out would)",
  'POST /saml/v2/:orgId/slo': "ends the session a service provider's signed LogoutRequest names (as its user's sign-out would)",
  'GET /management/v1/orgs/:orgId/members': "reads the organization's members",
  'GET /management/v1/orgs/:orgId/projects': 'reads projects',
  'GET /management/v1/orgs/:orgId/projects/:projectId': 'reads a project',
  'PATCH /management/v1/orgs/:orgId/projects/:projectId': 'renames a project',
  'DELETE /management/v1/orgs/:orgId/projects/:projectId': 'removes a project without applications',
  'GET /management/v1/orgs/:orgId/projects/:projectId/apps': 'reads applications',
  'GET /management/v1/orgs/:orgId/projects/:projectId/apps/:appId': 'reads an application',
  'PATCH /management/v1/orgs/:orgId/projects/:projectId/apps/:appId':
    'changes an application (apiAccess, or an application that has it, only by an IAM_OWNER; ssfReceiver only by an ORG_OWNER of its organization)',
  'DELETE /management/v1/orgs/:orgId/projects/:projectId/apps/:appId':
    'removes an application and what was issued to it (one with apiAccess only by an IAM_OWNER)',
  'POST /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/secret': "replaces an application's client secret (one with apiAccess only by an IAM_OWNER)",
  'GET /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/keys': "reads an application's key metadata",
  'DELETE /management/v1/orgs/:orgId/projects/:projectId/apps/:appId/keys/:keyId': 'removes an application key (one with apiAccess only by an IAM_OWNER)',
};

/**
 * The OAuth grants of the discovery document: each either acts on another user (an operation above) or
 * issues tokens for the authenticated party itself.
 */
export const GRANTS: Record<string, string> = {
  authorization_code: "the signed-in user's own tokens",
  implicit: "the signed-in user's own tokens",
  refresh_token: "the same user's tokens, within the grant",
  client_credentials: "the machine user's own tokens",
  'urn:ietf:params:oauth:grant-type:jwt-bearer': "the machine user's own tokens",
  [EXCHANGE]: 'OAuth: impersonate (token exchange with an actor); without an actor, bounded by the subject token',
  'urn:ietf:params:oauth:grant-type:device_code': "the tokens of the user who approved the device's code for themselves (RFC 8628)",
};
