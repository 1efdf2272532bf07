import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processSetup, remoteService, untilReady } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { LoginClient } from '../attack/support/login-client.js';
import { createHuman, createMachine, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import { scimTenant, userBody } from '../scim/scim-helpers.js';
import { createClient } from '../support/http.js';
import type { ServiceProcess } from '../support/process.js';
import { freePort } from '../support/service.js';
import { scrape, total } from './prometheus.js';
import type { Family } from './prometheus.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe('operations: the management listener serves metrics, health and readiness apart from the public port', () => {
  let setup: ProcessSetup;
  let service: ServiceProcess;
  let management: string;

  before(async () => {
    setup = await processSetup();
    const port = await freePort();
    management = `http://127.0.0.1:${port}`;
    service = await setup.spawn({ MANAGEMENT_PORT: String(port) });
  });
  after(() => setup?.cleanup());

  it('is not on the public port, and answers /healthz and /readyz', async () => {
    assert.equal((await fetch(`${service.url}/metrics`)).status, 404, 'metrics are not public');
    assert.equal((await fetch(`${service.url}/readyz`)).status, 404);
    assert.deepEqual(await (await fetch(`${management}/healthz`)).json(), { status: 'ok' });
    const ready = await fetch(`${management}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready' });
    assert.equal((await fetch(`${management}/metrics`, { method: 'POST' })).status, 405);
  });

  it('counters move with the requests made, labelled by route template, never by an id or a token', async () => {
    const before = await scrape(`${management}/metrics`);
    const remote = remoteService(service.url, setup.adminToken());
    const tenant = await scimTenant(remote);
    for (let i = 0; i < 3; i++) assert.equal((await tenant.scim('POST', '/Users', { body: userBody(`metrics-${i}`) })).status, 201);
    const listed = await tenant.scim('GET', '/Users?count=2');
    assert.equal(listed.status, 200);
    const machine = await createMachine(remote, tenant.orgId);
    const token = await createClient(service.url)('POST', '/oauth/v2/token', {
      rawBody: 'grant_type=client_credentials',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${machine.clientId}:${machine.clientSecret}`).toString('base64')}`,
      },
    });
    assert.equal(token.status, 200, token.text);
    await failedLogin(remote, tenant.orgId);
    await fetch(`${service.url}/no/such/path/${machine.userId}`);
    assert.equal((await fetch(`${service.url}/healthz`)).status, 200);

    const after = await scrape(`${management}/metrics`);
    const delta = (name: string, match: Record<string, string> = {}) => total(after, name, match) - total(before, name, match);
    assert.equal(delta('portcullis_http_requests_total', { surface: 'scim', route: '/scim/v2/:orgId/Users', status: '201' }), 3);
    assert.equal(delta('portcullis_scim_requests_total', { resource: 'Users', method: 'POST', status: '201' }), 3);
    assert.equal(delta('portcullis_scim_requests_total', { resource: 'Users', method: 'GET', status: '200' }), 1);
    assert.equal(delta('portcullis_http_requests_total', { surface: 'oidc', route: '/oauth/v2/token', status: '200' }), 1);
    assert.equal(delta('portcullis_tokens_issued_total', { grant_type: 'client_credentials' }), 1);
    assert.equal(delta('portcullis_logins_total', { result: 'failure' }), 1);
    assert.equal(delta('portcullis_http_requests_total', { route: 'unmatched', status: '404' }), 1);
    // Answered before Express (src/common/health/health.listener.ts), still counted under its route.
    assert.equal(delta('portcullis_http_requests_total', { surface: 'health', route: '/healthz', status: '200' }), 1);
    assert.ok(delta('portcullis_events_written_total') >= 4, 'three users, an organization, a machine user: events');
    assertNoIds(after, [tenant.orgId, machine.userId, machine.clientId, machine.clientSecret, setup.adminToken()]);
  });

  it('durations are histograms with buckets; process and Node.js metrics are there', async () => {
    const families = await scrape(`${management}/metrics`);
    const duration = families.get('portcullis_http_request_duration_seconds');
    assert.equal(duration?.type, 'HISTOGRAM');
    // The parser folds a labelled histogram's series into one sample: its bucket bounds are what is checked.
    const bounds = Object.keys(duration!.metrics[0]?.buckets ?? {});
    assert.ok(bounds.length >= 10 && bounds.includes('+Inf'), JSON.stringify(duration!.metrics));
    for (const name of [
      'process_cpu_user_seconds_total',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'portcullis_webhook_deliveries_total',
      'portcullis_mail_messages_total',
    ]) {
      assert.ok(families.has(name), `${name} is exported`);
    }
  });

  it('/readyz is 503 while migrations are pending, and ready again once they are applied', async () => {
    const last = await setup.inspect(
      async (db) => (await db.query('SELECT * FROM migrations ORDER BY timestamp DESC LIMIT 1'))[0] as { id: number; timestamp: number; name: string },
    );
    await setup.inspect((db) => db.query('DELETE FROM migrations WHERE id = ?', [last.id]));
    try {
      const pending = await fetch(`${management}/readyz`);
      assert.equal(pending.status, 503);
      assert.deepEqual(await pending.json(), { status: 'unavailable', reason: 'migrations are pending' });
      assert.equal((await fetch(`${service.url}/healthz`)).status, 200, 'the public health check is unchanged');
    } finally {
      await setup.inspect((db) => db.query('INSERT INTO migrations (id, timestamp, name) VALUES (?, ?, ?)', [last.id, last.timestamp, last.name]));
    }
    await untilReady(management, 'ready again');
  });
});

/** A wrong password through the login UI, as a browser sends it. */
async function failedLogin(remote: ReturnType<typeof remoteService>, orgId: string): Promise<void> {
  const project = await createProject(remote, orgId);
  const app = await createOidcApp(remote, project, { authMethod: 'none' });
  const user = await createHuman(remote, orgId);
  const browser = new LoginClient(remote.url);
  const { uid, csrf } = await browser.startLogin({
    client_id: app.clientId,
    redirect_uri: 'http://127.0.0.1:65530/cb',
    response_type: 'code',
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const res = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName: user.userName, password: 'wrong-password-1' });
  assert.equal(res.status, 401);
}

function assertNoIds(families: Map<string, Family>, secrets: string[]): void {
  for (const family of families.values()) {
    for (const sample of family.metrics) {
      for (const [label, value] of Object.entries(sample.labels ?? {})) {
        assert.doesNotMatch(value, UUID, `${family.name}{${label}="${value}"} holds an id`);
        for (const secret of secrets) assert.ok(!value.includes(secret), `${family.name}{${label}} holds ${secret.slice(0, 6)}…`);
      }
    }
  }
}
