/**
 * The refresh-token grant (Keycloak's sizing counts refreshes/s). Refresh tokens come from code-flow logins
 * asking for `offline_access` (with `prompt=consent`, which oidc-provider needs to keep that scope; Portcullis's
 * login UI answers the consent itself). Portcullis rotates a refresh token on every use and revokes the grant
 * when an old one comes back (RFC 9700 §4.14.2), so no token may be sent twice: the connections share a pool,
 * each request takes a token out and its answer puts the rotated one back.
 */
import { cookieHeader, keepCookies, pathOf } from '../peers/login-chain.js';
import type { Context, Headers } from '../peers/login-chain.js';
import { FORM } from './oidc-setup.js';
import type { OidcTarget } from './oidc-setup.js';

/**
 * Tokens in a pool for `connections` connections: one per connection, and one more where an unmeasured warm-up runs
 * first, since the requests in flight when it stops never bring theirs back (each token is a login, the longest part
 * of the set-up).
 */
export const poolSize = (connections: number, warmup: boolean) => connections * (warmup ? 2 : 1);

const webBasic = (t: OidcTarget) => `Basic ${Buffer.from(`${encodeURIComponent(t.web.id)}:${encodeURIComponent(t.web.secret)}`).toString('base64')}`;

/**
 * autocannon's request list for `connections` connections, after checking that a refresh succeeds;
 * `warmup`: whether an unmeasured warm-up runs on it first; `scope`: what the logins ask for.
 */
export async function refreshRequests(
  t: OidcTarget,
  connections: number,
  warmup: boolean,
  scope = 'openid offline_access',
): Promise<Record<string, unknown>[]> {
  const pool: string[] = [];
  for (let i = 0; i < poolSize(connections, warmup); i++) pool.push(await offlineLogin(t, scope));
  pool.push(await refresh(t, pool.pop()!));
  return rotatingRefreshRequests(pool, { authorization: webBasic(t) });
}

/**
 * How a refresh request names its client: a confidential client's Basic header, or a public client's `client_id`
 * in the body (RFC 6749 §2.3.1 and §3.2.1).
 */
export type RefreshClient = { authorization: string } | { clientId: string };

/** The refresh requests of a pool of refresh tokens: each takes a token out, its answer puts the rotated one back. */
export function rotatingRefreshRequests(pool: string[], client: RefreshClient): Record<string, unknown>[] {
  const authorization = 'authorization' in client ? { authorization: client.authorization } : {};
  const form: Record<string, string> = 'clientId' in client ? { client_id: client.clientId } : {};
  return [
    {
      method: 'POST',
      path: '/oauth/v2/token',
      setupRequest: (req: Record<string, unknown>) => ({
        ...req,
        // A new object for each request: autocannon writes the request's Content-Length into the headers it is given.
        headers: { ...FORM, ...authorization },
        // An empty pool (not expected) sends no token: answered 400, counted as an error.
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: pool.pop() ?? '', ...form }).toString(),
      }),
      onResponse: (status: number, body: string) => {
        if (status === 200) pool.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
      },
    },
  ];
}

/** One refresh, failing the run unless it gives a new access token and the rotated refresh token. */
async function refresh(t: OidcTarget, token: string): Promise<string> {
  const res = await fetch(`${t.url}/oauth/v2/token`, {
    method: 'POST',
    headers: { ...FORM, authorization: webBasic(t) },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }),
  });
  const body = (await res.json()) as { access_token?: string; refresh_token?: string };
  if (!body.access_token || !body.refresh_token || body.refresh_token === token)
    throw new Error(`refresh at ${t.url} answered ${res.status} ${JSON.stringify(body)}, not a rotated refresh token`);
  return body.refresh_token;
}

/**
 * A scripted code-flow login asking for `offline_access`: follows the redirects, posts the login form it is
 * shown, redeems the code; gives the refresh token.
 */
async function offlineLogin(t: OidcTarget, scope: string): Promise<string> {
  const params = {
    client_id: t.web.id,
    redirect_uri: t.web.redirect,
    response_type: 'code',
    scope,
    prompt: 'consent',
    state: 'bench',
  };
  const context: Context = { cookies: {} };
  let request: { method: string; path: string; body?: string } = { method: 'GET', path: `/oauth/v2/authorize?${new URLSearchParams(params)}` };
  for (let step = 0; step < 10; step++) {
    const res = await fetch(t.url + request.path, {
      method: request.method,
      body: request.body,
      redirect: 'manual',
      headers: { cookie: cookieHeader(context), ...(request.body ? FORM : {}) },
    });
    const headers: Headers = { 'set-cookie': res.headers.getSetCookie() };
    keepCookies(context, headers);
    const location = res.headers.get('location');
    const html = await res.text();
    if (location?.startsWith(t.web.redirect)) return redeem(t, new URL(location).searchParams.get('code') ?? '');
    if (location) {
      request = { method: 'GET', path: pathOf(location, t.url) };
      continue;
    }
    const action = /action="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action)
      throw new Error(`offline_access login at ${t.url}: ${request.method} ${request.path} answered ${res.status} without a login form`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
    request = { method: 'POST', path: action, body: new URLSearchParams({ csrf, loginName: t.login.name, password: t.login.password }).toString() };
  }
  throw new Error(`offline_access login at ${t.url}: no code after 10 steps`);
}

async function redeem(t: OidcTarget, code: string): Promise<string> {
  const res = await fetch(`${t.url}/oauth/v2/token`, {
    method: 'POST',
    headers: { ...FORM, authorization: webBasic(t) },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: t.web.redirect }),
  });
  const body = (await res.json()) as { refresh_token?: string };
  if (!body.refresh_token) throw new Error(`code redemption at ${t.url} gave no refresh token: ${res.status} ${JSON.stringify(body)}`);
  return body.refresh_token;
}
