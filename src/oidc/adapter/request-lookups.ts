import Provider from 'oidc-provider';
import type { AccountRow } from '../../users/queries/oidc-accounts.js';
import type { TokenUser } from '../tokens/audience.js';

/** A token row as the adapter reads it; `user_*` columns only where the user was joined in. */
export interface PayloadRow {
  model: string;
  payload: string;
  expires_at: unknown;
  consumed_at: unknown;
  /** The user the row belongs to (`upsert` fills it), where selected. */
  account_id?: string | null;
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
  /**
   * The accounts read with a token's row in this request (userinfo, the refresh grant), by user id (null:
   * no such user), for oidc-provider's `findAccount` right after it (account.finder.ts).
   */
  accounts: Map<string, AccountRow | null>;
}

/** Held on the request's Koa context itself: gone with the request, cheaper to reach than a WeakMap entry. */
const LOOKUPS = Symbol('portcullis.request-lookups');
type WithLookups = { [LOOKUPS]?: RequestLookups };

/** The lookups of the request being handled (oidc-provider's Provider.ctx), if any. */
export function requestLookups(ctx: object | undefined = Provider.ctx): RequestLookups | undefined {
  if (!ctx) return undefined;
  return ((ctx as WithLookups)[LOOKUPS] ??= { rows: new Map(), keys: new Map(), users: new Map(), accounts: new Map() });
}

/** Writes in this request make the rows (and the accounts read with them) read before stale. */
export function forgetRows(): void {
  const lookups = (Provider.ctx as WithLookups | undefined)?.[LOOKUPS];
  lookups?.rows.clear();
  lookups?.accounts.clear();
}

/**
 * The account of `userId` read with a token's row earlier in this request: its row, null when the token's
 * user does not exist, undefined when none was read (the caller reads it).
 */
export function accountReadWithToken(userId: string): AccountRow | null | undefined {
  return (Provider.ctx as WithLookups | undefined)?.[LOOKUPS]?.accounts.get(userId);
}
