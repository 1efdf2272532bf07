/**
 * Debian's glewlwyd (a C identity provider, package `glewlwyd`) as a peer of the OIDC benchmark (for the
 * sizing table): the binary the package installs, started as a child process on a config file of its own in a
 * temporary directory (a fresh SQLite database made from the package's schema, a free port, no TLS, the log
 * in a file), then set up through its admin REST API (/usr/share/doc/glewlwyd/API.md) as an administrator
 * would in its admin UI: an OpenID Connect plugin instance, a scope, the clients and a user.
 *
 * Its defaults are kept wherever the scenarios allow; what is changed, and why:
 * - the config file is Debian's /etc/glewlwyd/glewlwyd.conf with its own port, address, URL, log file and
 *   database (and no `use_secure_connection` line: with it present, glewlwyd wants the certificate files);
 * - the plugin instance gets the admin UI's defaults for a new OpenID Connect plugin (admin.js of 2.7.5) plus
 *   what it cannot run without or what a scenario needs: an issuer and an RS256 key (the UI's default is an
 *   empty key), `allow-non-oidc` (client credentials is an OAuth2 grant the plugin refuses without it) and
 *   `introspection-revocation-allowed` (the endpoint is off by default);
 * - a confidential client needs `token_endpoint_auth_method` listed, or the plugin refuses every method.
 * The client module keeps its default: clients have a *password*, which the database module stores as
 * PBKDF2-HMAC-SHA256 with 150,000 iterations on SQLite (G_PBKDF2_ITERATOR_DEFAULT, src/glewlwyd-common.h)
 * and recomputes on every request that authenticates the client. Users' passwords: the same.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { freePort } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';

export const GLEWLWYD_BIN = '/usr/bin/glewlwyd';
const SCHEMA = '/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3';
const MODULES = '/usr/lib/glewlwyd';
/** The plugin instance's name: its endpoints are /api/<name>/token, /introspect, /userinfo, /jwks, /auth. */
export const PLUGIN = 'oidc';
/** The administrator of the package's schema (GETTING_STARTED.md: admin / password). */
export const GLEWLWYD_ADMIN = { username: 'admin', password: 'password' };
const REDIRECT = 'http://127.0.0.1:1/cb';

export interface GlewlwydClient {
  id: string;
  secret: string;
}

export interface GlewlwydPeer extends Running {
  machine: GlewlwydClient;
  web: GlewlwydClient & { redirect: string };
  login: { username: string; password: string };
  /** The scope the machine client asks for (glewlwyd's client credentials grant wants one). */
  scope: string;
  /** An access token of the machine client (a JWT, also recorded in the database, which introspection reads). */
  token: string;
  /** An access token of the user, from one code-flow login, for userinfo. */
  userToken: string;
}

/** Why glewlwyd cannot be measured here (the package is not installed), or undefined. */
export function glewlwydMissing(): string | undefined {
  for (const path of [GLEWLWYD_BIN, SCHEMA, join(MODULES, 'plugin/libprotocol_oidc.so')]) {
    if (!existsSync(path)) return `${path} is missing (apt-get install glewlwyd)`;
  }
  return undefined;
}

/** e.g. `glewlwyd 2.7.5 (Debian)`: the version its --help prints. */
export function glewlwydServer(): string {
  let version = '?';
  try {
    version = /Version (\S+)/.exec(execFileSync(GLEWLWYD_BIN, ['--help'], { encoding: 'utf8' }))?.[1] ?? '?';
  } catch (error) {
    // --help exits non-zero on some versions; its output is still there
    version = /Version (\S+)/.exec(String((error as { stdout?: string }).stdout ?? ''))?.[1] ?? '?';
  }
  return `glewlwyd ${version} (Debian)`;
}

/** Starts glewlwyd on a fresh database and sets up what the scenarios need; `stop` ends it and removes its directory. */
export async function startGlewlwyd(): Promise<GlewlwydPeer> {
  const running = await launchGlewlwyd('bench-glewlwyd-');
  try {
    return { ...running, ...(await setUp(running.url)) };
  } catch (error) {
    await running.stop();
    throw new Error(`glewlwyd at ${running.url}: ${(error as Error).message}`);
  }
}

/**
 * glewlwyd running on a fresh database (only the package schema's administrator in it), answering its API at `url`;
 * also the upstream OpenID Provider of test/federation/glewlwyd-upstream.test.ts, which sets it up its own way.
 */
