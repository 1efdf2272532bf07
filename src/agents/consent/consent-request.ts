import type { DataSource } from 'typeorm';
import { json } from '../../common/database/column-values.js';
import type { ConsentRequest } from '../../login/consent-protocol.js';
import type { ResourceScope } from '../../users/entities/application.entity.js';
import type { ApplicationAccess } from '../../users/project-access/application-access.service.js';
import { apiResourceByUri } from '../../users/queries/api-resources.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

interface Asked {
  client: { clientId: string; clientName?: string };
  kind: 'cimd' | 'dcr';
  accountId: string;
  params: Record<string, string | undefined>;
  /** The interaction approves a device code (RFC 8628 §3.3): it has no redirect URI. */
  device?: boolean;
}

/**
 * What the consent page shows (docs/agents.md, "Consent and connected agents"): who asks (the host of a metadata
 * document's client_id, since that is what the person can check; a dynamic registration is nobody's word), where the
 * answer goes, for which resource and each scope's description as the resource's API application defines it.
 */
export async function consentRequestOf(dataSource: DataSource, access: ApplicationAccess, asked: Asked): Promise<ConsentRequest> {
  const { client, kind, params } = asked;
  const redirect = safeUrl(params.redirect_uri);
  const api = params.resource ? await apiResourceByUri(dataSource, params.resource) : undefined;
  const described = new Map(json<ResourceScope[]>(api?.resource_scopes, []).map((s) => [s.name, s.description]));
  const scopes = (params.scope ?? '')
    .split(' ')
    .filter(Boolean)
    .map((name) => ({ name, description: described.get(name) }));
  // docs/product-rules.md, "Application access": the resource's API application decides who may connect an agent.
  const refused = api
    ? !(await access.mayEnter({ projectId: api.project_id, access: api.access === 'granted' ? 'granted' : 'everyone' }, asked.accountId))
    : false;
  return {
    clientName: client.clientName ?? client.clientId,
    // The hostname the document was fetched from is what was proven; a port says nothing a person can check.
    ...(kind === 'cimd' ? { clientHost: safeUrl(client.clientId)?.hostname ?? client.clientId } : {}),
    redirectHost: redirect?.host ?? '',
    loopback: redirect ? LOOPBACK_HOSTS.has(redirect.hostname) : false,
    ...(asked.device ? { device: true } : {}),
    ...(api ? { resourceName: api.name } : {}),
    scopes,
    refused,
  };
}

function safeUrl(value: string | undefined): URL | undefined {
  try {
    return value ? new URL(value) : undefined;
  } catch {
    return undefined;
  }
}
