import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { InstanceEntity } from '../../users/entities/instance.entity.js';
import { projectsOfOrganization } from '../../users/queries/application-audience.js';
import { API_AUDIENCE, apiAudienceAllowed, requestedProjects } from '../tokens/audience.js';
import { RESOURCE_COMPANION_SCOPES } from '../../users/api-resource.rules.js';
import { SCOPES } from './scopes.js';
import { SSF_MANAGE_SCOPE } from '../../common/auth/client-tokens.js';
import { clientKindOf } from '../../login/client-kind.js';
import { apiResourceByUri } from '../../users/queries/api-resources.js';
import type { ApiResourceRow } from '../../users/queries/api-resources.js';
import type { ResourceScope } from '../../users/entities/application.entity.js';
import { json } from '../../common/database/column-values.js';
import { agentClientRefusal, belongsToNoOrganization, isSelfRegistered } from '../../agents/agent-organization.js';
import type { AgentClientPolicy } from '../../agents/agent-organization.js';
import { isUnboundAgent, organizationOfResources } from '../../agents/agent-organization.js';

/**
 * oidc-provider's resource indicators (RFC 8707): machine users' tokens are for the Portcullis API, and
 * JWT-format application tokens need a resource server too, since oidc-provider only issues JWTs for one.
 * An application gets no more than its owner (SECURITY.md): the API only for first-party applications and
 * machine users, project audiences only of the client's organization. Every other resource is an API
 * application's `resourceUri` of the client's organization (docs/agents.md, "Resources"); anything else is
 * `invalid_target` (RFC 8707 §2).
 */
export function resourceIndicators(dataSource: DataSource, instance: InstanceEntity, alg: string, agentPolicy: (orgId: string) => Promise<AgentClientPolicy>) {
  return {
    enabled: true,
    defaultResource: async (ctx: OidcContext, client: ClientMeta) => {
      // A client that registered itself (metadata document or RFC 7591, bound to an organization or not) names the
      // resource of every token it asks for: no default is a decision about what it may reach (docs/agents.md).
      if (isSelfRegistered(client)) throw new errors.InvalidTarget('a resource is required for this client');
      await assertOwnProjects(dataSource, ctx, client);
      if (isClientCredentials(ctx)) return clientCredentialsResource(ctx, client);
      return defaultResource(ctx, client);
    },
    useGrantedResource: () => true,
    getResourceServerInfo: async (ctx: OidcContext, resource: string, client: ClientMeta) => {
      if (isClientCredentials(ctx) && clientKindOf(client) !== 'machine') throw new errors.InvalidTarget(RECEIVER_TOKEN_TARGET);
      if (resource === API_AUDIENCE && !apiAudienceAllowed(client)) throw new errors.InvalidTarget('this client may not obtain tokens for the Portcullis API');
      if (resource === API_AUDIENCE || resource === ownProjectResource(client)) return resourceServerInfo(ctx, resource, client, instance, alg);
      const api = await apiResourceByUri(dataSource, resource);
      if (belongsToNoOrganization(client)) return agentResourceServerInfo(resource, api, client, agentPolicy, instance, alg);
      // An agent that registered openly takes a resource of an organization that is `open`, and is bound to it by
      // its first code (dynamic-registration.ts, bindAgentsAtFirstCode).
      if (isUnboundAgent(client)) {
        if (!api || (await organizationOfResources(dataSource, resource)) !== api.org_id) throw new errors.InvalidTarget('no such resource for this client');
        return apiResourceServerInfo(resource, api, instance, alg);
      }
      // Same organization as the client, for now (docs/agents.md, "Resources"); another's resource is not disclosed.
      if (!api || api.org_id !== client.portcullis_org_id) throw new errors.InvalidTarget('no such resource for this client');
      return apiResourceServerInfo(resource, api, instance, alg);
    },
  };
}

/**
 * A resource for an agent client of no organization (docs/agents.md, "Client ID Metadata Documents"): any API
 * application's resource, when its organization accepts the client (its login policy's `agentClients`, and the
 * client id's host for an allowlist). Checked at the authorization and at the token endpoint alike, so a code or
 * refresh token outlives no change of the policy.
 */
async function agentResourceServerInfo(
  resource: string,
  api: ApiResourceRow | undefined,
  client: ClientMeta,
  agentPolicy: (orgId: string) => Promise<AgentClientPolicy>,
  instance: InstanceEntity,
  alg: string,
) {
  if (!api) throw new errors.InvalidTarget('no such resource for this client');
  const refusal = agentClientRefusal(await agentPolicy(api.org_id), client.clientId);
  if (refusal) throw new errors.InvalidTarget(refusal);
  return apiResourceServerInfo(resource, api, instance, alg);
}

interface ClientMeta {
  clientId: string;
  portcullis_agent?: string;
  portcullis_kind?: string;
  portcullis_org_id?: string;
  portcullis_api_access?: boolean;
  portcullis_access_token_type?: string;
  portcullis_project_id?: string;
}

