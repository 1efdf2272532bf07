import assert from 'node:assert/strict';
import { FactorsService } from '../../../src/users/factors/factors.service.js';
import { createCaller, createOrg, unique } from '../../support/fixtures.js';
import type { TestService } from '../../support/service.js';
import { createOidcApp, createProject, PASSWORD } from '../../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../../oidc/support/oidc-fixtures.js';
import { signIn } from '../../oidc/support/sign-in.js';

export const RP = 'http://127.0.0.1:65530';
export const ADMIN_PASSWORD = 'Matrix-Admin-Password-1';
export const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** Roles as the matrix names them: where a party holds which role. */
export interface RoleSet {
  org: string[];
  instance: string[];
}

export const CALLERS = ['none', 'ORG_USER_MANAGER', 'ORG_OWNER', 'IAM_OWNER', 'app with apiAccess', 'app without apiAccess', 'self-registered agent'] as const;
/** Callers that must reach nothing: an application without apiAccess, and a client that registered itself (RFC 7591). */
export const NEVER_REACHING_THE_API: readonly CallerName[] = ['app without apiAccess', 'self-registered agent'];
export type CallerName = (typeof CALLERS)[number];

const ROLE_KINDS = ['plain', 'ORG_USER_MANAGER', 'ORG_OWNER', 'IAM_OWNER'] as const;
export const TARGETS = [...ROLE_KINDS.map((r) => `human ${r}`), ...ROLE_KINDS.map((r) => `machine ${r}`)] as const;
export type TargetName = (typeof TARGETS)[number];

export function rolesOfKind(kind: string): RoleSet {
  if (kind === 'IAM_OWNER') return { org: [], instance: ['IAM_OWNER'] };
  if (kind === 'plain' || kind === 'none') return { org: [], instance: [] };
  return { org: [kind], instance: [] };
}

export interface Caller {
  name: CallerName;
  /** The roles of the user the caller acts as (an application acts as its signed-in user). */
  roles: RoleSet;
  /** Bearer token for the admin, management and SCIM APIs, if it has one. */
  apiToken?: string;
  /** An access token issued to the exchange application, the actor of an impersonation. */
  actorToken?: string;
}

export interface Target {
  name: TargetName;
  userId: string;
  userName: string;
  roles: RoleSet;
  /** A human's second factor (its recovery codes); machines have none. */
  factorId?: string;
}

/** The organization under test, with an application that may exchange tokens and one that may not reach the API. */
export interface World {
  org: { id: string; primaryDomain: string };
  exchangeApp: OidcApp;
  defaultOrg: { id: string; primaryDomain: string };
  /**
   * Every target is made a member of `groups.joined` and `groups.grantJoined` when created; `groups.empty` and
   * `groups.grantEmpty` have no members to start with. The `grant…` groups hold a grant of a project of the
   * organization (docs/application-access.md, "Groups that hold a grant").
   */
  groups: { joined: string; empty: string; grantJoined: string; grantEmpty: string };
  /** An OIDC identity provider of the organization, to link identities through (docs/federation.md). */
  idpId: string;
}

