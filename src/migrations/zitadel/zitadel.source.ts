import type { Json } from '../document-checks.js';
import type { MigrationPlan, PlannedApp, PlannedMember, PlannedProject, Unmapped } from '../migration-plan.js';
import { checkExport } from './zitadel-document.js';
import { mapHuman, mapMachine } from './zitadel-users.js';

const ROLE_KEY = /^[A-Za-z0-9_.:-]{1,100}$/;
const ORG_ROLES = new Set(['ORG_OWNER', 'ORG_USER_MANAGER']);

const RESPONSE_TYPES: Record<string, string> = {
  OIDC_RESPONSE_TYPE_CODE: 'code',
  OIDC_RESPONSE_TYPE_ID_TOKEN: 'id_token',
  OIDC_RESPONSE_TYPE_ID_TOKEN_TOKEN: 'id_token token',
};
const GRANT_TYPES: Record<string, string> = {
  OIDC_GRANT_TYPE_AUTHORIZATION_CODE: 'authorization_code',
  OIDC_GRANT_TYPE_IMPLICIT: 'implicit',
  OIDC_GRANT_TYPE_REFRESH_TOKEN: 'refresh_token',
  OIDC_GRANT_TYPE_DEVICE_CODE: 'urn:ietf:params:oauth:grant-type:device_code',
};
const OIDC_AUTH_METHODS: Record<string, PlannedApp['authMethod']> = {
  OIDC_AUTH_METHOD_TYPE_BASIC: 'client_secret_basic',
  OIDC_AUTH_METHOD_TYPE_POST: 'client_secret_post',
  OIDC_AUTH_METHOD_TYPE_NONE: 'none',
  OIDC_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT: 'private_key_jwt',
};

/** Why an organization's field stays behind (each listed only when the export holds something in it). */
const REASONS: Record<string, string> = {
  iamPolicy: 'the domain policy is the instance’s (docs/operations.md, "Settings")',
  domainPolicy: 'the domain policy is the instance’s (docs/operations.md, "Settings")',
  labelPolicy: 'branding is set per organization in the console (docs/branding.md)',
  lockoutPolicy: 'the lockout policy is the instance’s (docs/operations.md, "Settings")',
  loginPolicy: 'set the organization’s login policy through the management API',
  passwordComplexityPolicy: 'the password policy is the instance’s (docs/operations.md, "Settings")',
  privacyPolicy: 'the privacy links are set per organization in the console',
  triggerActions: 'actions (scripts) have no counterpart: use webhooks and the event feed (docs/webhooks.md)',
  actions: 'actions (scripts) have no counterpart: use webhooks and the event feed (docs/webhooks.md)',
  projectGrants: 'projects granted to other organizations have no counterpart',
  projectMembers: 'project managers have no counterpart: organization roles only',
  projectGrantMembers: 'project managers have no counterpart: organization roles only',
  userMetadata: 'user metadata has no counterpart here',
  loginTexts: 'texts are the instance’s, in its languages (docs/branding.md)',
  oidcIdps: 'identity providers are not migrated yet: add them as upstream IdPs (docs/federation.md)',
  jwtIdps: 'JWT identity providers have no counterpart',
  secondFactors: 'second factors are set by the login policy',
  multiFactors: 'multi-factors are set by the login policy',
  idps: 'identity providers are not migrated yet: add them as upstream IdPs (docs/federation.md)',
  userLinks: 'links to identity providers are not migrated yet: users link again at first sign-in',
  domains: 'domains are added and verified again (docs/operations.md)',
  appKeys: 'applications’ keys are registered again (the export holds public keys only)',
  machineKeys: 'machine users’ keys are registered again through …/keys',
};
const READ = new Set(['orgId', 'org', 'humanUsers', 'machineUsers', 'projects', 'projectRoles', 'oidcApps', 'apiApps', 'userGrants', 'orgMembers']);

/**
 * A ZITADEL organization of an export (docs/migrating.md, "ZITADEL"): its users with their ids (so `sub` stays),
 * hashes and authenticators, its machine users, its projects with their roles, OIDC and API applications and user
 * grants, and its members' organization roles. What has no counterpart is listed with its path.
 */
