import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '../support/http.js';
import type { ApiResponse } from '../support/http.js';
import type { ServiceProcess } from '../support/process.js';
import { createMachine } from '../oidc/support/oidc-fixtures.js';
import { scimTenant, userBody } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { eventually, processSetup, remoteService, spawnBehindProxy } from './faults.helpers.js';
import type { ProcessSetup } from './faults.helpers.js';
import type { TcpProxy, OutageMode } from './tcp-proxy.js';

const server = process.env.TEST_DATABASE_URL;
const isMysql = server !== undefined && /^(mysql|mariadb):/.test(server);
/** "Fail fast": well under a client's usual timeout; the pool's connect timeout is 3 s. */
const FAIL_FAST_MS = 8_000;

/**
 * The database goes away while the service serves. The service talks to MariaDB through a TCP
 * proxy, so "stopping the database" is cutting every connection and refusing (server down) or
 * swallowing (network partition) new ones, without touching the server other suites use.
 * During the outage every request fails fast with 503 and Retry-After and changes nothing; afterwards
 * the same process serves again by itself.
 */
describe('faults: MariaDB stops and starts while the service serves', {
  skip: isMysql ? false : 'needs TEST_DATABASE_URL=mysql://… (SQLite: see database-locked.test.ts)',
}, () => {
  let setup: ProcessSetup;
  let proxy: TcpProxy;
  let service: ServiceProcess;
  let tenant: ScimTenant;
  let admin: string;
  let machine: { clientId: string; clientSecret: string };

  before(async () => {
    setup = await processSetup();
    ({ proxy, service } = await spawnBehindProxy(setup));
    admin = setup.adminToken();
    const remote = remoteService(service.url, admin);
    tenant = await scimTenant(remote);
    machine = await createMachine(remote, tenant.orgId);
  });
  after(async () => {
    await setup?.cleanup();
    await proxy?.close();
  });

  /** One request of each kind: admin read and write, SCIM read and write, the health check, a token. */
  function probes(tag: string): Record<string, () => Promise<ApiResponse>> {
    const api = createClient(service.url);
    return {
      'admin read': () => api('GET', '/admin/v1/orgs', { token: admin }),
      'admin write': () => api('POST', '/admin/v1/orgs', { token: admin, body: { name: `outage-${tag}` } }),
      'SCIM read': () => tenant.scim('GET', '/Users?count=5'),
      'SCIM write': () => tenant.scim('POST', '/Users', { body: userBody(`outage-${tag}`) }),
      health: () => api('GET', '/healthz'),
    };
  }

  function token(): Promise<ApiResponse> {
    return createClient(service.url)('POST', '/oauth/v2/token', {
      rawBody: 'grant_type=client_credentials',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${machine.clientId}:${machine.clientSecret}`).toString('base64')}`,
      },
    });
  }

  async function rowCounts() {
    return setup.inspect(async (db) => {
      const count = async (table: string) => Number((await db.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
      return { organizations: await count('organizations'), users: await count('users'), events: await count('events') };
    });
  }

  for (const mode of ['refuse', 'blackhole'] as OutageMode[]) {
    it(`${mode}d connections: 503 with Retry-After at once, no change, and recovery without a restart`, async (t) => {
      const pid = service.child.pid;
      // Warm the pool so that the outage also kills connections the pool already holds.
      await Promise.all(Array.from({ length: 6 }, () => createClient(service.url)('GET', '/admin/v1/orgs', { token: admin })));
      const before = await rowCounts();

      await proxy.stop(mode);
      const outage = await Promise.all(
        Object.entries(probes(`${mode}-down`)).map(async ([name, probe]) => {
          const started = Date.now();
          const res = await probe();
          return { name, res, ms: Date.now() - started };
        }),
      );
      for (const { name, res, ms } of outage) {
        assert.equal(res.status, 503, `${name} during the outage: ${res.status} ${res.text.slice(0, 300)}`);
        assert.equal(res.headers.get('retry-after'), '5', `${name} carries Retry-After`);
        assert.ok(ms < FAIL_FAST_MS, `${name} answered after ${ms} ms, not fast`);
      }
      // The health probe answers before Express (src/common/health/health.listener.ts), in the API's error body.
      assert.deepEqual(outage.find(({ name }) => name === 'health')!.res.body, { code: 503, message: 'the database is not reachable', details: [] });
      t.diagnostic(`during the outage: ${outage.map(({ name, ms }) => `${name} ${ms} ms`).join(', ')}`);
      const started = Date.now();
      const tokenDuringOutage = await token();
      assert.ok(Date.now() - started < FAIL_FAST_MS, 'the token endpoint fails fast too');
      assert.equal(tokenDuringOutage.status, 503, `the OIDC token endpoint during the outage: ${tokenDuringOutage.text}`);
      assert.equal(tokenDuringOutage.headers.get('retry-after'), '5');
      assert.equal(JSON.parse(tokenDuringOutage.text).error, 'temporarily_unavailable');
      assert.deepEqual(await rowCounts(), before, 'the refused writes changed nothing');

      const acceptedBefore = proxy.accepted;
      const downAt = Date.now();
      await proxy.resume();
      await eventually(
        'every kind of request succeeds again',
        async () => {
          const results = await Promise.all(
            Object.entries(probes(`${mode}-up-${Date.now()}`)).map(async ([name, probe]) => [name, (await probe()).status] as const),
          );
          results.push(['OIDC token', (await token()).status]);
          const failing = results.filter(([, status]) => status >= 300);
          return failing.length === 0 ? results : undefined;
        },
        20_000,
        250,
      );
      t.diagnostic(`recovered ${Date.now() - downAt} ms after the database came back`);
      assert.ok(proxy.accepted > acceptedBefore, 'the service opened new connections to the database');
      assert.equal(service.child.pid, pid);
      assert.equal(service.child.exitCode, null, 'the same process, never restarted');
    });
  }

  it('a pool whose sockets die mid-load: requests in flight fail with 503 or succeed, never hang, and the next ones succeed', async (t) => {
    const api = createClient(service.url);
    const load = Array.from({ length: 40 }, (_, i) => api('POST', '/admin/v1/orgs', { token: admin, body: { name: `mid-load-${i}` } }));
    await new Promise((r) => setTimeout(r, 20));
    await proxy.stop('refuse');
    await proxy.resume();
    const statuses = (await Promise.all(load)).map((r) => r.status);
    assert.deepEqual(
      statuses.filter((s) => s !== 201 && s !== 503),
      [],
      `only 201 or 503: ${statuses.join(' ')}`,
    );
    const org = await eventually('writes succeed again', async () => {
      const res = await api('POST', '/admin/v1/orgs', { token: admin, body: { name: `after-mid-load-${Date.now()}` } });
      return res.status === 201 ? res : undefined;
    });
    assert.ok(org.body.id);
    const created = statuses.filter((s) => s === 201).length;
    const stored = await setup.inspect(async (db) => Number((await db.query(`SELECT COUNT(*) AS n FROM organizations WHERE name LIKE 'mid-load-%'`))[0].n));
    assert.ok(stored >= created, `every acknowledged organization is stored (${stored} stored, ${created} acknowledged)`);
    t.diagnostic(`${created} of 40 in-flight writes acknowledged, ${statuses.length - created} answered 503; ${stored} stored`);
  });
});