export async function buildWorld(svc: TestService): Promise<World> {
  const created = await createOrg(svc);
  const org = { id: created.id, primaryDomain: created.primaryDomain };
  const exchangeApp = await createOidcApp(
    svc,
    await createProject(svc, org.id),
    { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', EXCHANGE] },
    RP,
  );
  const features = await svc.api('PUT', '/admin/v1/features', { token: svc.adminToken, body: { tokenExchange: true, impersonation: true } });
  assert.equal(features.status, 200, features.text);
  const orgs = await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken });
  const found = orgs.body.orgs.find((o: { name: string }) => o.name === 'default');
  const group = async (displayName: string) => {
    const res = await svc.api('POST', `/management/v1/orgs/${org.id}/groups`, { token: svc.adminToken, body: { displayName } });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  };
  const granted = async (displayName: string) => {
    const id = await group(displayName);
    const res = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${exchangeApp.projectId}/grants`, {
      token: svc.adminToken,
      body: { groupId: id, roles: [] },
    });
    assert.equal(res.status, 201, res.text);
    return id;
  };
  const groups = {
    joined: await group('joined by every target'),
    empty: await group('joined by nobody yet'),
    grantJoined: await granted('holds a grant, joined by every target'),
    grantEmpty: await granted('holds a grant, joined by nobody yet'),
  };
  const idp = await svc.api('POST', `/management/v1/orgs/${org.id}/idps`, {
    token: svc.adminToken,
    body: { type: 'oidc', name: 'upstream', issuer: 'https://93.184.215.14/', clientId: 'portcullis', clientSecret: 'matrix-secret' },
  });
  assert.equal(idp.status, 201, idp.text);
  return { org, exchangeApp, defaultOrg: { id: found.id, primaryDomain: found.primaryDomain }, groups, idpId: idp.body.id };
}

/** A human of the organization holding the roles of `kind`, as an administrator sets one up. */
export async function createHumanWithRoles(svc: TestService, orgId: string, kind: string): Promise<{ userId: string; userName: string }> {
  const userName = unique('human');
  const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
    token: svc.adminToken,
    body: {
      userName,
      profile: { firstName: 'Tess', lastName: 'Target' },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      password: PASSWORD,
    },
  });
  assert.equal(res.status, 201, res.text);
  await grantRoles(svc, orgId, res.body.userId, rolesOfKind(kind));
  return { userId: res.body.userId, userName };
}

async function grantRoles(svc: TestService, orgId: string, userId: string, roles: RoleSet): Promise<void> {
  if (roles.org.length > 0) {
    const res = await svc.api('PUT', `/management/v1/orgs/${orgId}/members/${userId}`, { token: svc.adminToken, body: { roles: roles.org } });
    assert.equal(res.status, 200, res.text);
  }
  if (roles.instance.length > 0) {
    const res = await svc.api('PUT', `/admin/v1/members/${userId}`, { token: svc.adminToken, body: { roles: roles.instance } });
    assert.equal(res.status, 200, res.text);
  }
}

export async function createTarget(svc: TestService, world: World, name: TargetName): Promise<Target> {
  const [type, kind] = name.split(' ');
  const roles = rolesOfKind(kind);
  const target: Target = {
    name,
    roles,
    ...(type === 'human' ? await createHumanWithRoles(svc, world.org.id, kind) : await createMachineWithRoles(svc, world.org.id, roles)),
  };
  for (const group of [world.groups.joined, world.groups.grantJoined]) {
    const joined = await svc.api('PUT', `/management/v1/orgs/${world.org.id}/groups/${group}/members/${target.userId}`, { token: svc.adminToken });
    assert.equal(joined.status, 200, joined.text);
  }
  if (type === 'human') {
    // Enrolled as the user does at sign-in: no API adds a factor for someone else.
    const factors = svc.app.get(FactorsService);
    await factors.newRecoveryCodes({ id: target.userId, orgId: world.org.id });
    const [factor] = await factors.list(null, world.org.id, target.userId);
    target.factorId = factor.id;
  }
  return target;
}

async function createMachineWithRoles(svc: TestService, orgId: string, roles: RoleSet): Promise<{ userId: string; userName: string }> {
  const userName = unique('machine');
  const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/machine`, { token: svc.adminToken, body: { userName, name: 'target' } });
  assert.equal(res.status, 201, res.text);
  await grantRoles(svc, orgId, res.body.userId, roles);
  return { userId: res.body.userId, userName };
}

/** An access token of the user, issued to `app` through the login UI; undefined when the sign-in is refused. */
async function userToken(
  svc: TestService,
  app: { clientId: string; clientSecret?: string },
  loginName: string,
  password: string,
  scope: string,
  extra?: Record<string, string>,
) {
  const redirectUri = app.clientId === 'console' ? `${svc.config.publicUrl}/console/callback` : `${RP}/cb`;
  const { tokens } = await signIn(svc, { clientId: app.clientId, clientSecret: app.clientSecret, redirectUri, loginName, password, scope, extra });
  return tokens?.access_token;
}

const API_SCOPE = 'openid urn:portcullis:iam:api:aud';

/**
 * The callers: role holders with personal access tokens (and, for impersonation, a human twin signed in
 * at the exchange application), and two applications acting for their signed-in user: the bootstrap
 * console (apiAccess) for an ORG_USER_MANAGER, and an ordinary application for the instance admin.
 */