export function planZitadel(document: unknown): MigrationPlan {
  const { org } = checkExport(document);
  const base = (document as Json).dataOrgs !== undefined ? 'dataOrgs.orgs[0]' : 'orgs[0]';
  const plan: MigrationPlan = {
    container: org.orgId as string,
    orgName: ((org.org as Json | undefined)?.name as string | undefined) || (org.orgId as string),
    users: [],
    groups: [],
    clients: [],
    machines: [],
    projects: [],
    members: [],
    failures: [],
    unmapped: [],
  };
  for (const [i, item] of ((org.humanUsers as Json[] | undefined) ?? []).entries()) {
    const mapped = mapHuman(item, `${base}.humanUsers[${i}]`);
    plan.unmapped.push(...mapped.unmapped);
    if (mapped.failure) plan.failures.push(mapped.failure);
    if (mapped.user) plan.users.push(mapped.user);
  }
  plan.machines = ((org.machineUsers as Json[] | undefined) ?? []).map(mapMachine);
  plan.projects = planProjects(org, base, plan.unmapped);
  plan.members = planMembers(org, base, plan.unmapped);
  for (const [key, value] of Object.entries(org)) {
    if (READ.has(key) || value === null || (Array.isArray(value) && value.length === 0)) continue;
    plan.unmapped.push({ path: `${base}.${key}`, reason: REASONS[key] ?? REASONS[key.replace(/Messages$/, '')] ?? messageReason(key) });
  }
  return plan;
}

function messageReason(key: string): string {
  return key.endsWith('Messages')
    ? 'message texts are the instance’s, in its languages (docs/branding.md)'
    : 'an organization field without a counterpart here';
}

function planProjects(org: Json, base: string, unmapped: Unmapped[]): PlannedProject[] {
  const projects = new Map<string, PlannedProject>();
  for (const [i, item] of ((org.projects as Json[] | undefined) ?? []).entries()) {
    const body = item.project as Json;
    projects.set(item.projectId as string, { sourceId: item.projectId as string, name: body.name as string, roles: [], apps: [], grants: new Map() });
    for (const name of ['projectRoleAssertion', 'projectRoleCheck', 'hasProjectCheck'])
      if (body[name] === true)
        unmapped.push({
          path: `${base}.projects[${i}].project.${name}`,
          reason: 'roles always arrive in the `roles` claim; who may enter is set per application (docs/product-rules.md, "Application access")',
        });
  }
  const owner = (projectId: string, path: string): PlannedProject | undefined => {
    const project = projects.get(projectId);
    if (!project) unmapped.push({ path, reason: 'names a project the export does not hold' });
    return project;
  };
  for (const [i, role] of ((org.projectRoles as Json[] | undefined) ?? []).entries()) {
    const path = `${base}.projectRoles[${i}]`;
    const project = owner(role.projectId as string, path);
    if (!project) continue;
    if (!ROLE_KEY.test(role.roleKey as string)) {
      unmapped.push({ path: `${path}.roleKey`, reason: 'a role key a project role cannot hold (letters, digits and _.:- only)' });
      continue;
    }
    project.roles.push({ key: role.roleKey as string, displayName: (role.displayName as string | undefined) || null });
    if (role.group) unmapped.push({ path: `${path}.group`, reason: 'role groups have no counterpart' });
  }
  for (const [i, item] of ((org.oidcApps as Json[] | undefined) ?? []).entries()) {
    const path = `${base}.oidcApps[${i}]`;
    const app = item.app as Json;
    const project = owner(app.projectId as string, `${path}.app.projectId`);
    if (project) project.apps.push(oidcApp(item.appId as string, app, path, unmapped));
  }
  for (const [i, item] of ((org.apiApps as Json[] | undefined) ?? []).entries()) {
    const app = item.app as Json;
    const project = owner(app.projectId as string, `${base}.apiApps[${i}].app.projectId`);
    if (!project) continue;
    project.apps.push({
      ...NO_FLOWS,
      sourceId: item.appId as string,
      kind: 'api',
      name: app.name as string,
      authMethod: app.authMethodType === 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' ? 'private_key_jwt' : 'client_secret_basic',
    });
  }
  for (const [i, grant] of ((org.userGrants as Json[] | undefined) ?? []).entries()) {
    const path = `${base}.userGrants[${i}]`;
    if (grant.projectGrantId) {
      unmapped.push({ path, reason: 'a grant of a project granted by another organization has no counterpart' });
      continue;
    }
    const project = owner(grant.projectId as string, `${path}.projectId`);
    if (!project) continue;
    const known = new Set(project.roles.map((r) => r.key));
    const keys = ((grant.roleKeys as string[] | undefined) ?? []).filter((key) => known.has(key));
    const held = project.grants.get(grant.userId as string) ?? [];
    project.grants.set(grant.userId as string, [...new Set([...held, ...keys])].sort());
  }
  return [...projects.values()];
}

