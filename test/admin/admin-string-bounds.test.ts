import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { before, describe, it } from 'node:test';
import { getMetadataStorage } from 'class-validator';
import { BOUNDED } from '../../src/common/http/validation/bounded.decorator.js';
import { ChangeUserDto } from '../../src/admin/dto/user-changes.dto.js';
import { CreateHumanUserDto, CreateMachineUserDto } from '../../src/admin/dto/users.dto.js';
import { CreateGroupDto } from '../../src/admin/dto/groups.dto.js';
import { CreateOrgDto, UpdateOrgDto } from '../../src/admin/dto/org.dto.js';
import { ApiResourceFieldsDto } from '../../src/admin/dto/api-resource.dto.js';
import { AddExternalResourceDto } from '../../src/agents/api/external-resources.dto.js';
import { CreateApiAppDto, CreateOidcAppDto, CreateProjectDto, OauthProfileFieldsDto } from '../../src/admin/dto/projects.dto.js';
import { UpdateAppDto, UpdateProjectDto } from '../../src/admin/dto/applications.dto.js';
import { CreateSamlAppDto, SamlAppFieldsDto } from '../../src/admin/dto/saml-applications.dto.js';
import { AppEntryFieldsDto } from '../../src/admin/dto/app-entry.dto.js';
import { CreateProjectGrantDto, CreateProjectRoleDto, UpdateProjectGrantDto, UpdateProjectRoleDto } from '../../src/admin/dto/project-access.dto.js';
import { LinkIdentityDto } from '../../src/federation/api/identities.dto.js';
import { CreateIdpDto, UpdateIdpDto } from '../../src/federation/api/idps.dto.js';
import { AddOrgDomainDto } from '../../src/federation/api/org-domains.dto.js';
import { CreateTargetDto, UpdateTargetDto } from '../../src/provisioning/api/provisioning.dto.js';
import { ImportRequestDto } from '../../src/admin/import/import.dto.js';
import { CreateDirectoryDto, DirectoryHostsDto, UpdateDirectoryDto } from '../../src/directories/api/directories.dto.js';
import { PollInputDto, StreamInputDto, StreamStatusInputDto, SubjectInputDto, VerificationInputDto } from '../../src/signals/api/ssf.dto.js';
import { IMPORT_STRING_FIELDS } from '../../src/admin/import/import-user.validator.js';
import { STRING_BOUNDS } from '../../src/users/rules/string-bounds.js';
import { countRows, createOrg, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { humanUser, importBody, postImport, userErrors } from '../import/import.helpers.js';
import { idpMetadataXml } from '../federation/support/saml-metadata.js';

// class-transformer keeps the nested types of @Type here; its package has no typed entry for it.
const { defaultMetadataStorage } = createRequire(import.meta.url)('class-transformer/cjs/storage.js');

type Dto = new () => object;
type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];
interface Field {
  /** Where the value goes in the body. */
  path: string;
  /** How the 400 names it: an array's items by the array. */
  field: string;
  bound: number;
}

/** The user name rule carries its bound (users/rules/user-name.ts); every other field has @Bounded. */
function boundOf(m: ValidationMetadata): number | undefined {
  if (m.name === BOUNDED) return m.constraints[0] as number;
  const constraint = m.constraintCls && getMetadataStorage().getTargetValidatorConstraints(m.constraintCls)[0];
  return constraint?.name === 'userName' ? STRING_BOUNDS.userName : undefined;
}

/** Every bounded string field of a DTO, nested DTOs included (an array's first item as `.0.`), as the 400 names it. */
function boundedFields(dto: Dto, prefix = ''): Field[] {
  const fields: Field[] = [];
  for (const m of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    const bound = boundOf(m);
    if (bound !== undefined) fields.push({ path: `${prefix}${m.propertyName}${m.each ? '.0' : ''}`, field: `${prefix}${m.propertyName}`, bound });
  }
  for (const m of getMetadataStorage()
    .getTargetValidationMetadatas(dto, '', true, false)
    .filter((v) => v.type === 'nestedValidation')) {
    const nested = defaultMetadataStorage.findTypeMetadata(dto, m.propertyName)?.typeFunction();
    const isArray = Reflect.getMetadata?.('design:type', dto.prototype, m.propertyName) === Array;
    if (nested) fields.push(...boundedFields(nested, `${prefix}${m.propertyName}.${isArray ? '0.' : ''}`));
  }
  return [...new Map(fields.map((f) => [f.path, f])).values()];
}

