import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { registrationModesInUse } from '../../users/queries/registration-modes.js';

/** RFC 8414 §3: where an authorization server publishes its metadata; oidc-provider answers it beside OIDC discovery. */
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/**
 * RFC 8414 §3.1: for an issuer with a path, the well-known string goes between host and path
 * (`https://host/.well-known/oauth-authorization-server/tenant` for `https://host/tenant`). Undefined for an issuer
 * without a path.
 */
export function pathInsertedMetadataPath(issuer: string): string | undefined {
  const path = new URL(issuer).pathname.replace(/\/+$/, '');
  return path === '' ? undefined : `${AUTHORIZATION_SERVER_METADATA_PATH}${path}`;
}

/** What the metadata consults, read on every request for it (a changed login policy counts at once). */
export interface AgentRegistrationSettings {
  /** Whether any organization's `agentClients` is not `off`. */
  anyAgentClients: () => Promise<boolean>;
}

/**
 * What the metadata says of agent clients' registration (docs/agents.md, "Metadata"): `client_id_metadata_document_supported`
 * (draft-ietf-oauth-client-id-metadata-document) and `registration_endpoint` (RFC 7591), each present only when the
 * instance accepts such clients: CIMD while some organization's `agentClients` is not `off`, the registration endpoint
 * (oidc-provider's, `registrationEndpoint`) while some organization's `dynamicRegistration` is not `off`. Read on
 * every request: a changed policy counts at once.
 */
export async function agentRegistrationMetadata(
  settings: AgentRegistrationSettings,
  dataSource: DataSource,
  registrationEndpoint: unknown,
): Promise<Record<string, unknown>> {
  const registration = await registrationModesInUse(dataSource);
  return {
    ...((await settings.anyAgentClients()) ? { client_id_metadata_document_supported: true } : {}),
    ...(registration.any && typeof registrationEndpoint === 'string' ? { registration_endpoint: registrationEndpoint } : {}),
  };
}

/**
 * The RFC 8414 document is oidc-provider's discovery document (the same endpoints and what they support, the
 * same content type and caching) with `code_challenge_methods_supported` (RFC 8414 §2: S256 only, as PKCE is
 * required S256 for public clients) and the agent registration fields. OIDC discovery names the registration
 * endpoint under the same condition.
 */
export function completeAuthorizationServerMetadata(settings: AgentRegistrationSettings, dataSource: DataSource) {
  return async (ctx: OidcContext, next: () => Promise<void>): Promise<void> => {
    await next();
    if (ctx.method !== 'GET' || ctx.status !== 200) return;
    if (ctx.path !== AUTHORIZATION_SERVER_METADATA_PATH && ctx.path !== OIDC_DISCOVERY_PATH) return;
    const { registration_endpoint: endpoint, ...document } = ctx.body as Record<string, unknown>;
    const agents = await agentRegistrationMetadata(settings, dataSource, endpoint);
    ctx.body =
      ctx.path === AUTHORIZATION_SERVER_METADATA_PATH ? { ...document, code_challenge_methods_supported: ['S256'], ...agents } : { ...document, ...agents };
  };
}

const OIDC_DISCOVERY_PATH = '/.well-known/openid-configuration';