const NO_FLOWS = {
  accessTokenType: 'opaque' as const,
  redirectUris: [],
  postLogoutRedirectUris: [],
  grantTypes: [],
  responseTypes: [],
  devMode: false,
  idTokenUserinfoAssertion: false,
  backchannelLogoutUri: null,
};

/** An `AddOIDCAppRequest` as the application here; enums at their default (BASIC, BEARER, WEB) are left out of the JSON. */
function oidcApp(appId: string, app: Json, path: string, unmapped: Unmapped[]): PlannedApp {
  const named = (values: unknown, table: Record<string, string>, field: string, fallback: string[]): string[] => {
    const list = (values as string[] | undefined) ?? [];
    const out: string[] = [];
    for (const [i, value] of list.entries()) {
      if (table[value]) out.push(table[value]);
      else unmapped.push({ path: `${path}.app.${field}[${i}]`, reason: `${value} has no counterpart here` });
    }
    return list.length === 0 ? fallback : out;
  };
  const authMethod = OIDC_AUTH_METHODS[(app.authMethodType as string | undefined) ?? 'OIDC_AUTH_METHOD_TYPE_BASIC'];
  if (!authMethod) unmapped.push({ path: `${path}.app.authMethodType`, reason: 'an authentication method without a counterpart: client_secret_basic is used' });
  if ((app.additionalOrigins as string[] | undefined)?.length)
    unmapped.push({ path: `${path}.app.additionalOrigins`, reason: 'CORS origins follow the redirect URIs here' });
  if (app.clockSkew && app.clockSkew !== '0s') unmapped.push({ path: `${path}.app.clockSkew`, reason: 'the clock skew is the instance’s' });
  return {
    sourceId: appId,
    kind: 'oidc',
    name: app.name as string,
    authMethod: authMethod ?? 'client_secret_basic',
    accessTokenType: app.accessTokenType === 'OIDC_TOKEN_TYPE_JWT' ? 'jwt' : 'opaque',
    redirectUris: (app.redirectUris as string[] | undefined) ?? [],
    postLogoutRedirectUris: (app.postLogoutRedirectUris as string[] | undefined) ?? [],
    responseTypes: named(app.responseTypes, RESPONSE_TYPES, 'responseTypes', ['code']),
    grantTypes: named(app.grantTypes, GRANT_TYPES, 'grantTypes', ['authorization_code']),
    devMode: app.devMode === true,
    idTokenUserinfoAssertion: app.idTokenUserinfoAssertion === true,
    backchannelLogoutUri: (app.backChannelLogoutUri as string | undefined) || null,
  };
}

function planMembers(org: Json, base: string, unmapped: Unmapped[]): PlannedMember[] {
  const members: PlannedMember[] = [];
  for (const [i, member] of ((org.orgMembers as Json[] | undefined) ?? []).entries()) {
    const roles: PlannedMember['roles'] = [];
    for (const [j, role] of ((member.roles as string[] | undefined) ?? []).entries()) {
      if (ORG_ROLES.has(role)) roles.push(role as PlannedMember['roles'][number]);
      else
        unmapped.push({
          path: `${base}.orgMembers[${i}].roles[${j}]`,
          reason: 'an organization role without a counterpart (ORG_OWNER and ORG_USER_MANAGER only)',
        });
    }
    if (roles.length > 0) members.push({ userSourceId: member.userId as string, roles });
  }
  return members;
}
