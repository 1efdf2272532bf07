import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { createClient } from '../support/http.js';
import type { ApiResponse } from '../support/http.js';
import type { ServiceProcess } from '../support/process.js';
import { PATCH_OP, scimTenant, userBody } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { PASSWORD, createApiApp, createHuman, createMachine, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { CookieJar } from './cookie-jar.js';
import { processSetup, remoteService } from './faults.helpers.js';
import { InspectorSession } from './inspector-session.js';
import type { ProcessSetup } from './faults.helpers.js';

/**
 * Length of the measured soak; CI runs the default on SQLite and again on MariaDB (a minute each, within CI's time;
 * a longer soak on demand: `SOAK_SECONDS=600`).
 */
const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
/** The same load before the first measurement, so that lazy start-up allocations and JIT are done. */
const WARM_UP_SECONDS = Math.max(30, Math.round(SOAK_SECONDS / 4));
/** Clients per kind of request. */
const CLIENTS_PER_KIND = 2;
/**
 * Each client starts a round at most this often: a steady load, as in production, not saturation (that is the
 * benchmarks' job, bench/). Saturating both cores for the soak's minute and a half slowed every suite running beside
 * it in CI (2.0 CPU-minutes per database; paced 1.1). Paced, the soak still sends some 8,000 requests in its minute,
 * 1,200 of them full logins, as many as unpaced (a login takes longer than the pace).
 */
const ROUND_MS = 100;
const REDIRECT = 'http://127.0.0.1:65530/cb';
/**
 * On SQLite the connection's page cache (better-sqlite3 builds SQLite with SQLITE_DEFAULT_CACHE_SIZE=-16000: 16,000
 * KiB) fills as the soak's events grow the database past what the warm-up touched: malloc's main arena grew 15.6 →
 * 25.4 → 30.5 → 30.6 MB over three further minutes of this load, then stayed, with the live heap flat. It is a bound,
 * not something that piles up per request, and the RSS bound allows for it.
 */
const SQLITE_PAGE_CACHE_KB = 16_000;

/**
 * A bounded soak of mixed load (client credentials tokens and their introspection, SCIM reads
 * and writes, full logins) on the service as a real process. No request fails, and the process's
 * resident memory at the end is within 10% of what it was after the warm-up: nothing piles up per request.
 */
describe('faults: bounded soak of mixed load', () => {
  let setup: ProcessSetup;
  let service: ServiceProcess;
  let tenant: ScimTenant;
  let web: OidcApp;
  let api: OidcApp;
  let machine: { clientId: string; clientSecret: string };
  let loginName: string;
  let inspector: InspectorSession;

  before(async () => {
    setup = await processSetup();
    // The inspector, on a port of its own on the loopback, is how the test makes the service collect all garbage
    // before measuring (inspector-session.ts).
    service = await setup.spawn({ NODE_OPTIONS: '--inspect=127.0.0.1:0' });
    inspector = await InspectorSession.open(service.output());
    const remote = remoteService(service.url, setup.adminToken());
    tenant = await scimTenant(remote);
    const project = await createProject(remote, tenant.orgId);
    web = await createOidcApp(remote, project, { authMethod: 'client_secret_basic' });
    api = await createApiApp(remote, project);
    machine = await createMachine(remote, tenant.orgId);
    const human = await createHuman(remote, tenant.orgId);
    const orgs = (await remote.api('GET', '/admin/v1/orgs', { token: remote.adminToken })).body.orgs as { id: string; primaryDomain: string }[];
    loginName = `${human.userName}@${orgs.find((o) => o.id === tenant.orgId)!.primaryDomain}`;
  });
  after(async () => {
    inspector?.close();
    await setup?.cleanup();
  });

  it(`runs ${SOAK_SECONDS} s without an error, and memory stays within 10% of the warmed-up level`, {
    timeout: (WARM_UP_SECONDS + SOAK_SECONDS + 180) * 1000,
  }, async (t) => {
    const http = createClient(service.url);
    const basic = (client: { clientId: string; clientSecret?: string }) =>
      `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
    const form = (path: string, fields: Record<string, string>, client: { clientId: string; clientSecret?: string }) =>
      http('POST', path, {
        rawBody: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(client) },
      });

    const failures: string[] = [];
    const done: Record<string, number> = {};
    const expect = (what: string, res: ApiResponse, status: number) => {
      if (res.status !== status) failures.push(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
      done[what] = (done[what] ?? 0) + 1;
      return res.status === status;
    };

    const kinds: Record<string, (round: string) => Promise<void>> = {
      token: async () => {
        const issued = await form(
          '/oauth/v2/token',
          { grant_type: 'client_credentials', scope: `urn:portcullis:iam:org:project:id:${api.projectId}:aud` },
          machine,
        );
        if (!expect('token', issued, 200)) return;
        const introspected = await form('/oauth/v2/introspect', { token: issued.body.access_token }, api);
        if (expect('introspection', introspected, 200) && introspected.body.active !== true) failures.push('introspection: a fresh token is inactive');
      },
      'SCIM read': async () => {
        expect('SCIM read', await tenant.scim('GET', '/Users?filter=userName%20sw%20%22soak%22&count=20'), 200);
      },
      'SCIM write': async (round) => {
        // Created, changed and removed again: the load writes without making the data set grow.
        const created = await tenant.scim('POST', '/Users', { body: userBody(`soak-${round}`) });
        if (!expect('SCIM create', created, 201)) return;
        const patch = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: `soaked ${round}` }] };
        expect('SCIM patch', await tenant.scim('PATCH', `/Users/${created.body.id}`, { body: patch }), 204);
        expect('SCIM delete', await tenant.scim('DELETE', `/Users/${created.body.id}`), 204);
      },
      login: async () => {
        const jar = new CookieJar();
        const authorize = `/oauth/v2/authorize?${new URLSearchParams({ client_id: web.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'soak' })}`;
        const started = await jar.get(service.url, authorize);
        const page = await jar.get(service.url, started.location ?? '/');
        const action = /action="([^"]+)"/.exec(page.text)?.[1]?.replaceAll('&amp;', '&');
        const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
        if (!action || !csrf) return void failures.push(`login page: ${page.status} ${page.text.slice(0, 200)}`);
        let hop = await jar.login(service.url, action, { csrf, loginName, password: PASSWORD });
        for (let i = 0; i < 5 && hop.location && !hop.location.startsWith(REDIRECT); i++) hop = await jar.get(service.url, hop.location);
        const code = hop.location?.startsWith(REDIRECT) ? new URL(hop.location).searchParams.get('code') : null;
        if (!code) return void failures.push(`login: no code (${hop.status} ${hop.location ?? hop.text.slice(0, 200)})`);
        expect('login', await form('/oauth/v2/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, web), 200);
      },
    };

    let stopAt = 0;
    const run = async (kind: string, client: number) => {
      for (let round = 0; Date.now() < stopAt; round++) {
        const started = Date.now();
        await kinds[kind](`${kind.replace(' ', '-')}-${client}-${round}`).catch((error: unknown) => failures.push(`${kind}: ${String(error)}`));
        await sleep(Math.max(0, Math.min(ROUND_MS - (Date.now() - started), stopAt - Date.now())));
      }
    };
    const phase = async (seconds: number) => {
      stopAt = Date.now() + seconds * 1000;
      await Promise.all(Object.keys(kinds).flatMap((kind) => Array.from({ length: CLIENTS_PER_KIND }, (_, c) => run(kind, c))));
      return settledMemory(service, inspector);
    };

    const warm = await phase(WARM_UP_SECONDS);
    const warmCounts = { ...done };
    const soaked = await phase(SOAK_SECONDS);
    const requests = Object.fromEntries(Object.entries(done).map(([k, v]) => [k, v - (warmCounts[k] ?? 0)]));
    const change = (key: keyof Memory) => `${warm[key]} kB → ${soaked[key]} kB (${(((soaked[key] - warm[key]) / warm[key]) * 100).toFixed(1)}%)`;
    t.diagnostic(`soak of ${SOAK_SECONDS} s after ${WARM_UP_SECONDS} s warm-up: ${JSON.stringify(requests)}`);
    t.diagnostic(`after a full GC, warm-up → soak: RSS ${change('rssKb')}, live JS heap ${change('heapKb')}; peak RSS ${peakKb(service)} kB`);

    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} failed requests`);
    for (const kind of ['token', 'introspection', 'SCIM read', 'SCIM create', 'login']) assert.ok((requests[kind] ?? 0) > 0, `the soak ran ${kind} requests`);
    assert.ok(soaked.heapKb <= warm.heapKb * 1.1, `live heap grew by more than 10%: ${change('heapKb')}`);
    const cacheKb = setup.env.DATABASE_URL ? 0 : SQLITE_PAGE_CACHE_KB;
    assert.ok(soaked.rssKb <= warm.rssKb * 1.1 + cacheKb, `RSS grew by more than 10% (+ ${cacheKb} kB of page cache): ${change('rssKb')}`);
    assert.equal(service.child.exitCode, null, 'the service is still running');
  });
});

interface Memory {
  rssKb: number;
  heapKb: number;
}

/**
 * Memory of the idle service after a full garbage collection, asked for through the inspector (inspector-session.ts).
 * RSS under load follows the collector's saw-tooth (±50% here), so it is measured right after that collection; the
 * live JS heap is V8's used size at that moment. (Measured after a heap snapshot instead, as the test did before, the
 * RSS carried the snapshot's own allocations: 467 → 527 MB across one soak with the live heap flat.)
 */
async function settledMemory(service: ServiceProcess, inspector: InspectorSession): Promise<Memory> {
  await inspector.send('HeapProfiler.collectGarbage');
  const { usedSize } = await inspector.send<{ usedSize: number }>('Runtime.getHeapUsage');
  assert.equal(service.child.exitCode, null, `the service survived the collection:\n${service.output().slice(-2000)}`);
  return { rssKb: procStatus(service, 'VmRSS'), heapKb: Math.round(usedSize / 1024) };
}

function procStatus(service: ServiceProcess, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${service.child.pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  assert.ok(match, `${field} in /proc/<pid>/status`);
  return Number(match[1]);
}

const peakKb = (service: ServiceProcess) => procStatus(service, 'VmHWM');
