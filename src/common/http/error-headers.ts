import type { ServerResponse } from 'node:http';

/** Seconds a client should wait before retrying a 503 (RFC 9110 §10.2.3). */
export const RETRY_AFTER_SECONDS = 5;

/**
 * The headers an error status carries on every surface (admin JSON, SCIM). `challenge` replaces the plain
 * Bearer challenge of a 401 (a DPoP refusal: `WWW-Authenticate: DPoP error="…"` and `DPoP-Nonce`, RFC 9449 §7.1, §9).
 */
export function setErrorHeaders(response: ServerResponse, status: number, challenge?: Record<string, string>): void {
  // RFC 6750 §3: a 401 names the authentication scheme.
  if (status === 401) for (const [name, value] of Object.entries(challenge ?? { 'WWW-Authenticate': 'Bearer' })) response.setHeader(name, value);
  if (status === 503) response.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
}