export async function launchGlewlwyd(dirPrefix: string): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const database = new Database(join(dir, 'glewlwyd.db'));
  database.exec(readFileSync(SCHEMA, 'utf8'));
  database.close();
  writeFileSync(join(dir, 'glewlwyd.conf'), config(dir, port));
  const child = spawn(GLEWLWYD_BIN, ['-c', join(dir, 'glewlwyd.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    // Its errors are in its log file, which goes with the directory: pass them on, as the other peers' stderr.
    const errors = readLog(dir)
      .split('\n')
      .filter((line) => line.includes(' ERROR: '));
    if (errors.length)
      console.error(
        `    glewlwyd logged ${errors.length} errors, e.g.:\n${errors
          .slice(0, 3)
          .map((l) => `      ${l}`)
          .join('\n')}`,
      );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForConfig(child, url, () => `${stderr}${readLog(dir)}`);
    return { url, pid: child.pid!, stop };
  } catch (error) {
    const log = readLog(dir);
    await stop();
    throw new Error(`glewlwyd at ${url}: ${(error as Error).message}${log ? `\n${log.slice(-2000)}` : ''}`);
  }
}

/** Debian's /etc/glewlwyd/glewlwyd.conf, its values kept but for where it listens, logs and keeps its data. */
function config(dir: string, port: number): string {
  return `# Debian's glewlwyd.conf with the benchmark's port, log file and database (bench/peers/glewlwyd.ts)
port=${port}
bind_address="127.0.0.1"
external_url="http://127.0.0.1:${port}/"
login_url="login.html"
api_prefix="api"
allow_origin="*"
allow_methods="GET, POST, PUT, DELETE, OPTIONS"
allow_headers="Origin, X-Requested-With, Content-Type, Accept, Bearer, Authorization, DPoP"
expose_headers="Content-Encoding, Authorization"
log_mode="file"
log_level="INFO"
log_file="${join(dir, 'glewlwyd.log')}"
cookie_secure=0
cookie_same_site="empty"
session_expiration=2419200
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
plugin_api_run_enabled=""
add_x_frame_option_header_deny=true
max_post_size=16778240
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="${MODULES}/user"
client_module_path="${MODULES}/client"
user_auth_scheme_module_path="${MODULES}/scheme"
plugin_module_path="${MODULES}/plugin"
hash_algorithm = "SHA512"
database = { type = "sqlite3"; path = "${join(dir, 'glewlwyd.db')}"; };
`;
}

function readLog(dir: string): string {
  try {
    return readFileSync(join(dir, 'glewlwyd.log'), 'utf8');
  } catch {
    return '';
  }
}

/**
 * Each set-up request fails after 30 s instead of waiting for ever: glewlwyd was seen to stop answering
 * during its set-up while logging SQL errors, which hung a whole benchmark run.
 */
function setUpDeadline(): AbortSignal {
  return AbortSignal.timeout(30_000);
}

async function waitForConfig(child: ReturnType<typeof spawn>, url: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode} during start-up: ${output().slice(-2000)}`);
    try {
      if ((await fetch(`${url}/config`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('did not answer /config within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A session (cookie) of the admin API or of a user: glewlwyd's login is POST /api/auth/ with a JSON body. */
export async function glewlwydSession(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
    signal: setUpDeadline(),
  });
  if (res.status !== 200) throw new Error(`login of ${username} answered ${res.status}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

/** One admin or user API call that must answer 200. */
export async function glewlwydCall(url: string, cookie: string, method: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(url + path, { method, headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: setUpDeadline() });
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
}

async function setUp(url: string): Promise<Omit<GlewlwydPeer, keyof Running>> {
  const admin = await glewlwydSession(url, GLEWLWYD_ADMIN.username, GLEWLWYD_ADMIN.password);
  await glewlwydCall(url, admin, 'POST', '/api/mod/plugin/', {
    module: 'oidc',
    name: PLUGIN,
    display_name: 'OpenID Connect',
    enabled: true,
    parameters: pluginParameters(url),
  });
  const scope = 'bench';
  await glewlwydCall(url, admin, 'POST', '/api/scope/', { name: scope, display_name: 'bench', description: 'benchmark', password_required: false, scheme: {} });
  const machine = { id: 'machine', secret: 'machine-secret' };
  const web = { id: 'web', secret: 'web-secret', redirect: REDIRECT };
  const confidential = { confidential: true, enabled: true, token_endpoint_auth_method: ['client_secret_basic'] };
  await glewlwydCall(url, admin, 'POST', '/api/client/', {
    ...confidential,
    client_id: machine.id,
    name: 'machine',
    password: machine.secret,
    authorization_type: ['client_credentials'],
    scope: [scope],
    redirect_uri: [],
  });
  await glewlwydCall(url, admin, 'POST', '/api/client/', {
    ...confidential,
    client_id: web.id,
    name: 'web',
    password: web.secret,
    authorization_type: ['code'],
    scope: [],
    redirect_uri: [REDIRECT],
  });
  const login = { username: 'bench', password: 'bench-password' };
  await glewlwydCall(url, admin, 'POST', '/api/user/', {
    username: login.username,
    password: login.password,
    name: 'Bench',
    email: 'bench@example.com',
    scope: ['openid'],
    enabled: true,
  });
  // The consent a user gives once on the login page ("grant"), so every measured login goes straight to the code.
  await glewlwydCall(url, await glewlwydSession(url, login.username, login.password), 'PUT', `/api/auth/grant/${web.id}`, { scope: 'openid' });
  const peer = { machine, web, login, scope, token: '', userToken: '' };
  peer.token = await clientCredentials(url, peer);
  peer.userToken = await oneLogin(url, peer);
  return peer;
}

/**
 * The admin UI's defaults for a new OpenID Connect plugin instance (those the plugin reads for the flows
 * measured), with the changes the file's comment lists.
 */
function pluginParameters(url: string): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'bench', alg: 'RS256' };
  return {
    iss: `${url}/`,
    'jwt-type': 'rsa',
    'jwt-key-size': '256',
    'jwks-private': JSON.stringify({ keys: [jwk] }),
    'default-kid': '',
    'access-token-duration': 3600,
    'refresh-token-duration': 1209600,
    'code-duration': 600,
    'refresh-token-rolling': true,
    'refresh-token-one-use': 'never',
    'allow-non-oidc': true, // changed: client credentials
    'auth-type-code-enabled': true,
    'auth-type-code-revoke-replayed': false,
    'auth-type-token-enabled': true,
    'auth-type-id-token-enabled': true,
    'auth-type-none-enabled': true,
    'auth-type-password-enabled': false,
    'auth-type-client-enabled': true,
    'auth-type-device-enabled': false,
    'auth-type-refresh-enabled': true,
    scope: [],
    'additional-parameters': [],
    claims: [],
    'jwks-show': true,
    'request-parameter-allow': true,
    'secret-type': 'pairwise',
    'name-claim': 'on-demand',
    'email-claim': 'no',
    'scope-claim': 'no',
    'allowed-scope': ['openid'],
    'pkce-allowed': false,
    'introspection-revocation-allowed': true, // changed: the introspection scenario
    'introspection-revocation-auth-scope': [],
    'introspection-revocation-allow-target-client': true,
    'register-client-allowed': false,
    'session-management-allowed': false,
    'encrypt-out-token-allow': false,
    'oauth-dpop-allowed': false,
    'resource-allowed': false,
    'oauth-rar-allowed': false,
    'oauth-par-allowed': false,
    'oauth-ciba-allowed': false,
  };
}

