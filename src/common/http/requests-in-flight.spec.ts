import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
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
  return { server, requests, resetWhileHandled };
}

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
});
