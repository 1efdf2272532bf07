import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useService } from '../support/fixtures.js';

/**
 * `/healthz` is answered before Express (src/common/health/health.listener.ts): it must still answer as
 * the Nest controller it replaced did, for every method and spelling Express's router matched.
 * Its 503 during an outage: test/faults/mariadb-outage.test.ts; its metrics: test/operations/management-listener.test.ts.
 */
describe('platform: /healthz answered before Express', () => {
  const svc = useService();

  it("GET: 200 {status, worker} as JSON, with the caller's request id", async () => {
    const res = await svc.api('GET', '/healthz?probe=1', { headers: { 'x-request-id': 'health-probe-1' } });
    assert.equal(res.status, 200);
    assert.equal(res.text, '{"status":"ok","worker":0}');
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(res.headers.get('content-length'), String(res.text.length));
    assert.equal(res.headers.get('x-request-id'), 'health-probe-1');
    assert.equal(res.headers.get('etag'), null);
  });

  it('HEAD: the same status and headers without a body', async () => {
    const res = await svc.api('HEAD', '/healthz');
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
    assert.equal(res.headers.get('content-length'), '26');
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('matches the path as Express did: a trailing slash and any case, nothing below it', async () => {
    assert.equal((await svc.api('GET', '/healthz/')).body.status, 'ok');
    assert.equal((await svc.api('GET', '/HEALTHZ')).body.status, 'ok');
    const below = await svc.api('GET', '/healthz/more');
    assert.equal(below.status, 404);
    assert.deepEqual(below.body, { code: 404, message: 'Cannot GET /healthz/more', details: [] });
  });

  it('other methods go on to Express and get its 404 in the API error shape', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const res = await svc.api(method, '/healthz');
      assert.equal(res.status, 404, method);
      assert.deepEqual(res.body, { code: 404, message: `Cannot ${method} /healthz`, details: [] }, method);
    }
  });
});