const basic = (c: GlewlwydClient) => `Basic ${Buffer.from(`${encodeURIComponent(c.id)}:${encodeURIComponent(c.secret)}`).toString('base64')}`;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** The client credentials request (glewlwyd wants a scope, and the client must hold it). */
export function tokenRequest(p: Pick<GlewlwydPeer, 'machine' | 'scope'>) {
  return {
    method: 'POST',
    path: `/api/${PLUGIN}/token`,
    headers: { ...FORM, authorization: basic(p.machine) },
    body: `grant_type=client_credentials&scope=${p.scope}`,
  };
}

/**
 * Introspection with client authentication: glewlwyd lets a client introspect only the tokens issued to
 * itself (`introspection-revocation-allow-target-client`, the default; a resource server would instead
 * present an access token with a configured scope), so the machine client introspects its own token.
 */
export function introspectRequest(p: Pick<GlewlwydPeer, 'machine' | 'token'>) {
  return { method: 'POST', path: `/api/${PLUGIN}/introspect`, headers: { ...FORM, authorization: basic(p.machine) }, body: `token=${p.token}` };
}

async function clientCredentials(url: string, p: Pick<GlewlwydPeer, 'machine' | 'scope'>): Promise<string> {
  const { path, ...request } = tokenRequest(p);
  const res = await fetch(url + path, { ...request, signal: setUpDeadline() });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`client credentials answered ${res.status} ${JSON.stringify(body)}`);
  const check = introspectRequest({ machine: p.machine, token: body.access_token });
  const introspected = (await (await fetch(url + check.path, { ...check, signal: setUpDeadline() })).json()) as { active?: boolean };
  if (!introspected.active) throw new Error(`introspection of a fresh token answered ${JSON.stringify(introspected)}, not active`);
  return body.access_token;
}

