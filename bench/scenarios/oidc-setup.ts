/**
 * The clients, users and tokens the OIDC scenarios need: set up through Portcullis's management API, and
 * the static equivalents of the raw oidc-provider peer (bench/peers/raw-provider.ts).
 */
import { call } from '../lib/api.js';
import { declineOffer } from '../lib/sign-in.js';
import { loginChain } from '../peers/login-chain.js';

interface Client {
  id: string;
  secret: string;
}

export interface OidcTarget {
  url: string;
  machine: Client;
  api: Client;
  web: Client & { redirect: string };
  login: { name: string; password: string };
  opaque: string;
  /** oidc-provider refuses to introspect structured (JWT) tokens: the peer has none. */
  jwt?: string;
  userToken: string;
  /** Where Portcullis's target lives (the raw peer has none): the scenarios that add to its project need it. */
  ids?: { orgId: string; projectId: string; userId: string };
}

export const REDIRECT = 'http://127.0.0.1:1/cb';
export const basic = (c: Client) => `Basic ${Buffer.from(`${encodeURIComponent(c.id)}:${encodeURIComponent(c.secret)}`).toString('base64')}`;
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export async function setUpPortcullis(url: string, admin: string): Promise<OidcTarget> {
  const org = await call(url, admin, 'POST', '/admin/v1/orgs', { name: `oidc-bench-${Date.now()}` });
  const base = `/management/v1/orgs/${org.id}`;
  const project = await call(url, admin, 'POST', `${base}/projects`, { name: 'bench' });
  const web = await call(url, admin, 'POST', `${base}/projects/${project.id}/apps/oidc`, {
    name: 'web',
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [],
    responseTypes: ['code'],
    grantTypes: ['authorization_code', 'refresh_token'],
    authMethod: 'client_secret_basic',
    accessTokenType: 'opaque',
    devMode: true,
  });
  const api = await call(url, admin, 'POST', `${base}/projects/${project.id}/apps/api`, { name: 'api', authMethod: 'client_secret_basic' });
  const machine = async (accessTokenType: string): Promise<Client> => {
    const user = await call(url, admin, 'POST', `${base}/users/machine`, { userName: `m-${accessTokenType}`, name: 'bench', accessTokenType });
    const secret = await call(url, admin, 'POST', `${base}/users/${user.userId}/secret`, {});
    return { id: secret.clientId, secret: secret.clientSecret };
  };
  const [opaqueMachine, jwtMachine] = [await machine('opaque'), await machine('jwt')];
  const human = await call(url, admin, 'POST', `${base}/users/human`, {
    userName: 'bench',
    profile: { firstName: 'B', lastName: 'Ench' },
    email: { email: 'bench@example.com', isEmailVerified: true },
    password: 'bench-password',
  });
  // Introspection by the API application needs its project in the token's audience.
  const audience = `urn:portcullis:iam:org:project:id:${project.id}:aud`;
  const target: OidcTarget = {
    url,
    machine: opaqueMachine,
    api: { id: api.clientId, secret: api.clientSecret },
    web: { id: web.clientId, secret: web.clientSecret, redirect: REDIRECT },
    login: { name: `bench@${org.primaryDomain}`, password: 'bench-password' },
    opaque: await clientCredentials(url, opaqueMachine, audience),
    jwt: await clientCredentials(url, jwtMachine, audience),
    userToken: '',
    ids: { orgId: org.id, projectId: project.id, userId: human.userId },
  };
  // A returning user who declined the offer to enrol a second factor (login policy `optional`, the
  // default): the measured login is password → code, as that user experiences it.
  await declineOffer(url, target.web, target.login.name, target.login.password);
  target.userToken = await oneLogin(target);
  return target;
}

export async function setUpRaw(url: string): Promise<OidcTarget> {
  const machine = { id: 'machine', secret: 'machine-secret' };
  const target: OidcTarget = {
    url,
    machine,
    api: { id: 'api', secret: 'api-secret' },
    web: { id: 'web', secret: 'web-secret', redirect: REDIRECT },
    login: { name: 'bench', password: 'bench-password' },
    opaque: await clientCredentials(url, machine),
    userToken: '',
  };
  target.userToken = await oneLogin(target);
  return target;
}

async function clientCredentials(url: string, client: Client, scope?: string): Promise<string> {
  const res = await fetch(`${url}/oauth/v2/token`, {
    method: 'POST',
    headers: { ...FORM, authorization: basic(client) },
    body: `grant_type=client_credentials${scope ? `&scope=${encodeURIComponent(scope)}` : ''}`,
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`client credentials failed at ${url}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** One scripted login through the same chain the login scenario runs, for the user access token userinfo needs. */
async function oneLogin(t: OidcTarget): Promise<string> {
  const done = { logins: 0, failed: 0, lastAccessToken: '' };
  const context: Record<string, any> = {};
  for (const step of loginChain(t, done)) {
    const request = step.setupRequest({ ...step }, context) as { method: string; path: string; headers?: Record<string, string>; body?: string };
    const res = await fetch(t.url + request.path, { method: request.method, headers: request.headers, body: request.body, redirect: 'manual' });
    const headers: Record<string, string | string[]> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    const cookies = res.headers.getSetCookie();
    if (cookies.length) headers['set-cookie'] = cookies;
    step.onResponse(res.status, await res.text(), context, headers);
  }
  if (!done.lastAccessToken) throw new Error(`scripted login failed at ${t.url}`);
  return done.lastAccessToken;
}

/**
 * Fails the run when a scenario's request would be answered 2xx without doing the work (an inactive
 * introspection is a 200 too).
 */
export async function checkActive(t: OidcTarget, token: string): Promise<void> {
  const res = await fetch(`${t.url}/oauth/v2/introspect`, { method: 'POST', headers: { ...FORM, authorization: basic(t.api) }, body: `token=${token}` });
  const body = (await res.json()) as { active?: boolean };
  if (!body.active) throw new Error(`introspection at ${t.url} answered ${res.status} ${JSON.stringify(body)}, not active`);
}
