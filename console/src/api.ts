import { currentSession } from './auth';
import type { components } from './api/schema';

/** An answer of the §4 API other than 2xx: its `{code, message, details}` body (docs/product-rules.md, "API"). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: unknown[] = [],
  ) {
    super(message);
  }
}

let onUnauthenticated: () => void = () => undefined;

/** Called when the API answers 401: the token expired or was revoked, so the console asks to sign in again. */
export function whenUnauthenticated(handler: () => void): void {
  onUnauthenticated = handler;
}

/** Calls the API with the signed-in user's token: the console can do exactly what that user's roles allow. */
export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const session = currentSession();
  if (!session) {
    onUnauthenticated();
    throw new ApiError(401, 'not signed in');
  }
  const res = await fetch(path, {
    method,
    headers: { Authorization: `Bearer ${session.accessToken}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  const parsed = text ? safeJson(text) : undefined;
  if (!res.ok) {
    if (res.status === 401) onUnauthenticated();
    const error = parsed as { message?: unknown; details?: unknown; detail?: unknown } | undefined;
    const message = typeof error?.message === 'string' ? error.message : typeof error?.detail === 'string' ? error.detail : `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, message, Array.isArray(error?.details) ? error.details : []);
  }
  return parsed as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A query string from the defined values only. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const enc = encodeURIComponent;

/**
 * A schema of the API's OpenAPI document (`/docs-json`), as the controllers declare it: the console's types come
 * from there, never from a copy (console/src/api/schema.d.ts, written by `npm run build`; docs/console.md).
 */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