type Chain = { logins: number; failed: number; lastAccessToken?: string };
type Headers = Record<string, string | string[] | undefined>;

function cookiesOf(headers: Headers, context: Record<string, any>): void {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === 'set-cookie');
  for (const line of [key ? (headers[key] ?? []) : []].flat()) {
    const [pair] = line.split(';');
    context.cookies[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
  }
}

const cookie = (context: Record<string, any>) =>
  Object.entries(context.cookies as Record<string, string>)
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
const location = (headers: Headers) => String(headers[Object.keys(headers).find((k) => k.toLowerCase() === 'location') ?? ''] ?? '');

/**
 * A full code-flow login as glewlwyd's login page drives it, as an autocannon request chain: authorize (a
 * redirect to login.html, a static page glewlwyd does not serve by default) → password POST to
 * /api/auth/ → authorize again with `g_continue` (what the page appends once signed in) → code redemption.
 * The page's own reads (its config, the scope's schemes, the grant) are left out: that favours glewlwyd.
 * OIDC wants a nonce for the code flow in glewlwyd.
 */
export function glewlwydLoginChain(p: Pick<GlewlwydPeer, 'web' | 'login'>, done: Chain) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: p.web.id,
    redirect_uri: p.web.redirect,
    scope: 'openid',
    state: 'bench',
    nonce: 'bench',
  });
  const authorize = `/api/${PLUGIN}/auth?${query}`;
  return [
    {
      method: 'GET',
      path: authorize,
      setupRequest: (req: Record<string, unknown>, context: Record<string, any>) => {
        context.cookies = {};
        return { ...req, path: authorize, headers: {} };
      },
      onResponse: (_status: number, _body: string, context: Record<string, any>, headers: Headers) => cookiesOf(headers, context),
    },
    {
      method: 'POST',
      path: '/api/auth/',
      setupRequest: (req: Record<string, unknown>, context: Record<string, any>) => ({
        ...req,
        path: '/api/auth/',
        headers: { cookie: cookie(context), 'content-type': 'application/json' },
        body: JSON.stringify({ username: p.login.username, password: p.login.password }),
      }),
      onResponse: (_status: number, _body: string, context: Record<string, any>, headers: Headers) => cookiesOf(headers, context),
    },
    {
      method: 'GET',
      path: authorize,
      setupRequest: (req: Record<string, unknown>, context: Record<string, any>) => ({
        ...req,
        path: `${authorize}&g_continue`,
        headers: { cookie: cookie(context) },
      }),
      onResponse: (_status: number, _body: string, context: Record<string, any>, headers: Headers) => {
        const to = location(headers);
        context.code = to.startsWith(p.web.redirect) ? new URL(to).searchParams.get('code') : undefined;
      },
    },
    {
      method: 'POST',
      path: `/api/${PLUGIN}/token`,
      setupRequest: (req: Record<string, unknown>, context: Record<string, any>) => ({
        ...req,
        path: `/api/${PLUGIN}/token`,
        headers: { ...FORM, authorization: basic(p.web) },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: String(context.code ?? 'none'), redirect_uri: p.web.redirect }).toString(),
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

/** One login through the same chain, for the user token userinfo needs (and to fail early if the chain is wrong). */
async function oneLogin(url: string, p: Pick<GlewlwydPeer, 'web' | 'login'>): Promise<string> {
  const done: Chain = { logins: 0, failed: 0 };
  const context: Record<string, any> = {};
  for (const step of glewlwydLoginChain(p, done)) {
    const request = step.setupRequest({ ...step }, context) as { method: string; path: string; headers?: Record<string, string>; body?: string };
    const res = await fetch(url + request.path, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: setUpDeadline(),
    });
    const headers: Headers = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    const cookies = res.headers.getSetCookie();
    if (cookies.length) headers['set-cookie'] = cookies;
    step.onResponse(res.status, await res.text(), context, headers);
  }
  if (!done.lastAccessToken) throw new Error('the scripted code-flow login failed');
  return done.lastAccessToken;
}
