/**
 * SCIM benchmark (DESIGN §6): 100,000 users in one organization, Portcullis (SQLite by default, or
 * DATABASE_URL) and a scimmy + Express peer holding the same users, measured side by side with
 * autocannon: filter lookup by `userName eq`, a sorted page of 100, create without password, PATCH active.
 *
 *   npm run build && node dist/bench/scim/scim.bench.js [users=100000] [seconds=10] [scenario name part]
 *
 * SCIM_BENCH_PROFILE=<dir> starts the service with --cpu-prof into that directory (open the
 * .cpuprofile in Chrome DevTools or speedscope to see where a scenario spends its time).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { freePort } from '../../test/support/service.js';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const USERS = Number(process.argv[2] ?? 100_000);
const SECONDS = Number(process.argv[3] ?? 10);
const ONLY = process.argv[4];
const CONNECTIONS = 10;
const PROFILE = process.env.SCIM_BENCH_PROFILE;
const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';

interface Target {
  name: string;
  url: string;
  base: string;
  token: string;
  ids: string[];
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'scim-bench-'));
  const children: ChildProcess[] = [];
  try {
    const port = await freePort();
    const profile = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [];
    const service = start(process.execPath, [...profile, join(ROOT, 'dist/src/main.js')], { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'error', PUBLIC_URL: `http://127.0.0.1:${port}` });
    children.push(service);
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${url}/healthz`);
    const admin = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
    const org = await call(url, admin, 'POST', '/admin/v1/orgs', { name: 'bench' });
    const token = await callerToken(url, admin, org.id);
    console.error(`seeding ${USERS} users …`);
    const seeded = seed(join(dataDir, 'portcullis.sqlite'), org.id, USERS);
    const peerFile = join(dataDir, 'peer-users.json');
    writeFileSync(peerFile, JSON.stringify(seeded.map(toPeerUser)));
    const ids = seeded.map((u) => u.id);
    const portcullis: Target = { name: 'Portcullis', url, base: `/scim/v2/${org.id}`, token, ids };
    const rows: string[] = [];
    const record = (scenario: Scenario, target: Target, result: Awaited<ReturnType<typeof run>>) => {
      const line = `| ${scenario.name} | ${target.name} | ${result.rps.toFixed(0)} | ${result.p50} | ${result.p99} | ${result.errors} |`;
      rows.push(line);
      console.error(line);
    };
    for (const scenario of SCENARIOS.filter((s) => !ONLY || s.name.includes(ONLY))) {
      record(scenario, portcullis, await run(portcullis, scenario));
      // A fresh peer per scenario: requests it still works through after a timed run must not eat
      // the CPU of the next measurement.
      const peerPort = await freePort();
      const peer = start(process.execPath, [join(ROOT, 'dist/bench/scim/scimmy-peer.js'), peerFile, String(peerPort)], {});
      await new Promise<void>((ok) => peer.stdout!.on('data', (d) => String(d).includes('ready') && ok()));
      const target: Target = { name: 'scimmy peer', url: `http://127.0.0.1:${peerPort}`, base: '/scim/v2', token: 'bench', ids };
      record(scenario, target, await run(target, scenario));
      peer.kill('SIGKILL');
    }
    console.log(['| scenario | server | req/s | p50 ms | p99 ms | non-2xx + errors |', '|---|---|---|---|---|---|', ...rows].join('\n'));
  } finally {
    for (const child of children) child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 1500));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Scenario {
  name: string;
  request(target: Target, n: number): { method: string; path: string; body?: string };
}

const pick = (target: Target, n: number) => target.ids[(n * 7919) % target.ids.length];
const userName = (i: number) => `user${i}@bench.example.com`;

const SCENARIOS: Scenario[] = [
  {
    name: 'lookup `userName eq`',
    request: (t, n) => ({ method: 'GET', path: `${t.base}/Users?filter=${encodeURIComponent(`userName eq "${userName((n * 7919) % USERS).toUpperCase()}"`)}` }),
  },
  {
    name: 'sorted page of 100',
    request: (t, n) => ({ method: 'GET', path: `${t.base}/Users?sortBy=userName&startIndex=${1 + ((n * 7919) % (USERS - 100))}&count=100` }),
  },
  {
    name: 'create without password',
    request: (t, n) => ({
      method: 'POST',
      path: `${t.base}/Users`,
      body: JSON.stringify({ schemas: [USER_SCHEMA], userName: `new-${process.pid}-${t.name.length}-${n}@bench.example.com`, name: { givenName: 'New', familyName: `User${n}` }, emails: [{ value: `new${n}@bench.example.com`, primary: true }] }),
    }),
  },
  {
    name: 'PATCH active',
    request: (t, n) => ({
      method: 'PATCH',
      path: `${t.base}/Users/${pick(t, n)}`,
      body: JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: n % 2 === 0 }] }),
    }),
  },
];

async function run(target: Target, scenario: Scenario) {
  let n = 0;
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { authorization: `Bearer ${target.token}`, accept: 'application/scim+json' },
    requests: [
      {
        setupRequest: (req: any) => {
          const next = scenario.request(target, n++);
          const headers = next.body === undefined ? req.headers : { ...req.headers, 'content-type': 'application/scim+json' };
          return { ...req, ...next, headers };
        },
      },
    ],
  });
  const codes = Object.entries(result.statusCodeStats ?? {}).filter(([code]) => !code.startsWith('2'));
  if (codes.length > 0) console.error(`${target.name} ${scenario.name}: non-2xx ${codes.map(([c, v]) => `${c}×${v.count}`).join(', ')}`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.non2xx + result.errors };
}

interface SeededUser {
  id: string;
  userName: string;
  given: string;
  family: string;
  email: string;
  created: number;
}

/** Writes the users straight into the database (fixture set-up, not what is measured). */
function seed(file: string, orgId: string, count: number): SeededUser[] {
  const db = new Database(file);
  db.pragma('busy_timeout = 10000');
  const users: SeededUser[] = [];
  const insertUser = db.prepare(`INSERT INTO users (id, org_id, type, user_name, user_name_lower, state, given_name, family_name, display_name,
    preferred_language, email, email_lower, email_verified, phone_verified, password_change_required, failed_password_checks, scim_attributes, version, created_at, changed_at)
    VALUES (?, ?, 'human', ?, ?, 'active', ?, ?, ?, 'en', ?, ?, 0, 0, 0, 0, ?, 1, ?, ?)`);
  const insertContact = db.prepare(`INSERT INTO user_contacts (user_id, kind, position, org_id, value_lower, type_lower, is_primary) VALUES (?, 'email', 0, ?, ?, 'work', 1)`);
  const start = Date.now() - count;
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const id = `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`;
      const u = { id, userName: userName(i), given: `Given${i % 997}`, family: `Family${i % 1009}`, email: userName(i), created: start + i };
      const attributes = JSON.stringify({ emails: [{ value: u.email, type: 'work', primary: true }] });
      insertUser.run(id, orgId, u.userName, u.userName.toLowerCase(), u.given, u.family, `${u.given} ${u.family}`, u.email, u.email.toLowerCase(), attributes, u.created, u.created);
      insertContact.run(id, orgId, u.email.toLowerCase());
      users.push(u);
    }
  })();
  db.exec('ANALYZE');
  db.close();
  return users;
}

function toPeerUser(u: SeededUser) {
  const created = new Date(u.created).toISOString();
  return { id: u.id, userName: u.userName, name: { givenName: u.given, familyName: u.family }, displayName: `${u.given} ${u.family}`, active: true, emails: [{ value: u.email, type: 'work', primary: true }], meta: { created, lastModified: created } };
}

function start(command: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return child;
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

async function call(url: string, token: string, method: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function callerToken(url: string, admin: string, orgId: string): Promise<string> {
  const user = await call(url, admin, 'POST', `/management/v1/orgs/${orgId}/users/machine`, { userName: 'scim-bench', name: 'bench', accessTokenType: 'opaque' });
  await call(url, admin, 'PUT', `/management/v1/orgs/${orgId}/members/${user.userId}`, { roles: ['ORG_USER_MANAGER'] });
  return (await call(url, admin, 'POST', `/management/v1/orgs/${orgId}/users/${user.userId}/pats`, {})).token;
}

await main();
