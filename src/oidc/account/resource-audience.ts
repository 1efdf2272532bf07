import type { DataSource } from 'typeorm';
import { resourcesOf } from '../../login/resource-entry.js';
import { audienceOf, tokenAudience } from '../tokens/audience.js';

/**
 * The audience an authorization request asks for, as the resource check reads it (docs/application-access.md,
 * "Resources of a restricted API application"): the `resource` values it names (RFC 8707 §2), else what a token of
 * the client and scope would carry (its project and the requested projects).
 */
export async function requestedAudience(
  dataSource: DataSource,
  client: { clientId?: string } | undefined,
  params: { resource?: unknown; scope?: unknown } | undefined,
): Promise<string[]> {
  const resources = resourcesOf(params?.resource);
  if (resources.length > 0) return resources;
  if (!client?.clientId) return [];
  return audienceOf(dataSource, client.clientId, typeof params?.scope === 'string' ? params.scope : undefined);
}

/** What a code, refresh token or access token is (or will be) good at: its recorded resource or audience, else its client's. */
export async function issuedAudience(
  dataSource: DataSource,
  token: { clientId?: unknown; scope?: unknown; aud?: unknown; resource?: unknown; gty?: unknown },
): Promise<string[]> {
  const resources = resourcesOf(token.resource);
  const aud = token.aud ?? (resources.length === 1 ? resources[0] : undefined);
  const computed =
    typeof token.clientId === 'string'
      ? await tokenAudience(dataSource, {
          clientId: token.clientId,
          scope: typeof token.scope === 'string' ? token.scope : undefined,
          aud: aud as string | string[] | undefined,
          gty: typeof token.gty === 'string' ? token.gty : undefined,
        })
      : [];
  return [...new Set([...resources, ...computed])];
}
