import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { useService } from '../support/fixtures.js';

/** One request on a fresh connection; the `Keep-Alive` header the service answers it with. */
function keepAliveOf(url: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { agent: false, headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers['keep-alive'] as string | undefined));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * docs/operations.md, "Behind a load balancer": idle connections stay open HTTP_KEEP_ALIVE_TIMEOUT_MS, longer than a
 * balancer's idle timeout, and clients are told so (the `Keep-Alive` header's `timeout`, in seconds).
 */
describe('idle connections', () => {
  const standard = useService();
  const configured = useService({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '90000' });

  it('stay open 65 s by default, not Node’s 5 s, and as long as configured', async () => {
    assert.equal(await keepAliveOf(standard.url), 'timeout=65');
    assert.equal(await keepAliveOf(configured.url), 'timeout=90');
  });
});
