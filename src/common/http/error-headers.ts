import type { ServerResponse } from 'node:http';

/** Seconds a client should wait before retrying a 503 (RFC 9110 §10.2.3). */
export const RETRY_AFTER_SECONDS = 5;

/** The headers an error status carries on every surface (admin JSON, SCIM). */
export function setErrorHeaders(response: ServerResponse, status: number): void {
  // RFC 6750 §3: a 401 names the authentication scheme.
  if (status === 401) response.setHeader('WWW-Authenticate', 'Bearer');
  if (status === 503) response.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
}