export async function createCallers(svc: TestService, world: World): Promise<Caller[]> {
  const callers: Caller[] = [{ name: 'none', roles: rolesOfKind('none') }];
  for (const kind of ['ORG_USER_MANAGER', 'ORG_OWNER', 'IAM_OWNER'] as const) {
    const roles = rolesOfKind(kind);
    const machine = await createCaller(svc, world.org.id, roles);
    const twin = await createHumanWithRoles(svc, world.org.id, kind);
    const actorToken = await userToken(svc, world.exchangeApp, `${twin.userName}@${world.org.primaryDomain}`, PASSWORD, 'openid');
    assert.ok(actorToken, `${kind} signs in at the exchange application`);
    callers.push({ name: kind, roles, apiToken: machine.token, actorToken });
  }
  const manager = await createHumanWithRoles(svc, world.org.id, 'ORG_USER_MANAGER');
  const consoleToken = await userToken(svc, { clientId: 'console' }, `${manager.userName}@${world.org.primaryDomain}`, PASSWORD, API_SCOPE);
  assert.ok(consoleToken, 'the console signs in an ORG_USER_MANAGER with the API audience');
  callers.push({ name: 'app with apiAccess', roles: rolesOfKind('ORG_USER_MANAGER'), apiToken: consoleToken, actorToken: consoleToken });

  const ordinary = await createOidcApp(svc, await createProject(svc, world.defaultOrg.id), { authMethod: 'client_secret_basic' }, RP);
  // The API asked for by scope, then by resource indicator (RFC 8707); refused both ways, the plain sign-in.
  const adminToken =
    (await userToken(svc, ordinary, 'admin', ADMIN_PASSWORD, API_SCOPE)) ??
    (await userToken(svc, ordinary, 'admin', ADMIN_PASSWORD, 'openid', { resource: 'urn:portcullis:api' })) ??
    (await userToken(svc, ordinary, 'admin', ADMIN_PASSWORD, 'openid'));
  assert.ok(adminToken, 'the admin signs in at an ordinary application');
  callers.push({ name: 'app without apiAccess', roles: rolesOfKind('IAM_OWNER'), apiToken: adminToken, actorToken: adminToken });
  const agent = await agentToken(svc, world);
  callers.push({ name: 'self-registered agent', roles: rolesOfKind('ORG_OWNER'), apiToken: agent, actorToken: agent });
  return callers;
}

/**
 * A client registered with an initial access token (RFC 7591), allowed by an ORG_OWNER: the API asked for with no
 * resource, then by resource indicator (RFC 8707); refused both ways, its token for the organization's MCP server.
 */
async function agentToken(svc: TestService, world: World): Promise<string> {
  const path = `/management/v1/orgs/${world.org.id}`;
  const policy = await svc.api('PUT', `${path}/login-policy`, {
    token: svc.adminToken,
    body: { mfa: 'optional', passkeys: true, allowRegistration: true, dynamicRegistration: 'initialAccessToken' },
  });
  assert.equal(policy.status, 200, policy.text);
  const project = await createProject(svc, world.org.id);
  const resource = `https://${unique('mcp')}.example/mcp`;
  const api = await svc.api('POST', `${path}/projects/${project.projectId}/apps/api`, {
    token: svc.adminToken,
    body: { name: unique('mcp'), authMethod: 'client_secret_basic', resourceUri: resource },
  });
  assert.equal(api.status, 201, api.text);
  const initial = await svc.api('POST', `${path}/agent-registration-tokens`, { token: svc.adminToken, body: {} });
  assert.equal(initial.status, 201, initial.text);
  const registered = await svc.api('POST', '/oauth/v2/register', {
    token: initial.body.token,
    body: {
      client_name: 'agent',
      redirect_uris: [`${RP}/cb`],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  });
  assert.equal(registered.status, 201, registered.text);
  const owner = await createHumanWithRoles(svc, world.org.id, 'ORG_OWNER');
  const loginName = `${owner.userName}@${world.org.primaryDomain}`;
  const flow = async (extra: Record<string, string>) =>
    (
      await signIn(svc, {
        clientId: registered.body.client_id,
        redirectUri: `${RP}/cb`,
        loginName,
        password: PASSWORD,
        scope: 'openid',
        extra,
        consent: 'allow',
      })
    ).tokens?.access_token;
  const token = (await flow({})) ?? (await flow({ resource: 'urn:portcullis:api' })) ?? (await flow({ resource }));
  assert.ok(token, 'the agent gets a token for the MCP server');
  return token;
}
