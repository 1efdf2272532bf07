import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { RequestsInFlight } from './requests-in-flight.js';

/** A server whose handler keeps each response for the test to end; `closed` resolves with one once its client is gone. */
async function serverKeepingResponses(answer: (res: ServerResponse) => void = () => undefined) {
  const server = createServer((_req, res) => {
    answer(res);
    server.emit('kept', res);
  });
  const requests = new RequestsInFlight(server);
  server.listen(0);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  /** Sends a request and resets the connection once the handler has it; resolves with the response after its 'close'. */
  const resetWhileHandled = async (): Promise<ServerResponse> => {
    const kept = once(server, 'kept');
    const client = connect(port, '127.0.0.1');
    client.on('error', () => undefined);
    client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const [res] = (await kept) as [ServerResponse];
    const closed = once(res, 'close');
    client.resetAndDestroy();
    await closed;
    return res;
  };
  /** Sends a keep-alive request and leaves the connection open; resolves with the response once the handler has it. */
  const keptAliveWhileHandled = async () => {
    const kept = once(server, 'kept');
    const { client, closedByServer } = rawClient(port);
    client.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    const [res] = (await kept) as [ServerResponse];
    return { res, closedByServer };
  };
  return { server, requests, resetWhileHandled, keptAliveWhileHandled };
}

/** A plain TCP client of the server; `closedByServer` resolves with all it was sent once its connection closes. */
function rawClient(port: number) {
  const client = connect(port, '127.0.0.1');
  client.on('error', () => undefined);
  let answer = '';
  client.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  return { client, closedByServer: once(client, 'close').then(() => answer) };
}

/** `server.close()`, resolved when every connection has closed. */
const closing = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('RequestsInFlight', () => {
  it('counts a request whose client reset its connection until its handler ends the response', async () => {
    const { server, requests, resetWhileHandled } = await serverKeepingResponses();
    try {
      const res = await resetWhileHandled();
      server.close();
      const drained = requests.drained();
      assert.equal(requests.size, 1, 'the handler still runs after its connection closed');
      res.end('late');
      await drained;
      assert.equal(requests.size, 0);
    } finally {
      server.close();
    }
  });

  it('lets a response that had started streaming end with its connection', async () => {
    const { server, requests, resetWhileHandled } = await serverKeepingResponses((res) => res.write('first chunk'));
    try {
      await resetWhileHandled();
      assert.equal(requests.size, 0);
      await requests.drained();
    } finally {
      server.close();
    }
  });

  // A keep-alive timeout far longer than the test may take: the stop must not wait for it.
  const STOP = { timeout: 20_000 };

  it('once the stop begins, closes a keep-alive connection busy at that moment after its answer (Connection: close)', STOP, async () => {
    const { server, requests, keptAliveWhileHandled } = await serverKeepingResponses();
    server.keepAliveTimeout = 600_000;
    const { res, closedByServer } = await keptAliveWhileHandled();
    requests.stopKeepingAlive();
    const closed = closing(server);
    res.end('answered');
    assert.match(await closedByServer, /^HTTP\/1\.1 200[\s\S]*\r\nConnection: close\r\n[\s\S]*answered$/i);
    await closed;
  });

  it('closes a connection whose answer had begun before the stop once that answer ends', STOP, async () => {
    const { server, requests, keptAliveWhileHandled } = await serverKeepingResponses((res) => res.write('first chunk, '));
    server.keepAliveTimeout = 600_000;
    const { res, closedByServer } = await keptAliveWhileHandled();
    requests.stopKeepingAlive();
    const closed = closing(server);
    res.end('last chunk');
    assert.match(await closedByServer, /first chunk[\s\S]*last chunk[\s\S]*$/);
    await closed;
  });

  it('answers a request that arrives during the stop with Connection: close, and closes its connection', STOP, async () => {
    const { server, requests } = await serverKeepingResponses((res) => res.end('ok'));
    server.keepAliveTimeout = 600_000;
    const { client, closedByServer } = rawClient((server.address() as AddressInfo).port);
    // Its connection was open before the stop began (as a keep-alive client's is).
    await once(client, 'connect');
    requests.stopKeepingAlive();
    client.write('GET /a HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(await closedByServer, /\r\nConnection: close\r\n/i);
    await closing(server);
  });
});
