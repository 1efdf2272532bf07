import { errors } from 'oidc-provider';
import { API_AUDIENCE, API_AUDIENCE_SCOPE, apiAudienceAllowed } from '../tokens/audience.js';
import type { Party } from './token-exchange.parties.js';

interface ExchangingClient {
  clientId: string;
  portcullis_kind?: string;
  portcullis_api_access?: boolean;
}

/**
 * The scope an exchanged token may carry (RFC 8693 §2.1 `scope`; SECURITY.md, "token exchange stays
 * within its subject"): the subject token's. With an actor (impersonation) it is also within the actor
 * token's, since the actor signed in to this client with that scope and impersonation must not widen
 * what the client may do through the actor; a subject that is only a name (`jwt`, `user_id`) is bounded
 * by the actor's token alone.
 */
export function scopeBound(subject: Party, actor: Party | undefined): string[] {
  if (subject.scope === null) return actor?.scope ?? [];
  if (!actor?.scope) return subject.scope;
  const actors = new Set(actor.scope);
  return subject.scope.filter((s) => actors.has(s));
}

/**
 * RFC 8693 §2.1: the requested scope must lie within the bound (invalid_scope names what exceeds it);
 * none requested means the whole bound, i.e. the subject token's scope (RFC 8693 leaves the default to
 * the server). The Portcullis API scope additionally needs a client allowed to hold it for users
 * (SECURITY.md, "an application gets no more than its owner").
 */
export function exchangedScope(requested: string | undefined, bound: string[], client: ExchangingClient): string {
  const allowed = new Set(bound);
  const scopes = requested === undefined ? bound : [...new Set(requested.split(' ').filter(Boolean))];
  const beyond = scopes.filter((s) => !allowed.has(s));
  if (beyond.length > 0) throw new errors.InvalidScope(`the scope ${beyond.join(' ')} exceeds the scope of the subject token`);
  if (scopes.includes(API_AUDIENCE_SCOPE) && !apiAudienceAllowed(client))
    throw new errors.InvalidScope(`this client may not obtain ${API_AUDIENCE_SCOPE} for a user`);
  return scopes.join(' ');
}

/**
 * RFC 8693 §2.1 `audience` (space-separated or repeated): the issued token is for exactly these, each
 * within the combined audiences of the subject and actor tokens (SECURITY.md) and never the Portcullis API
 * for a client that may not hold it; anything else is invalid_target. Without one, the subject token's
 * audience applies (a name-only subject: the actor's), less the API for such a client.
 */
export function exchangedAudience(requested: string | string[] | undefined, subject: Party, actor: Party | undefined, client: ExchangingClient): string[] {
  const obtainable = (aud: string) => aud !== API_AUDIENCE || apiAudienceAllowed(client);
  if (requested === undefined) return (subject.scope === null && actor ? actor : subject).audience.filter(obtainable);
  const audience = [
    ...new Set(
      [requested]
        .flat()
        .flatMap((value) => value.split(' '))
        .filter(Boolean),
    ),
  ];
  if (audience.length === 0) throw new errors.InvalidTarget('audience is empty');
  const combined = new Set([...subject.audience, ...(actor?.audience ?? [])]);
  const outside = audience.filter((aud) => !combined.has(aud));
  if (outside.length > 0) throw new errors.InvalidTarget(`the audience ${outside.join(' ')} is not within the audience of the subject and actor tokens`);
  if (!audience.every(obtainable)) throw new errors.InvalidTarget('this client may not obtain tokens for the Portcullis API');
  return audience;
}
