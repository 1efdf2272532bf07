import type { OidcContext } from 'oidc-provider';
import { RETRY_AFTER_SECONDS } from '../../common/http/error-headers.js';
import { KNOWN_ACCOUNTS_COOKIE } from '../../login/known-accounts.js';
import { LOGIN_PAGE_HEADERS, contentSecurityPolicy } from '../../login/login-page.headers.js';
import { INTROSPECTION_FACTS } from './introspection.policy.js';
import type { IntrospectionFacts } from './introspection.policy.js';
import { setOAuthError } from './oauth-errors.js';
import { OIDC_ROUTES } from './oidc.routes.js';

/**
 * What Portcullis adds around oidc-provider's own endpoint stacks, one named step each (as oidc-provider
 * composes its endpoints). `requestSteps` run before the provider, `responseSteps` after it, in order.
 */
export type Step = (ctx: OidcContext, publicUrl: string) => void;

// JARM's modes too (docs/oauth-profiles.md, "Signed authorization responses (JARM)"): signed responses, by the same three ways.
const RESPONSE_MODES = new Set(['query', 'fragment', 'form_post', 'jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt']);
/** Koa state flag set by the `server_error` listener: the request failed because the database is away. */
export const DATABASE_UNAVAILABLE = Symbol('databaseUnavailable');

/** An invalid response_mode is ignored; the default for the response type applies (docs/product-rules.md, "OpenID Connect and OAuth"). */
function ignoreUnknownResponseMode(ctx: OidcContext): void {
  if (ctx.path !== OIDC_ROUTES.authorization || typeof ctx.query.response_mode !== 'string' || RESPONSE_MODES.has(ctx.query.response_mode)) return;
  const { response_mode: _ignored, ...rest } = ctx.query;
  ctx.query = rest;
}

/**
 * The end-session endpoint is where the user's browser is sent (OIDC RP-Initiated Logout 1.0 §2; docs/product-rules.md,
 * "OpenID Connect and OAuth"), and every answer of it is a page: its refusals too (an unregistered post_logout_redirect_uri, a bad
 * id_token_hint), which oidc-provider would otherwise answer as JSON to any Accept header that does not name HTML first.
 */
function endSessionAnswersPages(ctx: OidcContext): void {
  if (ctx.path !== OIDC_ROUTES.end_session && !ctx.path.startsWith(`${OIDC_ROUTES.end_session}/`)) return;
  ctx.req.headers.accept = 'text/html';
}

/**
 * oidc-provider's own pages (error, logout confirmation, form_post) get the login UI's headers; the
 * form_post page submits itself with an inline script, which its CSP must allow. (The Content-Type's
 * media type is compared as is: no type-is parsing on every token and introspection answer.)
 */
function loginPageHeaders(ctx: OidcContext): void {
  if (ctx.response.type !== 'text/html') return;
  ctx.set({ ...LOGIN_PAGE_HEADERS });
  // The form_post page posts to the client's redirect URI; the page that ends another account's session
  // before a sign-in continues (at the resume URL) posts to end_session/confirm, which redirects back to the
  // authorization and on to the redirect URI; the logout confirmation redirects to the post-logout URI. Each
  // is allowed only once the provider has checked it against the registration: on a page it answered 200
  // (an error page about an unregistered URI must not allow it).
  const oidc = ctx.oidc as
    | {
        params?: Record<string, unknown>;
        redirectUriCheckPerformed?: boolean;
        route?: string;
        entities?: { Interaction?: { params?: Record<string, unknown> } };
      }
    | undefined;
  const checked = (value: unknown, ok: boolean) => (ok && typeof value === 'string' ? value : undefined);
  const targets = [
    checked(oidc?.params?.redirect_uri, oidc?.redirectUriCheckPerformed === true),
    // The interaction's parameters were checked when the authorization request created it.
    checked(oidc?.entities?.Interaction?.params?.redirect_uri, oidc?.route === 'resume' && ctx.status === 200),
    checked(oidc?.params?.post_logout_redirect_uri, oidc?.route === 'end_session' && ctx.status === 200),
  ];
  const scripts = String(ctx.body).includes('<script>') ? "'unsafe-inline'" : "'self'";
  ctx.set('Content-Security-Policy', contentSecurityPolicy(scripts, targets));
}

