import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { WebhookSender } from './webhook-sender.js';
import { targetUrlProblem } from './webhook-target.js';

describe('webhook targets', () => {
  it('refuses URLs that are not plain http(s)', () => {
    assert.equal(targetUrlProblem('https://hooks.example.com/x?y=1'), undefined);
    for (const bad of ['hooks.example.com', 'ftp://h/x', 'https://u:p@h/x', 'https://h/x#f', 'javascript:alert(1)']) assert.ok(targetUrlProblem(bad), bad);
  });

  // DNS rebinding: a URL accepted once must still not reach a private address when it is delivered to.
  it('at delivery, a sender without the setting reaches no loopback listener, by name or by address', async () => {
    let hits = 0;
    const server = createServer((_req, res) => (hits++, res.end()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const sender = new WebhookSender(false);
    try {
      for (const url of [
        `http://localhost:${port}/hook`,
        `http://127.0.0.1:${port}/hook`,
        `http://[::ffff:127.0.0.1]:${port}/hook`,
        `http://[::127.0.0.1]:${port}/hook`,
        `http://[::ffff:0:7f00:1]:${port}/hook`,
      ]) {
        const result = await sender.send(url, {}, '{}');
        assert.equal(result.ok, false, url);
        assert.match(result.error ?? '', /non-public/, url);
      }
      assert.equal(hits, 0);
      const permissive = new WebhookSender(true);
      assert.deepEqual(await permissive.send(`http://127.0.0.1:${port}/hook`, {}, '{}'), { ok: true, status: 200 });
      permissive.close();
      assert.equal(hits, 1);
    } finally {
      sender.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
