import Provider from 'oidc-provider';
import type { TokenUser } from '../tokens/audience.js';

/** A token row as the adapter reads it; `user_*` columns only where the user was joined in. */
export interface PayloadRow {
  model: string;
  payload: string;
  expires_at: unknown;
  consumed_at: unknown;
  user_state?: string | null;
  user_name?: string | null;
  primary_domain?: string | null;
}

/**
 * What one request has already read or computed, so oidc-provider's repeated look-ups of the same
 * token (introspection tries three models, the policy then wants the token's user) cost one statement
 * and one hash. Keyed by the request's context: never shared between requests, gone with the request.
 */
export interface RequestLookups {
  /** Token rows by id hash. */
  rows: Map<string, Promise<PayloadRow[]>>;
  /** Row keys (id hashes) by presented token value. */
  keys: Map<string, Promise<string | undefined>>;
  /** The users of the tokens read with their rows, by user id (null: no such user). */
  users: Map<string, TokenUser | null>;
}

const lookups = new WeakMap<object, RequestLookups>();

/** The lookups of the request being handled (oidc-provider's Provider.ctx), if any. */
export function requestLookups(ctx: object | undefined = Provider.ctx): RequestLookups | undefined {
  if (!ctx) return undefined;
  let found = lookups.get(ctx);
  if (!found) lookups.set(ctx, (found = { rows: new Map(), keys: new Map(), users: new Map() }));
  return found;
}

/** Writes in this request make the rows read before stale. */
export function forgetRows(): void {
  const ctx = Provider.ctx;
  if (ctx) lookups.get(ctx)?.rows.clear();
}
