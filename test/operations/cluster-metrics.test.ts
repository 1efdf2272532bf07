import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, processSetup, untilReady } from '../faults/faults.helpers.js';
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
    // The service answers as soon as one worker listens; the cluster is ready once both do.
    await untilReady(management, 'both workers listening');
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

  it('is not ready while a worker that died is being replaced, and ready again once the new one listens', async () => {
    const [pid] = workerPids(service.output());
    process.kill(pid, 'SIGKILL');
    const unready = await eventually('readiness names the missing worker', async () => {
      const res = await fetch(`${management}/readyz`);
      return res.status === 503 ? ((await res.json()) as { reason: string }) : undefined;
    });
    assert.equal(unready.reason, '1 of 2 workers are listening');
    assert.equal((await createClient(service.url)('GET', '/healthz')).status, 200, 'the other worker serves meanwhile');
    await untilReady(management, 'the replacement listens');
    // Readiness comes over the cluster's IPC; the worker's line comes through its stdout pipe, which may be later.
    await eventually('the replacement logged its start', async () => (workerPids(service.output()).length >= 3 ? true : undefined));
    assert.equal(workerPids(service.output()).length, 3);
  });
});

/** Each worker logs one line when it listens, with its pid. */
function workerPids(output: string): number[] {
  return output
    .split('\n')
    .filter((line) => line.includes('Portcullis listening on port'))
    .map((line) => (JSON.parse(line) as { pid: number }).pid);
}
