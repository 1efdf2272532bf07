import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { json } from '../../common/database/column-values.js';
import { dynamicClientRow } from './dynamic-clients.queries.js';

/** oidc-provider's routes of RFC 7591 §3 (registration) and RFC 7592 §2 (read, update). */
const ANSWERING_ROUTES = new Set(['registration', 'client', 'client_update']);

/**
 * The members an answer adds to the client's metadata: RFC 7591 §3.2.1 (`client_id`, `client_id_issued_at`, and the
 * secret members, empty here since no secret is issued) and RFC 7592 §3 (`registration_access_token`,
 * `registration_client_uri`).
 */
const ANSWER_MEMBERS = new Set([
  'client_id',
  'client_id_issued_at',
  'client_secret',
  'client_secret_expires_at',
  'registration_access_token',
  'registration_client_uri',
]);

/**
 * RFC 7591 §3.2.1: the answer holds "all registered metadata about the client". What this instance adds to a
 * registered client where it is read (its organization, its kind, the scopes its resource decides; client.store.ts)
 * was never registered, and says to the client things that are none of its business: the answer keeps only the
 * members stored for it (docs/agents.md, "Dynamic registration").
 */
export function registrationAnswers(dataSource: DataSource) {
  return async (ctx: OidcContext, next: () => Promise<void>): Promise<void> => {
    await next();
    const route = (ctx as { oidc?: { route?: string } }).oidc?.route;
    if (!route || !ANSWERING_ROUTES.has(route) || (ctx.status !== 200 && ctx.status !== 201)) return;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || typeof body.client_id !== 'string') return;
    const row = await dynamicClientRow(dataSource, body.client_id);
    const stored = json<Record<string, unknown>>(row?.metadata, {});
    ctx.body = Object.fromEntries(Object.entries(body).filter(([key]) => ANSWER_MEMBERS.has(key) || key in stored));
  };
}