/** A value of exactly `length` characters that the field's other rules accept, distinct per call. */
function valueOfLength(path: string, length: number): string {
  const tag = randomBytes(4).toString('hex');
  const leaf = path
    .split('.')
    .filter((p) => !/^\d+$/.test(p))
    .pop()!;
  if (leaf === 'email' && !path.startsWith('claims.') && !path.startsWith('attributes.')) {
    // IsEmail takes at most 64 characters before the @ and 254 after it.
    const local = `${tag}${'x'.repeat(Math.min(64, length - 20) - tag.length)}`;
    let domain = 'example.com';
    while (local.length + 1 + domain.length < length) domain = `${'d'.repeat(Math.min(63, length - local.length - 2 - domain.length))}.${domain}`;
    return `${local}@${domain}`;
  }
  if (leaf === 'domains' || leaf === 'domain') {
    // A host name: labels of at most 63 characters (an organization's domains, an IdP's home-realm domains).
    let domain = `${tag}.example`;
    while (domain.length < length) {
      const room = length - domain.length - 1;
      const label = room > 63 ? Math.min(63, room - 2) : room;
      domain = `${'d'.repeat(label)}.${domain}`;
    }
    return domain;
  }
  // A landing path of the service provider (a path from the root is always of its origin).
  if (leaf === 'idpInitiatedRelayState' || leaf === 'idpInitiatedLanding') return `/${tag}${'x'.repeat(length - 1 - tag.length)}`;
  if (leaf === 'phone') return `+41 79 123 45 67${'-'.repeat(length - 16)}`;
  if (leaf === 'preferredLanguage') return `en${'-abcdefg'.repeat(Math.ceil(length / 8))}`.slice(0, length).replace(/-$/, 'x');
  // Logout tokens and keys are fetched where the host resolves, checked at registration: a public address literal needs no DNS.
  if (leaf === 'backchannelLogoutUri' || leaf === 'jwksUri' || leaf === 'endpoint_url') return `https://93.184.215.14/${tag}${'x'.repeat(length - 30)}`;
  // A resource URI is unique in the instance: the tag makes each one new.
  if (leaf === 'resourceUri') return `https://${tag}.example.com/${'x'.repeat(length - 29)}`;
  if (leaf.endsWith('RedirectUris') || ['redirectUris', 'acsUrls', 'sloUrl', 'entityId', 'homeUrl'].includes(leaf))
    return `https://app.example.com/${tag}${'x'.repeat(length - 32)}`;
  return `${tag}${'x'.repeat(length - tag.length)}`;
}

/** The fields of a provisioning target's auth that only OAuth client credentials take. */
function isOauthField(path: string): boolean {
  return ['auth.tokenUrl', 'auth.clientId', 'auth.clientSecret', 'auth.scope'].includes(path);
}

function bearerTarget(): Record<string, unknown> {
  return { name: unique('target'), baseUrl: 'https://93.184.215.14/scim/v2', auth: { type: 'bearer', token: 't' }, enabled: false };
}

function oauthTarget(): Record<string, unknown> {
  return { ...bearerTarget(), auth: { type: 'oauth_client_credentials', tokenUrl: 'https://93.184.215.14/token', clientId: 'c', clientSecret: 's' } };
}

/** The fields of UpdateAppDto that only an API application takes (docs/agents.md, "Resources"). */
function isApiResourceField(path: string): boolean {
  return ['resourceUri', 'scopes'].includes(path.split('.')[0]!);
}

/** An API application's create request with a resource of its own (its URI unique in the instance). */
function apiApp(): Record<string, unknown> {
  return {
    name: unique('api'),
    authMethod: 'client_secret_basic',
    resourceUri: `https://${unique('mcp')}.example.com/mcp`,
    scopes: [{ name: 'files:read', description: 'Read files' }],
  };
}

/** The fields of UpdateAppDto that only a SAML application takes. */
function isSamlAppField(path: string): boolean {
  return ['entityId', 'acsUrls', 'attributes', 'spCertificate', 'sloUrl', 'idpInitiatedRelayState'].includes(path.split('.')[0]!);
}

/** A SAML application's create request; each test's values are its own (the entity id is unique in an organization). */
function samlApp(): Record<string, unknown> {
  return {
    name: unique('saml'),
    entityId: `https://${unique('sp')}.example.com/saml`,
    acsUrls: ['https://sp.example.com/acs'],
    attributes: [{ name: 'mail', from: 'email' }],
  };
}