/** What oidc-provider needs to issue a token for a resource (RFC 8707). */
function resourceServerInfo(ctx: OidcContext, resource: string, client: ClientMeta, instance: InstanceEntity, alg: string) {
  return {
    scope: resourceServerScope(ctx, client),
    // oidc-provider takes one audience string; the full audience is computed from the client and scopes
    // where it matters (JWT claim, introspection, API access): tokens/audience.ts.
    audience: resource,
    accessTokenTTL: instance.accessTokenLifetime,
    accessTokenFormat: client.portcullis_access_token_type === 'jwt' ? 'jwt' : 'opaque',
    jwt: { sign: { alg } },
    resource,
  };
}

/**
 * Project audience scopes name only projects of the client's own organization: another organization's
 * project id is refused with invalid_scope in every flow (SECURITY.md, "Applications get no more than
 * their owners"). Run where oidc-provider resolves a request's resources, before anything is issued.
 */
async function assertOwnProjects(dataSource: DataSource, ctx: OidcContext, client: ClientMeta): Promise<void> {
  const projects = [...new Set(requestedProjects(requestedScope(ctx)))];
  if (projects.length === 0) return;
  const own = await projectsOfOrganization(dataSource, client.portcullis_org_id ?? '', projects);
  const foreign = projects.filter((p) => !own.has(p));
  if (foreign.length > 0)
    throw new errors.InvalidScope(
      `no project ${foreign.join(', ')} in the organization of this client`,
      foreign.map((p) => `urn:portcullis:iam:org:project:id:${p}:aud`).join(' '),
    );
}

const RECEIVER_TOKEN_TARGET = "an application's client credentials token is for the Shared Signals endpoints of this instance alone: no resource";

function isClientCredentials(ctx: OidcContext): boolean {
  return ctx.oidc?.params?.grant_type === 'client_credentials';
}

/**
 * The client credentials grant: a machine user's tokens are for the Portcullis API; an application gets one only as a
 * Shared Signals receiver (its registration then allows `ssf.manage`, client.store.ts), with that scope alone and for
 * no resource, so it is opaque, has no user, and is taken nowhere but by the stream management endpoints
 * (docs/signals.md, "Receivers"): not by the APIs (no Portcullis API audience), introspection (no user) or a resource
 * server of its project (no JWT for the project).
 */
function clientCredentialsResource(ctx: OidcContext, client: ClientMeta): string | undefined {
  const scopes = requestedScope(ctx).split(' ').filter(Boolean);
  if (clientKindOf(client) === 'machine') {
    if (scopes.includes(SSF_MANAGE_SCOPE)) throw new errors.InvalidScope('a machine user is no Shared Signals receiver', SSF_MANAGE_SCOPE);
    return API_AUDIENCE;
  }
  if (scopes.length !== 1 || scopes[0] !== SSF_MANAGE_SCOPE)
    throw new errors.InvalidScope(`an application asks for the scope ${SSF_MANAGE_SCOPE} alone`, SSF_MANAGE_SCOPE);
  return undefined;
}

function defaultResource(_ctx: OidcContext, client: ClientMeta): string | undefined {
  if (clientKindOf(client) === 'machine') return API_AUDIENCE;
  if (client.portcullis_access_token_type === 'jwt') return ownProjectResource(client);
  return undefined;
}

/** The resource a JWT-format application's tokens are issued for when none is asked: its own project. */
function ownProjectResource(client: ClientMeta): string | undefined {
  return client.portcullis_project_id ? `urn:portcullis:project:${client.portcullis_project_id}` : undefined;
}

/**
 * A token for an API application's resource (RFC 8707 §2): that URI is its one audience (tokens/audience.ts), its
 * format the API application's, and its scope at most the resource's own scopes plus RESOURCE_COMPANION_SCOPES;
 * oidc-provider narrows the granted scope to these, so nothing else reaches the resource.
 */
function apiResourceServerInfo(resource: string, api: ApiResourceRow, instance: InstanceEntity, alg: string) {
  const own = json<ResourceScope[]>(api.resource_scopes, []).map((s) => s.name);
  return {
    scope: [...RESOURCE_COMPANION_SCOPES, ...own].join(' '),
    audience: resource,
    accessTokenTTL: instance.accessTokenLifetime,
    accessTokenFormat: api.access_token_type === 'jwt' ? 'jwt' : 'opaque',
    jwt: { sign: { alg } },
  };
}

function requestedScope(ctx: OidcContext): string {
  return String(ctx.oidc?.params?.scope ?? '');
}

/**
 * The scopes a resource server accepts; oidc-provider narrows a token's scope to them. A user's token
 * issued for a resource server (every JWT access token of an application is) keeps the OIDC scopes and
 * audience scopes of its code or refresh token, so userinfo can answer with the claims of its granted
 * scopes (docs/product-rules.md, "OpenID Connect and OAuth"); the grant still filters what is actually granted. Machine users keep the scopes
 * of the request.
 */
function resourceServerScope(ctx: OidcContext, client: ClientMeta): string {
  const requested = requestedScope(ctx);
  if (clientKindOf(client) === 'machine') return requested;
  const entities = ctx.oidc?.entities ?? {};
  const source = String(entities.AuthorizationCode?.scope ?? entities.RefreshToken?.scope ?? '');
  return [...new Set([...SCOPES, ...requested.split(' '), ...source.split(' ')].filter(Boolean))].join(' ');
}
