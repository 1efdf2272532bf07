import type { OidcContext } from 'oidc-provider';
import type { EntityManager } from 'typeorm';
import { consentCovers } from './agent-consent-protocol.js';
import { CIMD_AGENT, DCR_AGENT, clientKindOf } from '../../login/client-kind.js';
import type { KindedClient } from '../../login/client-kind.js';

/** The marker of a client that registered itself (CIMD or RFC 7591), set where such clients are created. */
export function agentKindOf(client: unknown): 'cimd' | 'dcr' | undefined {
  const kind = clientKindOf(client as KindedClient | undefined);
  return kind === 'metadata-document' ? CIMD_AGENT : kind === 'registered' ? DCR_AGENT : undefined;
}

/** The resource of an authorization request (RFC 8707), '' for none: what a consent is remembered for. */
export function requestedResource(ctx: OidcContext): string {
  const resource = ctx.oidc.params?.resource;
  return String((Array.isArray(resource) ? resource[0] : resource) ?? '');
}

/**
 * True when the client is an agent client and the signed-in person has not yet allowed it these scopes at this
 * resource: no grant is loaded then, so oidc-provider's consent prompt asks (prompt=none: consent_required).
 * Administrators' clients are never asked (docs/agents.md, "Consent and connected agents").
 */
export async function agentConsentMissing(manager: EntityManager, ctx: OidcContext): Promise<boolean> {
  const { oidc } = ctx;
  if (!agentKindOf(oidc.client) || !oidc.account) return false;
  return !(await consentCovers(manager, {
    userId: oidc.account.accountId,
    clientId: oidc.client.clientId,
    resource: requestedResource(ctx),
    scopes: [...oidc.requestParamScopes],
  }));
}