function withValue(body: Record<string, unknown>, path: string, value: string): Record<string, unknown> {
  const copy = structuredClone(body);
  const keys = path.split('.');
  let node: any = copy;
  keys.slice(0, -1).forEach((key, i) => {
    node[key] ??= /^\d+$/.test(keys[i + 1]) ? [] : {};
    node = node[key];
  });
  node[keys[keys.length - 1]] = value;
  return copy;
}

interface Route {
  name: string;
  dto: Dto;
  method: 'POST' | 'PATCH' | 'PUT';
  /** The resource a request names, made for it: the url and the body the field's value goes into. */
  target(svc: TestService, orgId: string): Promise<{ url: string; body: Record<string, unknown>; read?: string; headers?: Record<string, string> }>;
  /** Fields of the DTO that apply to this resource (a human user has no `name`, a machine user no `profile`). */
  only?: (path: string) => boolean;
  /** Fields whose other rules cannot take the full bound (IsEmail: at most 64 + 1 + 254 characters). */
  exactUnreachable?: string[];
}

/** As the administrator, or with the target's own credentials (a Shared Signals receiver authenticates as its application). */
const api = async (svc: TestService, method: string, url: string, body: unknown, headers?: Record<string, string>) =>
  svc.api(method, url, headers ? { headers, body } : { token: svc.adminToken, body });

async function created(svc: TestService, url: string, body: unknown): Promise<any> {
  const res = await api(svc, 'POST', url, body);
  assert.equal(res.status, 201, res.text);
  return res.body;
}

const human = () => ({ userName: unique('human'), profile: { firstName: 'Ada', lastName: 'Lovelace' }, email: { email: 'ada@example.com' } });
const machine = () => ({ userName: unique('machine'), name: 'robot' });
// private_key_jwt: the one method that takes a jwksUri.
const oidcApp = () => ({
  name: unique('app'),
  redirectUris: ['https://app.example.com/cb'],
  authMethod: 'private_key_jwt',
  responseTypes: ['code'],
  grantTypes: ['authorization_code'],
});
const project = async (svc: TestService, orgId: string) =>
  (await created(svc, `/management/v1/orgs/${orgId}/projects`, { name: unique('project') })).id as string;
const idp = () => ({
  type: 'oidc',
  name: unique('idp'),
  issuer: 'https://93.184.215.14/',
  clientId: 'portcullis',
  clientSecret: 'bound-secret',
  link: { by: 'externalId', from: 'oid' },
});
const users = (orgId: string) => `/management/v1/orgs/${orgId}/users`;
const samlIdp = () => ({ type: 'saml', name: unique('saml'), metadataXml: idpMetadataXml() });
/** Fields of one protocol only (docs/federation.md): each is walked on an IdP of its protocol. */
const SAML_FIELDS = ['metadataXml', 'metadataUrl', 'nameIdFormat', 'attributes', 'signAuthnRequests', 'idpInitiatedLanding'];
const isSamlField = (path: string) => SAML_FIELDS.some((f) => path === f || path.startsWith(`${f}.`));

/** A URL, a PEM certificate, an LDAP filter and attribute names have shapes of their own: their bound is refused. */
const DIRECTORY_SHAPED = [
  'url',
  'caCertificate',
  'userFilter',
  'groupFilter',
  ...['userName', 'email', 'givenName', 'familyName', 'displayName', 'phone', 'externalId'].map((a) => `attributes.${a}`),
];
/** A directory's body, its host allowed first (docs/directories.md, "Reaching the directory"). */
async function directory(svc: TestService) {
  assert.equal((await api(svc, 'PUT', '/admin/v1/directory-hosts', { allow: ['ldap.example.com'] })).status, 200);
  return {
    name: unique('directory'),
    url: 'ldaps://ldap.example.com:636',
    bindDn: 'cn=portcullis,dc=example',
    bindPassword: 'bound-secret',
    usersDn: 'ou=people,dc=example',
    sync: { intervalMinutes: 0 },
  };
}

