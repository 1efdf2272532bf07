import { outboundFetch } from '../common/net/outbound-fetch.js';
import type { OutboundRequest } from '../common/net/outbound-fetch.js';
import type { TargetRow } from './provisioning.queries.js';
import type { AuthSettings } from './provisioning-settings.js';

/** docs/provisioning.md, "Outbound calls": no redirects, at most 1 MiB in an answer (outbound-fetch.ts enforces both, and the timeout). */
const MAX_ANSWER_BYTES = 1024 * 1024;
const SCIM_JSON = 'application/scim+json';

/** Where and how one target is called: its base URL, the public half of its auth, and its decrypted secret. */
export interface ScimEndpoint {
  baseUrl: string;
  auth: AuthSettings;
  secret: string;
}

/** A target's endpoint from its row, the secret decrypted with the master key. */
export function endpointOf(target: Pick<TargetRow, 'baseUrl' | 'settings' | 'secret'>, decrypt: (sealed: string) => string): ScimEndpoint {
  return { baseUrl: target.baseUrl, auth: target.settings.auth, secret: decrypt(target.secret) };
}

/** A target refused the credentials (401/403, at the token endpoint or the SCIM API). */
export class ScimAuthError extends Error {}

export type Fetch = (url: string, init: OutboundRequest) => Promise<Response>;

/** Requests to one target, each given `timeoutMs` (the target's `requestTimeoutMs`, provisioning-settings.ts) to answer whole. */
export function scimFetch(allowPrivateNetworks: boolean, timeoutMs: number): Fetch {
  return outboundFetch({ allowPrivateNetworks, timeoutMs, maxBodyBytes: MAX_ANSWER_BYTES });
}

/**
 * The `Authorization` header for a target: the bearer token as given, or an access token from the OAuth token
 * endpoint by the client credentials grant (RFC 6749 §4.4), the client authenticating with HTTP Basic (§2.3.1).
 */
export async function authorizationFor(endpoint: ScimEndpoint, fetch: Fetch): Promise<{ header: string; expiresAt: number }> {
  if (endpoint.auth.type === 'bearer') return { header: `Bearer ${endpoint.secret}`, expiresAt: Number.POSITIVE_INFINITY };
  const { tokenUrl, clientId, scope } = endpoint.auth;
  const form = new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
  // RFC 6749 §2.3.1: the client id and secret are form-urlencoded before they are joined for Basic.
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(endpoint.secret)}`).toString('base64');
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
    body: form,
  });
  if (res.status === 400 || res.status === 401 || res.status === 403)
    throw new ScimAuthError(`the token endpoint refused the client credentials (${res.status})`);
  if (res.status !== 200) throw new Error(`the token endpoint answered ${res.status}`);
  const body = (await res.json().catch(() => undefined)) as { access_token?: unknown; token_type?: unknown; expires_in?: unknown } | undefined;
  if (typeof body?.access_token !== 'string' || typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer')
    throw new Error('the token endpoint answered no bearer access token');
  const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000 : 300_000;
  // Renewed a little before it runs out, so no request carries a token that expires on its way.
  return { header: `Bearer ${body.access_token}`, expiresAt: Date.now() + lifetime - Math.min(30_000, lifetime / 10) };
}

/** A request to a target's SCIM API (RFC 7644 §3): JSON in and out, the path appended to the base URL. */
export function scimRequest(
  endpoint: ScimEndpoint,
  fetch: Fetch,
  authorization: string,
  method: string,
  path: string,
  body?: unknown,
  discardSuccessBody = false,
): Promise<Response> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}${path}`;
  return fetch(url, {
    method,
    discardSuccessBody,
    headers: { accept: `${SCIM_JSON}, application/json`, authorization, ...(body === undefined ? {} : { 'content-type': SCIM_JSON }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** What a target's `ServiceProviderConfig` (RFC 7643 §5) says it supports. */
export interface TargetFeatures {
  patch: boolean;
  filter: boolean;
  bulk: boolean;
}

/** Operations in one PATCH when the target's ServiceProviderConfig names no `patch.maxOperations`. */
export const DEFAULT_PATCH_OPERATIONS = 100;

export function featuresOf(config: unknown): TargetFeatures {
  const c = (config ?? {}) as Record<string, { supported?: unknown } | undefined>;
  return { patch: c.patch?.supported === true, filter: c.filter?.supported === true, bulk: c.bulk?.supported === true };
}

/**
 * The most operations one PATCH may carry: `patch.maxOperations` where the target's ServiceProviderConfig names it
 * (RFC 7643 §5 names it for bulk only; this service and others advertise it for PATCH too), else 100.
 */
export function patchOperationsOf(config: unknown): number {
  const max = ((config ?? {}) as { patch?: { maxOperations?: unknown } }).patch?.maxOperations;
  return typeof max === 'number' && Number.isInteger(max) && max > 0 ? max : DEFAULT_PATCH_OPERATIONS;
}

/** `POST …/test` (docs/provisioning.md, "Targets"): authenticate, read `ServiceProviderConfig`; a failure is the answer's `error`, never a 5xx. */
export async function testConnection(endpoint: ScimEndpoint, fetch: Fetch): Promise<{ ok: boolean; error?: string } & TargetFeatures> {
  const none = { patch: false, filter: false, bulk: false };
  try {
    const { header } = await authorizationFor(endpoint, fetch);
    const res = await scimRequest(endpoint, fetch, header, 'GET', '/ServiceProviderConfig');
    if (res.status === 401 || res.status === 403) return { ok: false, ...none, error: `the target refused the credentials (${res.status})` };
    if (res.status !== 200) return { ok: false, ...none, error: `GET /ServiceProviderConfig answered ${res.status}` };
    const config = await res.json().catch(() => undefined);
    if (!config || typeof config !== 'object') return { ok: false, ...none, error: 'GET /ServiceProviderConfig answered no JSON object' };
    return { ok: true, ...featuresOf(config) };
  } catch (error) {
    return { ok: false, ...none, error: error instanceof Error ? error.message : String(error) };
  }
}
