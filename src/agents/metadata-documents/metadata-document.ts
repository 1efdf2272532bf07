import type { AdapterPayload } from 'oidc-provider';
import { checkClientJwks } from '../../common/crypto/client-jwks.js';
import { clientNameProblem } from './client-name.js';

import { AGENT_CLIENT_MARKER, CIMD_AGENT } from '../../login/client-kind.js';

/** The marker of agent clients and its value for one known by its metadata document: read by clientKindOf (src/login/client-kind.ts). */
export { AGENT_CLIENT_MARKER, CIMD_AGENT };

/**
 * A client metadata document's checked content, or why it names no client (`invalid_client_metadata` when the
 * document is well formed but a member's value is refused, RFC 7591 §3.2.2).
 */
export type CheckedDocument = { metadata: AdapterPayload; jwksUri?: string } | { problem: string; error?: 'invalid_client_metadata' };

const AUTH_METHODS = new Set(['none', 'private_key_jwt']);
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const MAX_REDIRECT_URIS = 20;

/**
 * A Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document-03) as this instance accepts it
 * (docs/agents.md, "Client ID Metadata Documents"): a JSON object whose `client_id` is the URL it was fetched from,
 * character for character; redirect URIs that are `https`, `http` on a loopback host, or an app's private-use scheme
 * (RFC 8252 §7); and no shared secret: `token_endpoint_auth_method` is `none` (PKCE S256 is then required) or
 * `private_key_jwt` with `jwks` or `jwks_uri` (the draft forbids the symmetric methods). Only the members below are read;
 * the client is a `native` one for oidc-provider, so a loopback redirect URI matches on any port (RFC 8252 §7.3).
 */
export function checkMetadataDocument(url: string, document: unknown, scope: string): CheckedDocument {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return { problem: 'the document is not a JSON object' };
  const doc = document as Record<string, unknown>;
  if (doc.client_id !== url) return { problem: 'the document’s client_id is not exactly its URL' };
  if ('client_secret' in doc || 'client_secret_expires_at' in doc) return { problem: 'the document carries a client secret' };
  const method = doc.token_endpoint_auth_method;
  if (typeof method !== 'string' || !AUTH_METHODS.has(method)) return { problem: 'token_endpoint_auth_method must be none or private_key_jwt' };
  const redirects = redirectUris(doc.redirect_uris);
  if (typeof redirects === 'string') return { problem: redirects };
  const grantTypes = doc.grant_types ?? ['authorization_code'];
  if (!Array.isArray(grantTypes) || !grantTypes.includes('authorization_code') || grantTypes.some((g) => !GRANT_TYPES.has(g)))
    return { problem: 'grant_types must be authorization_code, with refresh_token or not' };
  const responseTypes = doc.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.length !== 1 || responseTypes[0] !== 'code') return { problem: 'response_types must be code' };
  const nameProblem = clientNameProblem(doc.client_name);
  if (nameProblem) return { problem: nameProblem, error: 'invalid_client_metadata' };
  const name = typeof doc.client_name === 'string' && doc.client_name.trim() !== '' ? doc.client_name : new URL(url).hostname;
  const metadata: AdapterPayload = {
    client_id: url,
    client_name: name,
    redirect_uris: redirects,
    post_logout_redirect_uris: [],
    response_types: ['code'],
    grant_types: [...new Set(grantTypes as string[])],
    application_type: 'native',
    token_endpoint_auth_method: method,
    introspection_endpoint_auth_method: method,
    revocation_endpoint_auth_method: method,
    require_auth_time: true,
    subject_type: 'public',
    scope,
    portcullis_kind: 'agent',
    // The hook of the consent prompt (docs/agents.md, "Client ID Metadata Documents"): agent clients are marked.
    [AGENT_CLIENT_MARKER]: CIMD_AGENT,
  };
  if (method === 'none') return { metadata };
  if (doc.jwks !== undefined) {
    const { jwks, problems } = checkClientJwks(doc.jwks, 'jwks');
    if (!jwks) return { problem: problems.map((p) => `${p.field}: ${p.message}`).join('; ') };
    return { metadata: { ...metadata, jwks } };
  }
  const jwksUri = typeof doc.jwks_uri === 'string' ? URL.parse(doc.jwks_uri) : null;
  if (!jwksUri || jwksUri.protocol !== 'https:') return { problem: 'private_key_jwt needs jwks or an https jwks_uri' };
  return { metadata, jwksUri: jwksUri.href };
}

/** The document's redirect URIs, or what is wrong with them. */
function redirectUris(value: unknown): string[] | string {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_REDIRECT_URIS) return `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs`;
  for (const uri of value) {
    const parsed = typeof uri === 'string' ? URL.parse(uri) : null;
    if (!parsed || uri.includes('#')) return 'each redirect URI is an absolute URI without a fragment';
    const loopback = LOOPBACK_HOSTS.has(parsed.hostname);
    const ok =
      parsed.protocol === 'https:'
        ? !loopback
        : parsed.protocol === 'http:'
          ? loopback
          : // A private-use scheme is a reversed domain name (RFC 8252 §7.1), never a web or script scheme.
            /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(parsed.protocol);
    if (!ok) return `redirect URI ${uri} is neither https, http on a loopback host, nor a private-use scheme`;
  }
  return [...new Set(value as string[])];
}