/** A database outage is temporary: 503 + Retry-After as on every other surface, not a 500. */
function outageAs503(ctx: OidcContext): void {
  if (!ctx.state[DATABASE_UNAVAILABLE] || ctx.status !== 500) return;
  ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
  if (ctx.response.type === 'text/html') ctx.status = 503;
  else setOAuthError(ctx, 503, 'temporarily_unavailable', 'the database is unavailable; retry later');
}

/**
 * JWKS may be cached for five minutes; scheduled keys are published a day ahead and retired keys stay
 * until their tokens expire (README, SIGNING_ALG). `key_ops` only keeps oidc-provider from signing with
 * a key other than the signer; published next to `use` it would say nothing more (RFC 7517 §4.3).
 */
function jwksForCaching(ctx: OidcContext): void {
  if (ctx.path !== OIDC_ROUTES.jwks || ctx.status !== 200) return;
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.body = { keys: (ctx.body as { keys: object[] }).keys.map(({ key_ops: _ops, ...key }: { key_ops?: unknown }) => key) };
}

/**
 * Logging out also forgets the browser's remembered accounts (login UI account selection) — not when
 * oidc-provider ends a session only to switch accounts: it then returns to the authorization.
 */
function forgetRememberedAccountsOnLogout(ctx: OidcContext, publicUrl: string): void {
  if (ctx.method !== 'POST' || ctx.path !== `${OIDC_ROUTES.end_session}/confirm` || !ctx.oidc?.params?.logout) return;
  if (String(ctx.response.get('Location') ?? '').startsWith(`${publicUrl}${OIDC_ROUTES.authorization}/`)) return;
  ctx.append('Set-Cookie', `${KNOWN_ACCOUNTS_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
}

/**
 * A token response names the granted scope when one was granted, and leaves the member out when nothing
 * beyond the default was (RFC 6749 §3.3: a scope is one or more tokens, so `""` is no scope; §5.1 lets
 * it be omitted when it is what was asked, here nothing). oidc-provider already omits it for client
 * credentials; grants of our own (jwt-profile, token exchange) may compute an empty one.
 */
function noEmptyScope(ctx: OidcContext): void {
  if (ctx.oidc?.route === 'token' && ctx.status === 200 && ctx.body?.scope === '') delete ctx.body.scope;
}

/** The introspection members (docs/product-rules.md, "OpenID Connect and OAuth"); the user's claims never replace one of them (RFC 7662 §2.2). */
function introspectionMembers(ctx: OidcContext): void {
  const facts: IntrospectionFacts | undefined = ctx[INTROSPECTION_FACTS];
  if (!facts || ctx.body?.active !== true) return;
  const iat = ctx.body.iat ?? facts.iat;
  // A DPoP-bound token says so (RFC 9449 §6.2, with its `cnf.jkt`); every other one is a Bearer token.
  const tokenType = ctx.body.token_type === 'DPoP' ? 'DPoP' : 'Bearer';
  // oidc-provider's `sub` is the token's client's (pairwise for a pairwise client, OIDC Core §8); a machine's token has none.
  const sub = typeof ctx.body.sub === 'string' ? ctx.body.sub : facts.userId;
  ctx.body = { ...facts.claims, ...ctx.body, sub, aud: facts.audience, username: facts.username, token_type: tokenType, jti: facts.jti, iat, nbf: iat };
}

export const requestSteps: Step[] = [ignoreUnknownResponseMode, endSessionAnswersPages];

/** Order matters once: the 503 body is replaced only for a non-HTML answer, after the page headers. */
export const responseSteps: Step[] = [loginPageHeaders, outageAs503, jwksForCaching, forgetRememberedAccountsOnLogout, noEmptyScope, introspectionMembers];
