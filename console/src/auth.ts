/**
 * Sign-in through this instance's own OpenID Provider (docs/console.md, "Sign-in"): authorization code
 * with PKCE S256 (RFC 7636) as the public client `console`, state and nonce checked on the way back.
 *
 * Tokens live in sessionStorage: they survive a reload of the tab but not its closing, no other tab or
 * origin reads them, and being no cookie they are never sent by the browser on its own (no CSRF on the
 * API). What could read them is script in this origin, which the CSP (script-src 'self', no inline
 * script) limits to the bundle itself. No refresh token is asked for (no offline_access): an expired
 * access token means signing in again, through the provider's session if it is still alive.
 */

export const CLIENT_ID = 'console';
/** The Portcullis API audience (docs/product-rules.md, "OpenID Connect and OAuth"): the console is a first-party application (apiAccess). */
const SCOPE = 'openid profile urn:portcullis:iam:api:aud';
const SESSION_KEY = 'portcullis.console.session';
const PENDING_KEY = 'portcullis.console.pending';

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  end_session_endpoint?: string;
  userinfo_endpoint?: string;
}

export interface IdClaims {
  sub: string;
  iss: string;
  aud: string | string[];
  exp: number;
  nonce?: string;
  name?: string;
  preferred_username?: string;
}

export interface Session {
  accessToken: string;
  idToken: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  claims: IdClaims;
}

interface Pending {
  verifier: string;
  state: string;
  nonce: string;
  returnTo: string;
}

let discovery: Promise<Discovery> | undefined;

/** OpenID Connect Discovery 1.0, from this origin (the console is served by the provider's own process). */
function discover(): Promise<Discovery> {
  discovery ??= fetch('/.well-known/openid-configuration').then(async (res) => {
    if (!res.ok) throw new Error(`discovery failed (${res.status})`);
    return (await res.json()) as Discovery;
  });
  return discovery;
}

/** The session as stored, whether or not its access token has expired. */
function storedSession(): Session | null {
  const raw = sessionStorage.getItem(SESSION_KEY);
  return raw ? (JSON.parse(raw) as Session) : null;
}

export function currentSession(): Session | null {
  const session = storedSession();
  if (!session) return null;
  if (session.expiresAt <= Date.now()) {
    sessionStorage.removeItem(SESSION_KEY);
    return null;
  }
  return session;
}

/**
 * The issuer the console signed in with: the ID token's `iss`, which sign-in checked against discovery's
 * `issuer` (PUBLIC_URL). Shown on application pages without fetching anything.
 */
export function signedInIssuer(): string | null {
  return currentSession()?.claims.iss ?? null;
}

/** OpenID Connect Discovery 1.0 §4: the issuer without a trailing `/`, then `/.well-known/openid-configuration`. */
export function discoveryUrlOf(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

export function forgetSession(): void {
  sessionStorage.removeItem(SESSION_KEY);
}

const redirectUri = (d: Discovery) => new URL('/console/callback', d.issuer).href;
const postLogoutUri = (d: Discovery) => new URL('/console/', d.issuer).href;

/** Starts the authorization request (RFC 6749 §4.1.1 with RFC 7636 §4.3); the browser leaves the page. */
export async function signIn(returnTo: string, language: string): Promise<void> {
  const d = await discover();
  // The redirect URI is registered under PUBLIC_URL (the issuer): opened under another name of the same
  // server (127.0.0.1 for localhost), this tab's sessionStorage would not be the callback's. Go there first.
  const home = new URL('/console/', d.issuer);
  if (home.origin !== location.origin) return void location.assign(home.href);
  const pending: Pending = { verifier: randomString(32), state: randomString(16), nonce: randomString(16), returnTo };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const params = new URLSearchParams({
    client_id: CLIENT_ID,
    response_type: 'code',
    redirect_uri: redirectUri(d),
    scope: SCOPE,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await challengeOf(pending.verifier),
    code_challenge_method: 'S256',
    ui_locales: language,
  });
  location.assign(`${d.authorization_endpoint}?${params}`);
}

/**
 * The redirect back (RFC 6749 §4.1.2): the state must be the one this tab sent, then the code is
 * exchanged with the PKCE verifier. The ID token comes straight from the token endpoint over this
 * origin's own connection, so its claims are checked (issuer, audience, nonce, expiry) without its
 * signature (OpenID Connect Core §3.1.3.7, item 6). Returns where to go next.
 */
export async function completeSignIn(url: URL): Promise<string> {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const pending = raw ? (JSON.parse(raw) as Pending) : null;
  if (!pending || url.searchParams.get('state') !== pending.state) throw new Error('state mismatch: start the sign-in again');
  const error = url.searchParams.get('error');
  if (error) throw new Error(url.searchParams.get('error_description') ?? error);
  const code = url.searchParams.get('code');
  if (!code) throw new Error('no authorization code in the answer');
  const d = await discover();
  const res = await fetch(d.token_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri(d), client_id: CLIENT_ID, code_verifier: pending.verifier }),
  });
  const body = (await res.json()) as { access_token?: string; id_token?: string; expires_in?: number; error?: string; error_description?: string };
  if (!res.ok || !body.access_token || !body.id_token) throw new Error(body.error_description ?? body.error ?? `token request failed (${res.status})`);
  const claims = decodeJwtPayload(body.id_token) as IdClaims;
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (claims.iss !== d.issuer || !audience.includes(CLIENT_ID) || claims.nonce !== pending.nonce || claims.exp * 1000 <= Date.now()) {
    throw new Error('the ID token does not belong to this sign-in');
  }
  // The ID token carries no profile claims when an access token is issued (OpenID Connect Core §5.4):
  // the name to show comes from userinfo, whose `sub` must be the ID token's (§5.3.2).
  const profile = await userinfo(d, body.access_token);
  if (profile?.sub === claims.sub) Object.assign(claims, { name: profile.name, preferred_username: profile.preferred_username });
  const session: Session = { accessToken: body.access_token, idToken: body.id_token, expiresAt: Date.now() + (body.expires_in ?? 3600) * 1000, claims };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return pending.returnTo;
}

async function userinfo(d: Discovery, accessToken: string): Promise<Partial<IdClaims> | null> {
  if (!d.userinfo_endpoint) return null;
  const res = await fetch(d.userinfo_endpoint, { headers: { Authorization: `Bearer ${accessToken}` } });
  return res.ok ? ((await res.json()) as Partial<IdClaims>) : null;
}

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2); the browser leaves the page. The provider's
 * logout page is the one confirmation, and it sends the browser back to the console's registered
 * post-logout URI. Always through the provider, also when the access token has expired: the provider's
 * session outlives it, and only ending that session signs the user out (a sign-in would otherwise pass
 * straight through it). The ID token goes along as `id_token_hint` however old (the specification lets the OP
 * accept an expired hint, and oidc-provider checks a hint's signature and audience, not its expiry), and
 * `client_id` alone names the client for the post-logout URI when there is no ID token.
 */
export async function signOut(): Promise<void> {
  const idToken = storedSession()?.idToken;
  forgetSession();
  const d = await discover();
  if (!d.end_session_endpoint) return void location.assign('/console/');
  const params = new URLSearchParams({ ...(idToken ? { id_token_hint: idToken } : {}), post_logout_redirect_uri: postLogoutUri(d), client_id: CLIENT_ID });
  location.assign(`${d.end_session_endpoint}?${params}`);
}

function randomString(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeJwtPayload(jwt: string): unknown {
  const part = jwt.split('.')[1] ?? '';
  const binary = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
}
