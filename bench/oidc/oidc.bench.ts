/**
 * OIDC benchmark (DESIGN §6, issue 4): Portcullis (SQLite, WORKERS=1 and WORKERS=2) side by side with
 * a raw oidc-provider (memory adapter, same routes: raw-provider.ts) in one run, with autocannon:
 * client credentials, introspection (opaque and JWT), userinfo, JWKS, and a full code-flow login
 * (authorize → login page → password POST → resume → code redemption, one autocannon request chain per
 * connection), plus bcrypt alone at the configured cost as the ceiling for logins.
 *
 *   npm run build && node dist/bench/oidc/oidc.bench.js [seconds=10] [scenario name part]
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import bcrypt from 'bcrypt';
import { freePort } from '../../test/support/service.js';
import { loginChain } from './login-chain.js';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const SECONDS = Number(process.argv[2] ?? 10);
const ONLY = process.argv[3];
const CONNECTIONS = 10;
const BCRYPT_COST = Number(process.env.BCRYPT_COST ?? 10);
/** Extra node flags for the Portcullis processes, e.g. `BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'`. */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

export interface Target {
  name: string;
  url: string;
  machine: { id: string; secret: string };
  api: { id: string; secret: string };
  web: { id: string; secret: string; redirect: string };
  login: { name: string; password: string };
  opaque: string;
  jwt?: string;
  userToken: string;
}

interface Scenario {
  name: string;
  options(t: Target): Record<string, unknown> | undefined;
}

const basic = (c: { id: string; secret: string }) => `Basic ${Buffer.from(`${encodeURIComponent(c.id)}:${encodeURIComponent(c.secret)}`).toString('base64')}`;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

const SCENARIOS: Scenario[] = [
  { name: 'client credentials', options: (t) => ({ method: 'POST', path: '/oauth/v2/token', headers: { ...form, authorization: basic(t.machine) }, body: 'grant_type=client_credentials' }) },
  { name: 'introspection (opaque)', options: (t) => ({ method: 'POST', path: '/oauth/v2/introspect', headers: { ...form, authorization: basic(t.api) }, body: `token=${t.opaque}` }) },
  { name: 'introspection (JWT)', options: (t) => (t.jwt ? { method: 'POST', path: '/oauth/v2/introspect', headers: { ...form, authorization: basic(t.api) }, body: `token=${t.jwt}` } : undefined) },
  { name: 'userinfo', options: (t) => ({ method: 'GET', path: '/oidc/v1/userinfo', headers: { authorization: `Bearer ${t.userToken}` } }) },
  { name: 'JWKS', options: () => ({ method: 'GET', path: '/oauth/v2/keys' }) },
];

async function main(): Promise<void> {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  const rows: string[] = [];
  try {
    const targets: Target[] = [];
    for (const workers of [1, 2]) {
      const dataDir = mkdtempSync(join(tmpdir(), 'oidc-bench-'));
      dirs.push(dataDir);
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      children.push(start(process.execPath, [...NODE_ARGS, join(ROOT, 'dist/src/main.js')], { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'error', PUBLIC_URL: url, WORKERS: String(workers), BCRYPT_COST: String(BCRYPT_COST) }));
      await waitFor(`${url}/healthz`);
      targets.push(await setUpPortcullis(`Portcullis WORKERS=${workers}`, url, readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim()));
    }
    const rawPort = await freePort();
    children.push(start(process.execPath, [join(ROOT, 'dist/bench/oidc/raw-provider.js'), String(rawPort), String(BCRYPT_COST)], {}));
    const rawUrl = `http://127.0.0.1:${rawPort}`;
    await waitFor(`${rawUrl}/.well-known/openid-configuration`);
    targets.unshift(await setUpRaw(rawUrl));

    for (const scenario of SCENARIOS) {
      if (ONLY && !scenario.name.includes(ONLY)) continue;
      for (const target of targets) {
        const options = scenario.options(target);
        if (!options) {
          rows.push(`| ${scenario.name} | ${target.name} | n/a | | | |`);
          continue;
        }
        const result = await autocannon({ url: target.url, connections: CONNECTIONS, duration: SECONDS, requests: [options] } as never);
        rows.push(`| ${scenario.name} | ${target.name} | ${result.requests.average.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${result.non2xx + result.errors} |`);
        console.error(rows.at(-1));
      }
    }
    if (!ONLY || 'login'.includes(ONLY)) {
      for (const target of targets) {
        const done = { logins: 0, failed: 0 };
        const result = await autocannon({ url: target.url, connections: CONNECTIONS, duration: SECONDS, requests: loginChain(target, done) } as never);
        rows.push(`| full code-flow login | ${target.name} | ${(done.logins / SECONDS).toFixed(1)} logins/s | ${result.latency.p50} | ${result.latency.p99} | ${done.failed + result.errors} |`);
        console.error(rows.at(-1));
      }
      rows.push(`| bcrypt.compare alone (cost ${BCRYPT_COST}, ${CONNECTIONS} concurrent) | node | ${(await bcryptRate()).toFixed(1)} checks/s | | | |`);
    }
    console.log(['| scenario | server | req/s | p50 ms | p99 ms | non-2xx + errors |', '|---|---|---|---|---|---|', ...rows].join('\n'));
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** What bcrypt alone allows: compares at the configured cost, as many in flight as connections. */
async function bcryptRate(): Promise<number> {
  const hash = await bcrypt.hash('bench-password', BCRYPT_COST);
  let count = 0;
  const end = Date.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < end) {
      await bcrypt.compare('bench-password', hash);
      count++;
    }
  }));
  return count / SECONDS;
}

