import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import type { AssertionReplayGuard } from '../grants/assertion-replay.js';

/** oidc-provider's PushedAuthorizationRequest, as the authorization endpoint loaded it from the `request_uri`. */
interface PushedRequest {
  jti: string;
  exp?: number;
}

/**
 * A `request_uri` opens one authorization request (docs/oauth-profiles.md, "Pushed authorization requests (PAR)").
 * oidc-provider consumes it only when the authorization answers the client, so until then every request with it starts
 * a new sign-in: a leaked `request_uri` (browser history, a Referer) would open the client's login page again. RFC 9126
 * §4 lets the server accept reloads and recommends one-time use; here the first authorization request uses it up,
 * in every process (a row of the used-`jti` store), and the sign-in it started goes on by its interaction, not by
 * the `request_uri`. The error is the one oidc-provider gives a used `request_uri`.
 */
export async function usePushedRequestOnce(ctx: OidcContext, usedRequests: AssertionReplayGuard, clientId: string): Promise<void> {
  const pushed = ctx.oidc.entities.PushedAuthorizationRequest as PushedRequest | undefined;
  if (!pushed || ctx.oidc.route !== 'authorization') return;
  const until = (pushed.exp ?? Math.floor(Date.now() / 1000) + 60) * 1000;
  if (!(await usedRequests.firstUse(`pushed-request:${clientId}`, pushed.jti, until))) {
    throw new errors.InvalidRequestUri('request_uri is invalid, expired, or was already used');
  }
}
