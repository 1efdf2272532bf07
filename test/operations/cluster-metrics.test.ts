import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processSetup } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { createClient } from '../support/http.js';
import type { ServiceProcess } from '../support/process.js';
import { freePort } from '../support/service.js';
import { scrape, total } from './prometheus.js';

const REQUESTS = 40;

describe('operations: with WORKERS=2 the primary serves the management listener, metrics summed over the workers', () => {
  let setup: ProcessSetup;
  let service: ServiceProcess;
  let management: string;

  before(async () => {
    setup = await processSetup();
    const port = await freePort();
    management = `http://127.0.0.1:${port}`;
    service = await setup.spawn({ WORKERS: '2', MANAGEMENT_PORT: String(port) });
  });
  after(() => setup?.cleanup());

  it('counts every request whichever worker served it, and is ready', async () => {
    const api = createClient(service.url);
    const before = await scrape(`${management}/metrics`);
    const workers = new Set<number>();
    for (let i = 0; i < REQUESTS; i++) {
      const res = await api('GET', '/admin/v1/orgs', { token: setup.adminToken(), headers: { connection: 'close' } });
      assert.equal(res.status, 200);
    }
    for (let i = 0; i < 10; i++) workers.add(((await api('GET', '/healthz', { headers: { connection: 'close' } })).body as { worker: number }).worker);
    assert.equal(workers.size, 2, 'both workers served requests');
    const after = await scrape(`${management}/metrics`);
    const match = { surface: 'admin', route: '/admin/v1/orgs', status: '200' };
    assert.equal(total(after, 'portcullis_http_requests_total', match) - total(before, 'portcullis_http_requests_total', match), REQUESTS);
    assert.equal((await fetch(`${management}/readyz`)).status, 200);
  });
});