const ROUTES: Route[] = [
  { name: 'POST /admin/v1/orgs', dto: CreateOrgDto, method: 'POST', target: async () => ({ url: '/admin/v1/orgs', body: { name: unique('org') } }) },
  {
    name: 'PATCH /admin/v1/orgs/{id}',
    dto: UpdateOrgDto,
    method: 'PATCH',
    target: async (_svc, orgId) => ({ url: `/admin/v1/orgs/${orgId}`, body: {}, read: `/admin/v1/orgs/${orgId}` }),
  },
  {
    name: 'POST …/users/human',
    dto: CreateHumanUserDto,
    method: 'POST',
    exactUnreachable: ['email.email'],
    target: async (_svc, orgId) => ({ url: `${users(orgId)}/human`, body: human() }),
  },
  {
    name: 'POST …/users/machine',
    dto: CreateMachineUserDto,
    method: 'POST',
    target: async (_svc, orgId) => ({ url: `${users(orgId)}/machine`, body: machine() }),
  },
  {
    name: 'PATCH …/users/{id} (human)',
    dto: ChangeUserDto,
    method: 'PATCH',
    exactUnreachable: ['email.email'],
    only: (path) => !['name', 'description'].includes(path),
    target: async (svc, orgId) => {
      const { userId } = await created(svc, `${users(orgId)}/human`, human());
      return { url: `${users(orgId)}/${userId}`, body: {}, read: `${users(orgId)}/${userId}` };
    },
  },
  {
    name: 'PATCH …/users/{id} (machine)',
    dto: ChangeUserDto,
    method: 'PATCH',
    only: (path) => ['name', 'description', 'userName'].includes(path),
    target: async (svc, orgId) => {
      const { userId } = await created(svc, `${users(orgId)}/machine`, machine());
      return { url: `${users(orgId)}/${userId}`, body: {}, read: `${users(orgId)}/${userId}` };
    },
  },
  {
    name: 'POST …/groups',
    dto: CreateGroupDto,
    method: 'POST',
    target: async (_svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/groups`, body: { displayName: unique('group') } }),
  },
  {
    name: 'POST …/projects',
    dto: CreateProjectDto,
    method: 'POST',
    target: async (_svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/projects`, body: { name: unique('project') } }),
  },
  {
    name: 'PATCH …/projects/{id}',
    dto: UpdateProjectDto,
    method: 'PATCH',
    target: async (svc, orgId) => {
      const id = await project(svc, orgId);
      return { url: `/management/v1/orgs/${orgId}/projects/${id}`, body: {}, read: `/management/v1/orgs/${orgId}/projects/${id}` };
    },
  },
  {
    name: 'POST …/apps/oidc',
    dto: CreateOidcAppDto,
    method: 'POST',
    target: async (svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/projects/${await project(svc, orgId)}/apps/oidc`, body: oidcApp() }),
  },
  // Mixed into the create and change DTOs above (IntersectionType copies their fields, which run there).
  {
    name: 'POST …/apps/oidc (profile fields)',
    dto: OauthProfileFieldsDto,
    method: 'POST',
    only: () => false,
    target: async (svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/projects/${await project(svc, orgId)}/apps/oidc`, body: oidcApp() }),
  },
  {
    name: 'POST …/apps/saml (SAML fields)',
    dto: SamlAppFieldsDto,
    method: 'POST',
    only: () => false,
    target: async (svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/projects/${await project(svc, orgId)}/apps/saml`, body: samlApp() }),
  },
  {
    name: 'POST …/apps/oidc (access fields)',
    dto: AppEntryFieldsDto,
    method: 'POST',
    only: () => false,
    target: async (svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/projects/${await project(svc, orgId)}/apps/oidc`, body: oidcApp() }),
  },
  {
    name: 'POST …/projects/{id}/roles',
    dto: CreateProjectRoleDto,
    method: 'POST',
    target: async (svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/projects/${await project(svc, orgId)}/roles`, body: { key: unique('role') } }),
  },
  {
    name: 'PATCH …/projects/{id}/roles/{key}',
    dto: UpdateProjectRoleDto,
    method: 'PATCH',
    target: async (svc, orgId) => {
      const roles = `/management/v1/orgs/${orgId}/projects/${await project(svc, orgId)}/roles`;
      await created(svc, roles, { key: 'r' });
      return { url: `${roles}/r`, body: {}, read: roles };
    },
  },
  // A grant names existing users, groups and roles: ids and keys of the full bound are unknown ones (404, 400).
  {
    name: 'POST …/projects/{id}/grants',
    dto: CreateProjectGrantDto,
    method: 'POST',
    exactUnreachable: ['userId', 'groupId', 'roles.0'],
    target: async (svc, orgId) => {
      const user = await created(svc, `/management/v1/orgs/${orgId}/users/machine`, machine());
      return { url: `/management/v1/orgs/${orgId}/projects/${await project(svc, orgId)}/grants`, body: { userId: user.userId, roles: [] } };
    },
  },
  {
    name: 'PATCH …/projects/{id}/grants/{grantId}',
    dto: UpdateProjectGrantDto,
    method: 'PATCH',
    exactUnreachable: ['roles.0'],
    target: async (svc, orgId) => {
      const grants = `/management/v1/orgs/${orgId}/projects/${await project(svc, orgId)}/grants`;
      const user = await created(svc, `/management/v1/orgs/${orgId}/users/machine`, machine());
      const grant = await created(svc, grants, { userId: user.userId, roles: [] });
      return { url: `${grants}/${grant.grantId}`, body: { roles: [] }, read: grants };
    },
  },
  {
    name: 'POST …/apps/api',
    dto: CreateApiAppDto,
    method: 'POST',
    target: async (svc, orgId) => ({
      url: `/management/v1/orgs/${orgId}/projects/${await project(svc, orgId)}/apps/api`,
      body: apiApp(),
    }),
  },
  {
    name: 'PATCH …/apps/{id} (API)',
    dto: UpdateAppDto,
    method: 'PATCH',
    only: (path) => path === 'name' || isApiResourceField(path),
    target: async (svc, orgId) => {
      const projectId = await project(svc, orgId);
      const app = await created(svc, `/management/v1/orgs/${orgId}/projects/${projectId}/apps/api`, apiApp());
      const url = `/management/v1/orgs/${orgId}/projects/${projectId}/apps/${app.appId}`;
      return { url, body: { scopes: [{ name: 'files:read', description: 'Read files' }] }, read: url };
    },
  },
  {
    name: 'PATCH …/apps/{id}',
    dto: UpdateAppDto,
    method: 'PATCH',
    only: (path) => !isSamlAppField(path) && !isApiResourceField(path),
    target: async (svc, orgId) => {
      const projectId = await project(svc, orgId);
      const app = await created(svc, `/management/v1/orgs/${orgId}/projects/${projectId}/apps/oidc`, oidcApp());
      const url = `/management/v1/orgs/${orgId}/projects/${projectId}/apps/${app.appId}`;
      return { url, body: {}, read: url };
    },
  },
  // A certificate and metadata must parse: their exact lengths cannot be accepted.
  {
    name: 'POST …/apps/saml',
    dto: CreateSamlAppDto,
    method: 'POST',
    exactUnreachable: ['spCertificate', 'metadataXml', 'metadataUrl'],
    target: async (svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/projects/${await project(svc, orgId)}/apps/saml`, body: samlApp() }),
  },
  {
    name: 'PATCH …/apps/{id} (SAML)',
    dto: UpdateAppDto,
    method: 'PATCH',
    exactUnreachable: ['spCertificate'],
    only: (path) => path === 'name' || isSamlAppField(path),
    target: async (svc, orgId) => {
      const projectId = await project(svc, orgId);
      const app = await created(svc, `/management/v1/orgs/${orgId}/projects/${projectId}/apps/saml`, samlApp());
      const url = `/management/v1/orgs/${orgId}/projects/${projectId}/apps/${app.appId}`;
      return { url, body: { attributes: [{ name: 'mail', from: 'email' }] }, read: url };
    },
  },
  // An issuer is a URL (checked by the service); an unknown idpId is 404; an IdP's domain must be a verified domain of
  // the organization: the bound holds, the exact length cannot be accepted.
  {
    name: 'POST …/idps',
    dto: CreateIdpDto,
    method: 'POST',
    exactUnreachable: ['issuer', 'domains.0'],
    only: (path) => !isSamlField(path),
    target: async (_svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/idps`, body: idp() }),
  },
  {
    name: 'PATCH …/idps/{id}',
    dto: UpdateIdpDto,
    method: 'PATCH',
    exactUnreachable: ['issuer', 'domains.0'],
    only: (path) => !isSamlField(path),
    target: async (svc, orgId) => {
      const url = `/management/v1/orgs/${orgId}/idps/${(await created(svc, `/management/v1/orgs/${orgId}/idps`, idp())).id}`;
      return { url, body: { link: { by: 'email', from: 'email' } }, read: url };
    },
  },
  // The issuer and resource must be URLs and the project one of the organization's: their exact lengths cannot be accepted.
  {
    name: 'POST …/external-resources',
    dto: AddExternalResourceDto,
    method: 'POST',
    exactUnreachable: ['issuer', 'resource', 'projectId'],
    target: async (svc, orgId) => ({
      url: `/management/v1/orgs/${orgId}/external-resources`,
      body: {
        name: unique('ext'),
        issuer: `https://${unique('as')}.example`,
        resource: `https://${unique('mcp')}.example/mcp`,
        scopes: ['files:read'],
        clientIdAtIssuer: unique('client'),
        projectId: await project(svc, orgId),
      },
    }),
  },
  {
    name: 'POST …/domains',
    dto: AddOrgDomainDto,
    method: 'POST',
    target: async (_svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/domains`, body: { domain: `${unique('d')}.example` } }),
  },
  // Metadata must parse (and be the only one given), a NameID format is a URN: their exact lengths cannot be accepted.
  {
    name: 'POST …/idps (SAML)',
    dto: CreateIdpDto,
    method: 'POST',
    exactUnreachable: ['metadataXml', 'metadataUrl', 'nameIdFormat'],
    only: isSamlField,
    target: async (_svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/idps`, body: samlIdp() }),
  },
  {
    name: 'PATCH …/idps/{id} (SAML)',
    dto: UpdateIdpDto,
    method: 'PATCH',
    exactUnreachable: ['metadataXml', 'metadataUrl', 'nameIdFormat'],
    only: isSamlField,
    target: async (svc, orgId) => {
      const url = `/management/v1/orgs/${orgId}/idps/${(await created(svc, `/management/v1/orgs/${orgId}/idps`, samlIdp())).id}`;
      return { url, body: {}, read: url };
    },
  },
  {
    name: 'POST …/users/{id}/identities',
    dto: LinkIdentityDto,
    method: 'POST',
    exactUnreachable: ['idpId'],
    target: async (svc, orgId) => {
      const { userId } = await created(svc, `${users(orgId)}/human`, human());
      const { id } = await created(svc, `/management/v1/orgs/${orgId}/idps`, idp());
      return { url: `${users(orgId)}/${userId}/identities`, body: { idpId: id, subject: unique('subject') } };
    },
  },
  // Provisioning targets (docs/provisioning.md), disabled so nothing is pushed. URLs are checked by the service, and group and
  // project ids must be the organization's: their exact lengths cannot be accepted. The OAuth fields go with an OAuth target.
  {
    name: 'POST …/provisioning/targets',
    dto: CreateTargetDto,
    method: 'POST',
    exactUnreachable: ['baseUrl', 'scope.groupIds.0', 'rolesFrom'],
    only: (path) => !isOauthField(path),
    target: async (_svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/provisioning/targets`, body: bearerTarget() }),
  },
  {
    name: 'POST …/provisioning/targets (OAuth)',
    dto: CreateTargetDto,
    method: 'POST',
    exactUnreachable: ['auth.tokenUrl'],
    only: isOauthField,
    target: async (_svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/provisioning/targets`, body: oauthTarget() }),
  },
  {
    name: 'PATCH …/provisioning/targets/{id}',
    dto: UpdateTargetDto,
    method: 'PATCH',
    exactUnreachable: ['baseUrl', 'scope.groupIds.0', 'rolesFrom'],
    only: (path) => !isOauthField(path),
    target: async (svc, orgId) => {
      const url = `/management/v1/orgs/${orgId}/provisioning/targets/${(await created(svc, `/management/v1/orgs/${orgId}/provisioning/targets`, bearerTarget())).id}`;
      return { url, body: { auth: { type: 'bearer' } }, read: url };
    },
  },
  {
    name: 'PATCH …/provisioning/targets/{id} (OAuth)',
    dto: UpdateTargetDto,
    method: 'PATCH',
    exactUnreachable: ['auth.tokenUrl'],
    only: isOauthField,
    target: async (svc, orgId) => {
      const url = `/management/v1/orgs/${orgId}/provisioning/targets/${(await created(svc, `/management/v1/orgs/${orgId}/provisioning/targets`, oauthTarget())).id}`;
      return { url, body: { auth: { type: 'oauth_client_credentials' } }, read: url };
    },
  },
  {
    name: 'POST /admin/v1/import (organization)',
    dto: ImportRequestDto,
    method: 'POST',
    target: async () => ({ url: '/admin/v1/import', body: importBody([{ orgId: unique('imported'), org: { name: 'x' }, humanUsers: [] }]) }),
  },
  {
    name: 'POST …/directories',
    dto: CreateDirectoryDto,
    method: 'POST',
    exactUnreachable: DIRECTORY_SHAPED,
    target: async (svc, orgId) => ({ url: `/management/v1/orgs/${orgId}/directories`, body: await directory(svc) }),
  },
  {
    name: 'PUT /admin/v1/directory-hosts',
    dto: DirectoryHostsDto,
    method: 'PUT',
    // A host name, an address or a range: 300 characters of one is not a host.
    exactUnreachable: ['allow.0'],
    target: async () => ({ url: '/admin/v1/directory-hosts', body: { allow: ['ldap.example.com'] }, read: '/admin/v1/directory-hosts' }),
  },
  {
    name: 'PATCH …/directories/{id}',
    dto: UpdateDirectoryDto,
    method: 'PATCH',
    exactUnreachable: DIRECTORY_SHAPED,
    target: async (svc, orgId) => {
      const { id } = await created(svc, `/management/v1/orgs/${orgId}/directories`, await directory(svc));
      const url = `/management/v1/orgs/${orgId}/directories/${id}`;
      return { url, body: {}, read: url };
    },
  },
  // Shared Signals stream management (docs/signals.md): the receiver is an application of the organization.
  {
    name: 'POST /ssf/v1/streams',
    dto: StreamInputDto,
    method: 'POST',
    // A method, an event type and a stream id have shapes of their own (a stream id is the transmitter's).
    exactUnreachable: ['delivery.method', 'events_requested.0'],
    target: async (svc, orgId) => ({
      url: '/ssf/v1/streams',
      body: { delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: 'https://93.184.215.14/ssf' } },
      headers: await receiverOf(svc, orgId),
    }),
  },
  {
    name: 'POST /ssf/v1/streams/status',
    dto: StreamStatusInputDto,
    method: 'POST',
    exactUnreachable: ['stream_id'],
    target: async (svc, orgId) => {
      const { headers, streamId } = await receiverStream(svc, orgId);
      return { url: '/ssf/v1/streams/status', body: { stream_id: streamId, status: 'paused' }, headers, read: `/ssf/v1/streams?stream_id=${streamId}` };
    },
  },
  {
    name: 'POST /ssf/v1/streams/verify',
    dto: VerificationInputDto,
    method: 'POST',
    exactUnreachable: ['stream_id'],
    target: async (svc, orgId) => {
      const { headers, streamId } = await receiverStream(svc, orgId);
      return { url: '/ssf/v1/streams/verify', body: { stream_id: streamId }, headers };
    },
  },
  {
    name: 'POST /ssf/v1/streams/subjects/add',
    dto: SubjectInputDto,
    method: 'POST',
    exactUnreachable: ['stream_id'],
    target: async (svc, orgId) => {
      const { headers, streamId } = await receiverStream(svc, orgId);
      return { url: '/ssf/v1/streams/subjects/add', body: { stream_id: streamId, subject: { format: 'email', email: 'someone@example.com' } }, headers };
    },
  },
  {
    name: 'POST /ssf/v1/poll/{id}',
    dto: PollInputDto,
    method: 'POST',
    target: async (svc, orgId) => {
      const { headers, streamId } = await receiverStream(svc, orgId);
      return { url: `/ssf/v1/poll/${streamId}`, body: {}, headers };
    },
  },
];

