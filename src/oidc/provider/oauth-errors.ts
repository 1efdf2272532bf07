import type { ServerResponse } from 'node:http';
import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';

/**
 * The one producer of the OAuth error answers Portcullis writes itself, beside oidc-provider's own: the
 * JSON body of RFC 6749 §5.2 (`error`, optional `error_description`) and `Cache-Control: no-store`
 * (RFC 6749 §5.1). Before the provider (the dispatch, POST-to-GET) it is written on the Node response;
 * within it (a database outage) set on the Koa context; in a grant it is thrown for oidc-provider to render.
 */
export interface OAuthErrorBody {
  error: string;
  error_description?: string;
}

export function oauthErrorBody(error: string, description?: string): OAuthErrorBody {
  return description === undefined ? { error } : { error, error_description: description };
}

/** Writes the answer unless one was already (partly) sent. */
export function writeOAuthError(res: ServerResponse, status: number, error: string, description?: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(oauthErrorBody(error, description)));
}

/** Replaces the answer oidc-provider prepared on `ctx`. */
export function setOAuthError(ctx: OidcContext, status: number, error: string, description?: string): void {
  ctx.body = oauthErrorBody(error, description);
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
}

/**
 * invalid_grant whose error_description says which check failed: oidc-provider's own InvalidGrant
 * answers "grant request is invalid" whatever the reason, which leaves a client nothing to fix. The
 * descriptions name the check, never another organization's users or keys.
 */
export function invalidGrant(description: string): Error {
  return Object.assign(new errors.InvalidGrant(description), { error_description: description });
}

/**
 * One answer for an unknown subject, an inactive one and one of another organization, so a token
 * exchange cannot tell which users exist elsewhere.
 */
export const SUBJECT_NOT_SERVED = 'the subject is not an active user this client may serve';
export const SUBJECT_NOT_ADMITTED = 'the subject has no access to this application';
