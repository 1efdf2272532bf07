import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, processSetup, remoteService, untilReady } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { unique } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { freePort } from '../support/service.js';

/** Requests on new connections, so that two worker processes share them (node:cluster deals them in turn). */
const ROUND = 10;

/**
 * Credential removal across processes: a machine secret removed or replaced through one worker process stops
 * (or starts) working in the other within a second (the client cache lives CLIENT_CACHE_MS = 1 s), and from
 * then on in every request, whichever process answers it.
 */
describe('a removed or replaced machine secret, with WORKERS=2', () => {
  let setup: ProcessSetup;
  let remote: TestService;
  let orgId: string;

  before(async () => {
    setup = await processSetup();
    const management = await freePort();
    const service = await setup.spawn({ WORKERS: '2', MANAGEMENT_PORT: String(management) });
    await untilReady(`http://127.0.0.1:${management}`, 'both workers listening');
    remote = remoteService(service.url, setup.adminToken());
    const workers = new Set<number>();
    for (let i = 0; i < ROUND; i++) workers.add((await remote.api('GET', '/healthz', { headers: { connection: 'close' } })).body.worker);
    assert.equal(workers.size, 2, 'two worker processes serve the port');
    orgId = (await remote.api('GET', '/admin/v1/orgs', { token: remote.adminToken })).body.orgs.find((o: { name: string }) => o.name === 'default').id;
  });
  after(() => setup?.cleanup());

  const clientCredentials = async (clientId: string, secret: string) =>
    (
      await fetch(new URL('/oauth/v2/token', remote.url), {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          connection: 'close',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials' }),
      })
    ).status;
  /** The statuses of a round of requests, each on a new connection. */
  const round = async (clientId: string, secret: string) =>
    new Set(await Promise.all(Array.from({ length: ROUND }, () => clientCredentials(clientId, secret))));

  async function machineWithSecret() {
    const path = `/management/v1/orgs/${orgId}/users`;
    const machine = await remote.api('POST', `${path}/machine`, { token: remote.adminToken, body: { userName: unique('robot'), name: 'Robot' } });
    assert.equal(machine.status, 201, machine.text);
    const secret = await remote.api('POST', `${path}/${machine.body.userId}/secret`, { token: remote.adminToken, body: {} });
    assert.equal(secret.status, 201, secret.text);
    assert.deepEqual(await round(secret.body.clientId, secret.body.clientSecret), new Set([200]), 'both processes know the client');
    return { secretPath: `${path}/${machine.body.userId}/secret`, clientId: secret.body.clientId as string, secret: secret.body.clientSecret as string };
  }

  it('a deleted secret is refused by every process within a second', async () => {
    const { secretPath, clientId, secret } = await machineWithSecret();
    assert.equal((await remote.api('DELETE', secretPath, { token: remote.adminToken })).status, 204);
    await eventually('every process refuses the secret', async () => ((await round(clientId, secret)).has(200) ? undefined : true), 1_500, 50);
    assert.deepEqual(await round(clientId, secret), new Set([401]));
  });

  it('a replaced secret: the new one works and the old one stops in every process within a second', async () => {
    const { secretPath, clientId, secret } = await machineWithSecret();
    const replaced = await remote.api('POST', secretPath, { token: remote.adminToken, body: {} });
    assert.equal(replaced.status, 201, replaced.text);
    const fresh = replaced.body.clientSecret as string;
    await eventually('every process takes the new secret', async () => ((await round(clientId, fresh)).has(401) ? undefined : true), 1_500, 50);
    assert.deepEqual(await round(clientId, fresh), new Set([200]));
    assert.deepEqual(await round(clientId, secret), new Set([401]));
  });
});
