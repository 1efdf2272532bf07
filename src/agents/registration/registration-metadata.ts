import { errors } from 'oidc-provider';
import { clientNameProblem } from '../metadata-documents/client-name.js';

/**
 * What a client that registers itself may say of itself (RFC 7591 §2; docs/agents.md, "Dynamic registration"). It
 * is a public client with PKCE or authenticates with its own keys: no shared secret. Its redirect URIs are `https`,
 * or `http` on a loopback address for an app on the user's computer (RFC 8252 §7.3). Its keys are given inline: the
 * instance fetches nothing a stranger names (no `jwks_uri`, `sector_identifier_uri`).
 */
/** The client ids oidc-provider's registration hands out (dynamic-registration.ts). */
export const AGENT_CLIENT_PREFIX = 'agent-';

/** `portcullis_agent` of a client that registered itself: the consent page names it an unverified registration (src/login/client-kind.ts). */
export { DCR_AGENT } from '../../login/client-kind.js';

export const AGENT_AUTH_METHODS = ['none', 'private_key_jwt'];
const GRANT_TYPES = ['authorization_code', 'refresh_token'];
/** RFC 8628 §3.4. */
const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
/** Metadata that makes this instance fetch from an address the client chose. */
const FETCHED = ['jwks_uri', 'sector_identifier_uri', 'request_uris', 'backchannel_logout_uri', 'initiate_login_uri'];

/** Throws the RFC 7591 §3.2.2 error for the first rule the metadata breaks. */
export function assertAgentClientMetadata(metadata: Record<string, unknown>): void {
  const method = metadata.token_endpoint_auth_method;
  if (typeof method !== 'string' || !AGENT_AUTH_METHODS.includes(method))
    throw new errors.InvalidClientMetadata('token_endpoint_auth_method must be none (with PKCE) or private_key_jwt: no client secrets are issued');
  const nameProblem = clientNameProblem(metadata.client_name);
  if (nameProblem) throw new errors.InvalidClientMetadata(nameProblem);
  const fetched = FETCHED.find((key) => metadata[key] !== undefined && !(Array.isArray(metadata[key]) && (metadata[key] as unknown[]).length === 0));
  if (fetched) throw new errors.InvalidClientMetadata(`${fetched} is not accepted for a registered agent; give keys inline as jwks`);
  const grants = Array.isArray(metadata.grant_types) ? (metadata.grant_types as unknown[]) : [];
  const foreignGrant = grants.find((g) => typeof g !== 'string' || ![...GRANT_TYPES, DEVICE_CODE_GRANT].includes(g));
  if (foreignGrant !== undefined) throw new errors.InvalidClientMetadata(`grant_types may hold only ${[...GRANT_TYPES, DEVICE_CODE_GRANT].join(', ')}`);
  // RFC 8628 §5.6: a device client cannot keep a secret; the grant is for public clients, as MCP clients without a
  // browser of their own use it (docs/agents.md, "Device authorization for agents").
  if (grants.includes(DEVICE_CODE_GRANT) && method !== 'none')
    throw new errors.InvalidClientMetadata(`${DEVICE_CODE_GRANT} is only for public clients (token_endpoint_auth_method none)`);
  const responses = Array.isArray(metadata.response_types) ? (metadata.response_types as unknown[]) : [];
  if (responses.some((r) => r !== 'code')) throw new errors.InvalidClientMetadata('response_types may hold only code');
  const redirects = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
  // A client of the device grant alone redirects nowhere (RFC 8628 §3.3: the person uses another device's browser).
  const redirectsNowhere = grants.length > 0 && !grants.includes('authorization_code') && Array.isArray(metadata.response_types) && responses.length === 0;
  if (redirects.length === 0 && !redirectsNowhere) throw new errors.InvalidRedirectUri('redirect_uris must name at least one URI');
  for (const uri of redirects) {
    if (!allowedRedirect(uri)) throw new errors.InvalidRedirectUri(`redirect_uris: ${String(uri)} is neither https nor http on a loopback address`);
  }
}

function allowedRedirect(uri: unknown): boolean {
  if (typeof uri !== 'string') return false;
  const url = URL.parse(uri);
  if (!url || url.hash !== '' || url.username !== '' || url.password !== '') return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && LOOPBACK_HOSTS.includes(url.hostname);
}

/** Our own metadata (`portcullis_*`) is never the client's to set: dropped from what it sends. */
export function withoutOwnMetadata<T extends Record<string, unknown>>(metadata: T): T {
  for (const key of Object.keys(metadata)) if (key.startsWith('portcullis_')) delete metadata[key];
  return metadata;
}
