import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, processSetup, spawnBehindProxy, untilReady } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import type { TcpProxy } from '../faults/tcp-proxy.js';
import { createClient } from '../support/http.js';
import type { ServiceProcess } from '../support/process.js';
import { freePort } from '../support/service.js';

const server = process.env.TEST_DATABASE_URL;
const isMysql = server !== undefined && /^(mysql|mariadb):/.test(server);

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  req?: { id: string };
  err?: unknown;
  stack?: string;
  cause?: string;
}

/**
 * What an operator sees while the database is away: /readyz says so and recovers by itself, and the
 * log says it once when the database goes and once when it is back — with one line per failed request
 * (its request id and cause), not a stack trace each.
 */
describe('operations: a database outage as the operator sees it', {
  skip: isMysql ? false : 'needs TEST_DATABASE_URL=mysql://… (an outage through a TCP proxy)',
}, () => {
  let setup: ProcessSetup;
  let proxy: TcpProxy;
  let service: ServiceProcess;
  let management: string;

  before(async () => {
    setup = await processSetup();
    const port = await freePort();
    management = `http://127.0.0.1:${port}`;
    ({ proxy, service } = await spawnBehindProxy(setup, { MANAGEMENT_PORT: String(port), LOG_LEVEL: 'info' }));
  });
  after(async () => {
    await setup?.cleanup();
    await proxy?.close();
  });

  it('/readyz is 503 during the outage and 200 after it; the log has one line per state change and one per failed request', async () => {
    const api = createClient(service.url);
    const admin = setup.adminToken();
    assert.equal((await fetch(`${management}/readyz`)).status, 200);
    const logFrom = service.output().length;

    await proxy.stop('refuse');
    const down = await fetch(`${management}/readyz`);
    assert.equal(down.status, 503);
    assert.deepEqual(await down.json(), { status: 'unavailable', reason: 'the database is not reachable' });
    const failed = await Promise.all(Array.from({ length: 5 }, () => api('GET', '/admin/v1/orgs', { token: admin })));
    assert.deepEqual(
      failed.map((r) => r.status),
      [503, 503, 503, 503, 503],
    );

    await proxy.resume();
    await untilReady(management, 'ready again', 20_000, 250);
    await eventually(
      'the API serves again',
      async () => ((await api('GET', '/admin/v1/orgs', { token: admin })).status === 200 ? true : undefined),
      20_000,
      250,
    );

    // The probe notices the recovery within a second of it; the line then follows.
    await eventually('the recovery is logged', async () => (service.output().slice(logFrom).includes('database available again') ? true : undefined));
    const lines = parseLines(service.output().slice(logFrom));
    const states = lines.filter((l) => /^database (unavailable|available again)/.test(l.msg)).map((l) => l.msg.split(':')[0]);
    assert.deepEqual(states, ['database unavailable', 'database available again'], JSON.stringify(lines.map((l) => l.msg)));
    assert.deepEqual(
      lines.filter((l) => l.stack || l.err),
      [],
      'no stack traces for an outage',
    );
    for (const res of failed) {
      const id = res.headers.get('x-request-id');
      const about = lines.filter((l) => l.req?.id === id || l.reqId === id);
      assert.equal(about.length, 1, `one line for request ${id}: ${JSON.stringify(about)}`);
      assert.equal(about[0].level, 50);
      assert.match(about[0].cause ?? '', /database/, JSON.stringify(about[0]));
    }
  });
});

function parseLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}