async function setUpPortcullis(name: string, url: string, admin: string): Promise<Target> {
  const call = async (method: string, path: string, body: object) => {
    const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, any>;
  };
  const org = await call('POST', '/admin/v1/orgs', { name: `bench-${Date.now()}` });
  const project = await call('POST', `/management/v1/orgs/${org.id}/projects`, { name: 'bench' });
  const redirect = 'http://127.0.0.1:1/cb';
  const web = await call('POST', `/management/v1/orgs/${org.id}/projects/${project.id}/apps/oidc`, {
    name: 'web', redirectUris: [redirect], postLogoutRedirectUris: [], responseTypes: ['code'], grantTypes: ['authorization_code'], authMethod: 'client_secret_basic', accessTokenType: 'opaque', devMode: true,
  });
  const api = await call('POST', `/management/v1/orgs/${org.id}/projects/${project.id}/apps/api`, { name: 'api', authMethod: 'client_secret_basic' });
  const machine = async (accessTokenType: string) => {
    const user = await call('POST', `/management/v1/orgs/${org.id}/users/machine`, { userName: `m-${accessTokenType}`, name: 'bench', accessTokenType });
    const secret = await call('POST', `/management/v1/orgs/${org.id}/users/${user.userId}/secret`, {});
    return { id: secret.clientId as string, secret: secret.clientSecret as string };
  };
  const opaqueMachine = await machine('opaque');
  const jwtMachine = await machine('jwt');
  await call('POST', `/management/v1/orgs/${org.id}/users/human`, { userName: 'bench', profile: { firstName: 'B', lastName: 'Ench' }, email: { email: 'bench@example.com', isEmailVerified: true }, password: 'bench-password' });
  const projectScope = `urn:portcullis:iam:org:project:id:${project.id}:aud`;
  const target: Target = {
    name, url, machine: opaqueMachine, api: { id: api.clientId, secret: api.clientSecret }, web: { id: web.clientId, secret: web.clientSecret, redirect },
    login: { name: `bench@${org.primaryDomain}`, password: 'bench-password' },
    opaque: await clientCredentials(url, opaqueMachine, projectScope),
    jwt: await clientCredentials(url, jwtMachine, projectScope),
    userToken: '',
  };
  target.userToken = await oneLogin(target);
  return target;
}

async function setUpRaw(url: string): Promise<Target> {
  const machine = { id: 'machine', secret: 'machine-secret' };
  const target: Target = {
    name: 'raw oidc-provider', url, machine, api: { id: 'api', secret: 'api-secret' }, web: { id: 'web', secret: 'web-secret', redirect: 'http://127.0.0.1:1/cb' },
    login: { name: 'bench', password: 'bench-password' },
    opaque: await clientCredentials(url, machine),
    // oidc-provider refuses to introspect structured (JWT) tokens: no peer figure.
    jwt: undefined,
    userToken: '',
  };
  target.userToken = await oneLogin(target);
  return target;
}

async function clientCredentials(url: string, client: { id: string; secret: string }, scope?: string): Promise<string> {
  const res = await fetch(`${url}/oauth/v2/token`, { method: 'POST', headers: { ...form, authorization: basic(client) }, body: `grant_type=client_credentials${scope ? `&scope=${encodeURIComponent(scope)}` : ''}` });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`client credentials failed at ${url}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** One scripted login, for the user access token userinfo needs. */
async function oneLogin(t: Target): Promise<string> {
  const done = { logins: 0, failed: 0, lastAccessToken: '' };
  const chain = loginChain(t, done);
  const context: Record<string, any> = {};
  for (const step of chain) {
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

function start(command: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  child.on('exit', (code) => code && code !== 143 && console.error(`${args[0]} exited with ${code}`));
  return child;
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
