/**
 * Authorization codes of a confidential client minted ahead of a measurement, and the token requests that redeem them
 * (RFC 6749 §4.1.3). A code is single-use (§4.1.2), so a repeated code-redemption request needs one code each: one
 * sign-in through the login UI with the password, then authorization requests in its session, each answered with a
 * code straight away (oidc-provider's SSO: a session and a remembered grant ask for no interaction). The redemption
 * is the same token request as at the end of a whole sign-in; the minting stays outside the timed window.
 */
import { LoginClient } from '../../test/attack/support/login-client.js';
import { inParallel } from './sign-in.js';

export interface CodeClient {
  id: string;
  secret: string;
  redirect: string;
}

const basic = (c: CodeClient) => `Basic ${Buffer.from(`${encodeURIComponent(c.id)}:${encodeURIComponent(c.secret)}`).toString('base64')}`;

/** `count` codes of one signed-in session, minted `parallel` at a time. */
export async function mintCodes(url: string, client: CodeClient, login: { name: string; password: string }, count: number, parallel = 10): Promise<string[]> {
  const browser = new LoginClient(url);
  const authorize = `/oauth/v2/authorize?${new URLSearchParams({ client_id: client.id, redirect_uri: client.redirect, response_type: 'code', scope: 'openid', state: 'bench' })}`;
  const { uid, csrf } = await browser.startLogin(Object.fromEntries(new URL(authorize, url).searchParams));
  const signedIn = await browser.follow(await browser.post(`/ui/login/${uid}/login`, { csrf, loginName: login.name, password: login.password }));
  if (!signedIn.location?.startsWith(client.redirect))
    throw new Error(`${login.name}: the sign-in did not end at the redirect URI: ${signedIn.status} ${signedIn.location ?? signedIn.text.slice(0, 300)}`);
  const codes: string[] = [];
  await inParallel(Array.from({ length: count }), parallel, async () => {
    const res = await browser.get(authorize);
    const code = res.location?.startsWith(client.redirect) ? new URL(res.location).searchParams.get('code') : null;
    if (!code) throw new Error(`an authorization request in the session answered ${res.status} ${res.location ?? res.text.slice(0, 300)}, not a code`);
    codes.push(code);
  });
  return codes;
}

/**
 * autocannon's request list redeeming the codes of `pool`, one each, oldest first. An emptied pool sends `none` (answered 400): the
 * caller checks that codes were left.
 */
export function codeRedemptions(pool: string[], client: CodeClient): Record<string, unknown>[] {
  return [
    {
      method: 'POST',
      path: '/oauth/v2/token',
      setupRequest: (req: Record<string, unknown>) => ({
        ...req,
        // A new object for each request: autocannon writes the request's Content-Length into the headers it is given.
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client) },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: pool.shift() ?? 'none', redirect_uri: client.redirect }).toString(),
      }),
    },
  ];
}
