import { Logger } from '@nestjs/common';
import { errors } from 'oidc-provider';
import { DynamicClientBoundReached } from './dynamic-clients.queries.js';
import type { DynamicClientBound } from './dynamic-clients.queries.js';

/**
 * The bounds of the registrations held (DYNAMIC_REGISTRATION_MAX_PER_ORG, DYNAMIC_REGISTRATION_MAX_UNBOUND;
 * docs/agents.md, "Dynamic registration"): past one, a registration, or the binding of an open one, is refused.
 */
const logger = new Logger('DynamicRegistration');
/** One warning per bound and organization in this time: a client that keeps trying does not flood the log. */
const WARN_EVERY_MS = 60_000;
const warned = new Map<string, number>();

/** Which bound, and how room comes back: lapses, and an administrator's removal (registered-clients). */
const REFUSAL: Record<DynamicClientBound, string> = {
  organization:
    'the organization holds as many registered clients as this instance allows; registrations unused for 30 days lapse, and an administrator of the organization can delete registered clients',
  unbound:
    'this instance holds as many openly registered clients not yet bound to an organization as it allows; registrations unused for 30 days lapse, a client can delete its own (RFC 7592), and an administrator of the instance can delete them',
};

/**
 * Runs `work` (a registration or a binding, dynamic-clients.queries.ts) and answers a bound it would pass
 * with access_denied. RFC 7591 §3.2.2 answers a registration error with 400 and an error code; none of the codes it
 * defines fits, since the metadata is not at fault (invalid_client_metadata would invite the client to change it and
 * try again), so it is `access_denied` (RFC 6749 §4.1.2.1): the authorization server denied the request. Not 429 or
 * 503 `temporarily_unavailable`: room comes back only when registrations lapse or are deleted, so an answer that
 * invites retrying would have every client retry in vain.
 */
export async function refusedPastBound<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DynamicClientBoundReached)) throw error;
    warnOnce(error);
    throw new errors.AccessDenied(REFUSAL[error.bound]);
  }
}

/** A warning an operator notices, naming the bound and the organization, never the client's metadata. */
function warnOnce({ bound, orgId, limit }: DynamicClientBoundReached): void {
  const key = `${bound}/${orgId ?? ''}`;
  const now = Date.now();
  if (now - (warned.get(key) ?? 0) < WARN_EVERY_MS) return;
  if (warned.size > 10_000) warned.clear();
  warned.set(key, now);
  const which =
    bound === 'organization'
      ? `organization ${orgId} holds ${limit} (DYNAMIC_REGISTRATION_MAX_PER_ORG)`
      : `${limit} are unbound (DYNAMIC_REGISTRATION_MAX_UNBOUND)`;
  logger.warn(`dynamic client registration refused: ${which} live registered clients`);
}