/** A new OIDC application of the organization, as a Shared Signals receiver's credentials (HTTP Basic). */
async function receiverOf(svc: TestService, orgId: string): Promise<Record<string, string>> {
  const app = await created(svc, `/management/v1/orgs/${orgId}/projects/${await project(svc, orgId)}/apps/oidc`, {
    ...oidcApp(),
    authMethod: 'client_secret_basic',
    ssfReceiver: true,
  });
  return { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` };
}

async function receiverStream(svc: TestService, orgId: string): Promise<{ headers: Record<string, string>; streamId: string }> {
  const headers = await receiverOf(svc, orgId);
  const res = await svc.api('POST', '/ssf/v1/streams', { headers, body: { delivery: { method: 'urn:ietf:rfc:8936' } } });
  assert.equal(res.status, 201, res.text);
  return { headers, streamId: res.body.stream_id };
}

const TABLES = [
  'organizations',
  'users',
  'projects',
  'applications',
  'org_groups',
  'identity_providers',
  'org_domains',
  'user_identities',
  'provisioning_targets',
  'events',
];

/**
 * docs/product-rules.md, "API": every field has a length bound checked before the database, with the same
 * 400 on SQLite and MariaDB. Generated from the DTOs' own bounds (@Bounded, src/common/http/validation/bounded.decorator.ts,
 * mostly from users/rules/string-bounds.ts): a new bounded field is tested without a line here, and a new DTO with
 * bounded fields fails the first test until a route sends it.
 */
describe('Management API and import: every string field has a bound, the same on both databases', () => {
  const svc = useService();
  let orgId: string;
  before(async () => {
    orgId = (await createOrg(svc)).id;
  });

  it('every DTO with a bounded field is sent by a route here', () => {
    const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<Dto, ValidationMetadata[]> };
    // DTOs composed with @nestjs/swagger's IntersectionType copy their parts' fields without extending them.
    const composedOf = new Map<Dto, Dto[]>([[CreateApiAppDto, [ApiResourceFieldsDto]]]);
    const covered = new Set(ROUTES.flatMap((r) => [r.dto, ...nestedOf(r.dto), ...(composedOf.get(r.dto) ?? [])]));
    for (const [dto, metadata] of storage.validationMetadatas) {
      // A base class's fields are walked through the DTOs that extend it.
      const extended = [...covered].some((c) => c.prototype instanceof dto);
      if (metadata.some((m) => boundOf(m) !== undefined)) assert.ok(covered.has(dto) || extended, `${dto.name} has bounded fields but no route in this test`);
    }
  });

  for (const route of ROUTES) {
    for (const { path, field, bound } of boundedFields(route.dto).filter((f) => route.only?.(f.path) ?? true)) {
      it(`${route.name} ${path}: ${bound} characters are accepted, ${bound + 1} are refused`, async () => {
        const target = await route.target(svc, orgId);
        const counts = async () => Promise.all(TABLES.map((table) => countRows(svc, table)));
        const read = async () => target.read && (await api(svc, 'GET', target.read, undefined, target.headers)).body;
        const before = { counts: await counts(), read: await read() };
        const refused = await api(svc, route.method, target.url, withValue(target.body, path, valueOfLength(path, bound + 1)), target.headers);
        assert.equal(refused.status, 400, refused.text);
        assert.ok(
          refused.body.details.some((d: { field: string; message: string }) => d.field === field && d.message.includes(`at most ${bound} characters`)),
          `${path}: ${refused.text}`,
        );
        assert.deepEqual({ counts: await counts(), read: await read() }, before);

        if (route.exactUnreachable?.includes(path)) return;
        const accepted = await api(svc, route.method, target.url, withValue(target.body, path, valueOfLength(path, bound)), target.headers);
        assert.ok([200, 201, 204].includes(accepted.status), `${path}: ${accepted.text}`);
      });
    }
  }

  // Fields whose other rule cannot take the full bound: IsEmail (64 + 1 + 254 characters), the gender's few values.
  const IMPORT_EXACT_UNREACHABLE = ['user.email.email', 'user.profile.gender'];
  for (const [path, key] of Object.entries(IMPORT_STRING_FIELDS)) {
    const bound = STRING_BOUNDS[key];
    const exactReachable = !IMPORT_EXACT_UNREACHABLE.includes(path);
    // Per-user problems are error entries of a 200 (docs/product-rules.md, "Import and event search").
    it(`POST /admin/v1/import ${path}: ${bound} characters are imported, ${bound + 1} are reported`, async () => {
      const [over, exact] = [humanUser(unique('over')), humanUser(unique('exact'))];
      const set = (item: ReturnType<typeof humanUser>, length: number) =>
        Object.assign(item, { user: withValue(item.user, path.slice('user.'.length), valueOfLength(path, length)) });
      const usersBefore = await countRows(svc, 'users');
      const response = await postImport(svc, importBody([{ orgId, humanUsers: [set(over, bound + 1), ...(exactReachable ? [set(exact, bound)] : [])] }]));
      assert.equal(userErrors(response).get(over.userId), `${path} must be at most ${bound} characters`);
      assert.equal(await countRows(svc, 'users'), usersBefore + (exactReachable ? 1 : 0), JSON.stringify(response.errors));
    });
  }
});

function nestedOf(dto: Dto): Dto[] {
  return getMetadataStorage()
    .getTargetValidationMetadatas(dto, '', true, false)
    .filter((m) => m.type === 'nestedValidation')
    .map((m) => defaultMetadataStorage.findTypeMetadata(dto, m.propertyName)?.typeFunction())
    .filter(Boolean)
    .flatMap((nested: Dto) => [nested, ...nestedOf(nested)]);
}
