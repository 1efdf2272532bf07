import type { OidcTarget as Target } from '../scenarios/oidc-setup.js';

export type Headers = Record<string, string | string[] | undefined>;
export type Context = Record<string, any>;

export function header(headers: Headers, name: string): string | string[] | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key ? headers[key] : undefined;
}

/** Keeps the cookies a response sets, as a browser would (name=value only; tests cover attributes). */
export function keepCookies(context: Context, headers: Headers): void {
  const set = header(headers, 'set-cookie');
  context.cookies ??= {};
  for (const line of [set ?? []].flat()) {
    const [pair] = line.split(';');
    const at = pair.indexOf('=');
    context.cookies[pair.slice(0, at)] = pair.slice(at + 1);
  }
}

export const cookieHeader = (context: Context) =>
  Object.entries(context.cookies ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
export const pathOf = (location: string, base: string) => {
  const url = new URL(location, base);
  return url.pathname + url.search;
};

/**
 * The client a login chain signs in to: the target's confidential web client by default, or a public client (no
 * secret: it names itself in the code redemption's body, RFC 6749 §3.2.1) whose PKCE (RFC 7636) and RFC 8707
 * `resource` go into `authorize` and `redeem`.
 */
export interface ChainClient {
  id: string;
  redirect: string;
  secret?: string;
  scope?: string;
  /** Parameters added to the authorization request. */
  authorize?: Record<string, string>;
  /** Parameters added to the code redemption. */
  redeem?: Record<string, string>;
}

/**
 * A full code-flow login as an autocannon request chain (each connection runs it over and over):
 * authorize → login page → password POST → resume → code redemption at the token endpoint.
 */
export function loginChain(
  t: Target,
  done: { logins: number; failed: number; lastAccessToken?: string },
  client: ChainClient = { id: t.web.id, secret: t.web.secret, redirect: t.web.redirect },
) {
  const authorize = `/oauth/v2/authorize?${new URLSearchParams({ client_id: client.id, redirect_uri: client.redirect, response_type: 'code', scope: client.scope ?? 'openid', state: 'bench', ...client.authorize })}`;
  const authentication: { headers: Record<string, string>; form: Record<string, string> } =
    client.secret === undefined
      ? { headers: {}, form: { client_id: client.id } }
      : {
          headers: { authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}` },
          form: {},
        };
  return [
    {
      method: 'GET',
      path: authorize,
      setupRequest: (req: Record<string, unknown>, context: Context) => {
        context.cookies = {};
        return { ...req, path: authorize, headers: {} };
      },
      onResponse: (_status: number, _body: string, context: Context, headers: Headers) => {
        keepCookies(context, headers);
        context.location = header(headers, 'location');
      },
    },
    {
      method: 'GET',
      setupRequest: (req: Record<string, unknown>, context: Context) => ({
        ...req,
        path: pathOf(String(context.location), t.url),
        headers: { cookie: cookieHeader(context) },
      }),
      onResponse: (_status: number, body: string, context: Context, headers: Headers) => {
        keepCookies(context, headers);
        context.action = /action="([^"]+)"/.exec(body)?.[1];
        context.csrf = /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
      },
    },
    {
      method: 'POST',
      setupRequest: (req: Record<string, unknown>, context: Context) => ({
        ...req,
        path: String(context.action),
        headers: { cookie: cookieHeader(context), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: context.csrf, loginName: t.login.name, password: t.login.password }).toString(),
      }),
      onResponse: (_status: number, _body: string, context: Context, headers: Headers) => {
        keepCookies(context, headers);
        context.location = header(headers, 'location');
      },
    },
    {
      method: 'GET',
      setupRequest: (req: Record<string, unknown>, context: Context) => ({
        ...req,
        path: pathOf(String(context.location), t.url),
        headers: { cookie: cookieHeader(context) },
      }),
      onResponse: (_status: number, _body: string, context: Context, headers: Headers) => {
        keepCookies(context, headers);
        const location = String(header(headers, 'location') ?? '');
        context.code = location.startsWith('http') ? new URL(location).searchParams.get('code') : undefined;
      },
    },
    {
      method: 'POST',
      setupRequest: (req: Record<string, unknown>, context: Context) => ({
        ...req,
        path: '/oauth/v2/token',
        headers: { ...authentication.headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: String(context.code ?? 'none'),
          redirect_uri: client.redirect,
          ...authentication.form,
          ...client.redeem,
        }).toString(),
      }),
      onResponse: (status: number, body: string) => {
        if (status === 200) {
          done.logins++;
          done.lastAccessToken = (JSON.parse(body) as { access_token: string }).access_token;
        } else done.failed++;
      },
    },
  ];
}
