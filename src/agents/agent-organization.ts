import type { DataSource } from 'typeorm';
import type { BoundaryClient } from '../login/organization-boundary.js';
import { apiResourceByUri } from '../users/queries/api-resources.js';
import { organizationRegistrationMode } from '../users/queries/registration-modes.js';
import { clientKindOf, isSelfRegisteredKind } from '../login/client-kind.js';

/** What an organization decided about clients known by their metadata document (its login policy). */
export interface AgentClientPolicy {
  agentClients?: string;
  agentClientHosts?: string[];
}

type AgentClient = BoundaryClient;

/**
 * A client known by its metadata document belongs to no organization (docs/agents.md, "Client ID Metadata
 * Documents"): in each request it serves the organization of the resource it asks for, and the organization rule
 * (SECURITY.md, "Sign-in stays inside the organization") applies to the person with that organization.
 */
export function belongsToNoOrganization(client: AgentClient | undefined): boolean {
  return clientKindOf(client) === 'metadata-document' && !client?.portcullis_org_id;
}

/**
 * A client that registered itself, by its metadata document or by RFC 7591 registration, bound to an organization
 * or not (docs/agents.md): it names the resource of every token it asks for, and never holds the Portcullis API.
 */
export function isSelfRegistered(client: AgentClient | undefined): boolean {
  return isSelfRegisteredKind(clientKindOf(client));
}

/** A client that registered itself by RFC 7591 and is not bound to an organization yet. */
export function isUnboundAgent(client: unknown): boolean {
  const c = client as AgentClient | undefined;
  return clientKindOf(c) === 'registered' && !c?.portcullis_org_id;
}

/**
 * The organization an unbound registration acts for in this request: the one of the resources it names, while that
 * organization is `open`. Undefined when they name none, several organizations', or one that is not open.
 */
export async function organizationOfResources(dataSource: DataSource, resource: unknown): Promise<string | undefined> {
  const uris = (Array.isArray(resource) ? resource : [resource]).filter((r): r is string => typeof r === 'string' && r !== '');
  if (uris.length === 0) return undefined;
  const orgs = new Set<string>();
  for (const uri of uris) {
    const api = await apiResourceByUri(dataSource, uri);
    if (!api) return undefined;
    orgs.add(api.org_id);
  }
  const [orgId] = orgs;
  if (orgs.size !== 1 || (await organizationRegistrationMode(dataSource, orgId)) !== 'open') return undefined;
  return orgId;
}

/** The organization of the API application whose resourceUri is the one `resource` a request names, if any. */
export async function organizationOfResource(dataSource: DataSource, resource: unknown): Promise<string | undefined> {
  const single = Array.isArray(resource) && resource.length === 1 ? resource[0] : resource;
  if (typeof single !== 'string' || single === '') return undefined;
  return (await apiResourceByUri(dataSource, single))?.org_id;
}

/**
 * The client as the organization rule sees it in a request for `resource`: an organization-less agent client
 * takes the resource's organization (none when the request names no resource of this instance: it then serves no
 * one); every other client is itself.
 */
export async function clientServing(dataSource: DataSource, client: AgentClient | undefined, resource: unknown): Promise<BoundaryClient | undefined> {
  // A registration not bound yet serves the organization of its resource while that one takes open registrations,
  // and no one without one.
  if (isUnboundAgent(client)) return { ...client, portcullis_org_id: (await organizationOfResources(dataSource, resource)) ?? '' };
  if (!client || !belongsToNoOrganization(client)) return client;
  // The client itself (its id, name and agent mark: the consent step asks by them), in the resource's organization.
  return { ...client, portcullis_org_id: await organizationOfResource(dataSource, resource), portcullis_api_access: false };
}

/**
 * Why the organization refuses this client id URL (undefined: it accepts it): `off` refuses every one, `allowlist`
 * accepts only client ids whose host is listed (compared exactly, without the port), `consent` accepts any.
 */
export function agentClientRefusal(policy: AgentClientPolicy, clientId: string): string | undefined {
  const mode = policy.agentClients ?? 'off';
  if (mode === 'consent') return undefined;
  if (mode === 'allowlist') {
    const host = URL.parse(clientId)?.hostname.toLowerCase();
    return host !== undefined && (policy.agentClientHosts ?? []).includes(host)
      ? undefined
      : 'the organization of this resource does not accept clients of this host';
  }
  return 'the organization of this resource does not accept clients known by their metadata document';
}
