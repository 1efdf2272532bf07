import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { createClient } from '../support/http.js';
import { spawnService } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';
import { findSecretsAtRest } from '../support/secret-scan.js';
import { freePort } from '../support/service.js';
import type { TestService } from '../support/service.js';
import { PASSWORD, createHuman, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { LoginClient } from './support/login-client.js';
import { useService } from '../support/fixtures.js';

const RP = 'http://127.0.0.1:65530';

function authParams(app: OidcApp, extra: Record<string, string> = {}) {
  return { client_id: app.clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope: 'openid', state: 'st', ...extra };
}

/** One password attempt through the login form, as a browser posts it. */
async function attempt(baseUrl: string, app: OidcApp, loginName: string, password: string, extra: Record<string, string> = {}) {
  const client = new LoginClient(baseUrl);
  const { uid, csrf } = await client.startLogin(authParams(app, extra));
  return client.post(`/ui/login/${uid}/login`, { csrf, loginName, password });
}

describe('login rate limits per login name (in-process)', () => {
  const svc = useService({ LOGIN_RATE_LIMIT_PER_LOGIN_NAME: '3', LOGIN_RATE_LIMIT_PER_IP: '1000', LOGIN_RATE_LIMIT_WINDOW_SECONDS: '600' });
  let app: OidcApp;
  let project: { orgId: string; projectId: string; primaryDomain: string };

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  it('after 3 failures the 4th attempt is refused with 429 and Retry-After, even with the right password; the user is not locked', async () => {
    const user = await createHuman(svc, project.orgId);
    const loginName = `${user.userName}@${project.primaryDomain}`;
    for (let i = 0; i < 3; i++) assert.equal((await attempt(svc.url, app, loginName, `wrong-${i}`)).status, 401);
    const refused = await attempt(svc.url, app, loginName.toUpperCase(), PASSWORD);
    assert.equal(refused.status, 429, 'the login name is compared case-insensitively');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 600, `Retry-After ${refused.headers.get('retry-after')}`);
    assert.match(refused.text, /Too many failed sign-in attempts\. Try again in \d+ minutes?\./);
    assert.match(refused.text, /name="password"/, 'the page is the login form, to try again later');
    assert.equal(refused.headers.get('cache-control'), 'no-store');

    const german = await attempt(svc.url, app, loginName, PASSWORD, { ui_locales: 'de' });
    assert.equal(german.status, 429);
    assert.match(german.text, /Zu viele fehlgeschlagene Anmeldeversuche\. Versuchen Sie es in \d+ Minuten? erneut\./);

    const [row] = await svc.dataSource.query('SELECT state, failed_password_checks AS failed FROM users WHERE id = ?', [user.userId]);
    assert.equal(row.state, 'active');
    assert.equal(Number(row.failed), 3, 'refused attempts run no password check and count nothing towards the lockout');
  });

  it('an unknown login name is limited exactly like an existing one (no enumeration through the limit)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt(svc.url, app, `nobody-${project.primaryDomain}`, 'whatever')).status);
    assert.deepEqual(statuses, [401, 401, 401, 429]);
  });

  it('other login names from the same IP still sign in', async () => {
    const other = await createHuman(svc, project.orgId);
    const res = await attempt(svc.url, app, `${other.userName}@${project.primaryDomain}`, PASSWORD);
    assert.equal(res.status, 303, res.text.slice(0, 300));
  });

  it('the counter table holds keyed hashes only: no login name and no IP in clear text', async () => {
    const rows = await svc.dataSource.query('SELECT * FROM login_attempts');
    assert.ok(rows.length >= 3, 'failures were counted');
    const found = await findSecretsAtRest(svc.dataSource, [`nobody-${project.primaryDomain}`, project.primaryDomain, '127.0.0.1']);
    assert.deepEqual(
      found.filter((f) => f.startsWith('login_attempts')),
      [],
    );
  });
});

describe('login rate limit windows expire and are purged', () => {
  const WINDOW = 3;
  const svc = useService({ LOGIN_RATE_LIMIT_PER_LOGIN_NAME: '2', LOGIN_RATE_LIMIT_WINDOW_SECONDS: String(WINDOW) });
  let app: OidcApp;
  let project: { orgId: string; projectId: string; primaryDomain: string };

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  it('a limited login name signs in again in the next window, and rows of past windows are deleted', async () => {
    const user = await createHuman(svc, project.orgId);
    const loginName = `${user.userName}@${project.primaryDomain}`;
    // Start at the beginning of a window so the failures below fall into one window.
    await sleep(WINDOW * 1000 - (Date.now() % (WINDOW * 1000)) + 50);
    assert.equal((await attempt(svc.url, app, loginName, 'wrong-1')).status, 401);
    assert.equal((await attempt(svc.url, app, loginName, 'wrong-2')).status, 401);
    const limited = await attempt(svc.url, app, loginName, PASSWORD);
    assert.equal(limited.status, 429);
    const wait = Number(limited.headers.get('retry-after'));
    assert.ok(wait >= 1 && wait <= WINDOW);
    const oldWindows = (await svc.dataSource.query('SELECT DISTINCT window_start FROM login_attempts')).map((r: { window_start: unknown }) =>
      Number(r.window_start),
    );

    await sleep(wait * 1000 + 100);
    assert.equal((await attempt(svc.url, app, loginName, 'wrong-3')).status, 401, 'a new window counts from zero');
    const remaining = (await svc.dataSource.query('SELECT DISTINCT window_start FROM login_attempts')).map((r: { window_start: unknown }) =>
      Number(r.window_start),
    );
    assert.ok(
      remaining.every((w: number) => !oldWindows.includes(w)),
      `past windows purged: ${oldWindows} → ${remaining}`,
    );
    assert.equal((await attempt(svc.url, app, loginName, PASSWORD)).status, 303);
  });
});

describe('login rate limit per IP holds across two processes over one database', () => {
  const procs: ServiceProcess[] = [];
  let database: TestDatabase;
  let dataDir: string;
  let app: OidcApp;
  let primaryDomain: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-ratelimit-'));
    database = await createTestDatabase();
    const env = {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      LOGIN_RATE_LIMIT_PER_IP: '4',
      ...(database.url ? { DATABASE_URL: database.url } : {}),
    };
    // The first process bootstraps (master key, admin); the second shares both through DATA_DIR.
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      procs.push(await spawnService({ ...env, PUBLIC_URL: `http://127.0.0.1:${procs[0]?.port ?? port}` }, { port }));
    }
    const admin = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
    const svcLike = { api: createClient(procs[0].url), adminToken: admin } as unknown as TestService;
    const project = await createProject(svcLike);
    primaryDomain = project.primaryDomain;
    app = await createOidcApp(svcLike, project, { authMethod: 'client_secret_basic' }, RP);
  });
  after(async () => {
    for (const p of procs) await p.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('4 failures spread over both processes exhaust the IP budget on both', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await attempt(procs[i % 2].url, app, `spray-${i}@${primaryDomain}`, 'Winter2026!')).status);
    assert.deepEqual(statuses, [401, 401, 401, 401]);
    assert.equal((await attempt(procs[0].url, app, `spray-x@${primaryDomain}`, 'Winter2026!')).status, 429);
    assert.equal((await attempt(procs[1].url, app, `spray-y@${primaryDomain}`, 'Winter2026!')).status, 429);
  });
});
