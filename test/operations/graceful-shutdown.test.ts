import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { eventually, processSetup } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { humanUser, importBody, importedIds } from '../import/import.helpers.js';
import type { ImportResponse } from '../import/import.helpers.js';
import { createClient } from '../support/http.js';

const USERS = 20_000;
const ORG = 'sigterm-org';

/**
 * An operator stops the service (SIGTERM: a deploy, a scale-down) while an import runs: the request
 * in flight is finished and answered before the process exits, and everything it acknowledged is
 * stored — nothing is lost, nothing half-written.
 */
describe('operations: SIGTERM during an import', () => {
  let setup: ProcessSetup;

  before(async () => {
    setup = await processSetup();
  });
  after(() => setup?.cleanup());

  it('answers the import in flight, then exits; every acknowledged user is stored with its event', async () => {
    const service = await setup.spawn();
    const api = createClient(service.url);
    const token = setup.adminToken();
    const users = Array.from({ length: USERS }, (_, i) => humanUser(`term-${i}`, `term-user-${i}`));
    const pending = api('POST', '/admin/v1/import', { token, body: importBody([{ orgId: ORG, org: { name: 'Sigterm Org' }, humanUsers: users }], '10m') });
    await eventually(
      'the import has started committing',
      async () => {
        const found = await api('POST', '/admin/v1/events/_search', {
          token,
          body: { event_types: ['user.human.added'], resource_owner: ORG, limit: 1 },
        }).catch(() => null);
        return found?.status === 200 && found.body.events.length > 0 ? true : undefined;
      },
      60_000,
      50,
    );
    const exited = service.stop('SIGTERM');
    const res = await pending;
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.equal(importedIds(res.body as ImportResponse, ORG).length, USERS, 'the whole import was acknowledged');
    const exit = await exited;
    assert.ok(exit.code === 0 || exit.signal === 'SIGTERM', `a clean exit: ${JSON.stringify(exit)}`);

    const stored = await setup.inspect(async (db) => {
      const count = async (sql: string) => Number((await db.query(sql, [ORG]))[0].n);
      return {
        users: await count('SELECT COUNT(*) AS n FROM users WHERE org_id = ?'),
        events: await count(`SELECT COUNT(*) AS n FROM events WHERE resource_owner = ? AND type = 'user.human.added'`),
      };
    });
    assert.deepEqual(stored, { users: USERS, events: USERS });
  });

  it('stops a purge of expired OIDC rows between batches and waits for it before closing the database', async () => {
    const service = await setup.spawn({ OIDC_PURGE_INTERVAL_MS: '1000' });
    const backlog = 100_000;
    const remaining = () =>
      setup.inspect(async (db) => Number((await db.query("SELECT COUNT(*) AS n FROM oidc_payloads WHERE model = 'ExpiredForTest'"))[0].n));
    await setup.inspect(async (db) => {
      const expired = Date.now() - 3_600_000;
      for (let start = 0; start < backlog; start += 1000) {
        const rows = Array.from({ length: 1000 }, (_, i) => start + i);
        await db.query(
          `INSERT INTO oidc_payloads (model, id_hash, payload, expires_at) VALUES ${rows.map(() => "('ExpiredForTest', ?, '{}', ?)").join(', ')}`,
          rows.flatMap((i) => [`expired-${i}`, expired]),
        );
      }
    });
    await eventually('the purge is under way', async () => ((await remaining()) < backlog ? true : undefined), 60_000, 20);
    const exit = await service.stop('SIGTERM');
    assert.ok(exit.code === 0 || exit.signal === 'SIGTERM', `a clean exit: ${JSON.stringify(exit)}`);
    assert.doesNotMatch(service.output(), /purge failed|Pool is closed|not connected|database connection is not open/i);
  });

  it('stops accepting at SIGTERM and answers what it accepted before closing the database: no "Pool is closed", no 500', async () => {
    const service = await setup.spawn();
    const api = createClient(service.url);
    const token = setup.adminToken();
    const users = Array.from({ length: USERS / 4 }, (_, i) => humanUser(`drain-${i}`, `drain-user-${i}`));
    const pending = api('POST', '/admin/v1/import', {
      token,
      body: importBody([{ orgId: 'drain-org', org: { name: 'Drain Org' }, humanUsers: users }], '10m'),
    });
    // Clients keep calling through the shutdown, on keep-alive connections, until the port refuses them.
    const statuses: number[] = [];
    let refused = false;
    const callers = Array.from({ length: 4 }, async () => {
      while (!refused) {
        const res = await api('GET', '/admin/v1/orgs', { token }).catch(() => null);
        if (res === null) refused = true;
        else statuses.push(res.status);
      }
    });
    await eventually('the callers are answered', async () => (statuses.length > 8 ? true : undefined), 60_000, 20);
    const exited = service.stop('SIGTERM');
    const imported = await pending;
    await Promise.all(callers);
    const exit = await exited;
    assert.equal(imported.status, 200, imported.text.slice(0, 300));
    assert.ok(exit.code === 0 || exit.signal === 'SIGTERM', `a clean exit: ${JSON.stringify(exit)}`);
    assert.deepEqual([...new Set(statuses)], [200], 'every request the service accepted was answered');
    assert.doesNotMatch(service.output(), /Pool is closed|database unavailable|unhandled error/);
  });

  it('runs a request whose client reset its connection to its end before closing the database: nothing cut, no error line', async () => {
    const service = await setup.spawn();
    const api = createClient(service.url);
    const token = setup.adminToken();
    const org = 'gone-org';
    const users = Array.from({ length: USERS }, (_, i) => humanUser(`gone-${i}`, `gone-user-${i}`));
    const body = JSON.stringify(importBody([{ orgId: org, org: { name: 'Gone Org' }, humanUsers: users }], '10m'));
    const client = connect(service.port, '127.0.0.1');
    await once(client, 'connect');
    client.write(
      `POST /admin/v1/import HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await eventually(
      'the import has started committing',
      async () => {
        const found = await api('POST', '/admin/v1/events/_search', {
          token,
          body: { event_types: ['user.human.added'], resource_owner: org, limit: 1 },
        }).catch(() => null);
        return found?.status === 200 && found.body.events.length > 0 ? true : undefined;
      },
      60_000,
      20,
    );
    // Gone as a client that was killed or timed out goes: its connection reset, not closed in order.
    client.resetAndDestroy();
    // The service logs the request as aborted when it sees the connection close; the import goes on.
    await eventually('the service saw the client go away', async () => (/request aborted/.test(service.output()) ? true : undefined), 60_000, 20);
    const seen = service.output().length;
    const exit = await service.stop('SIGTERM');
    assert.ok(exit.code === 0 || exit.signal === 'SIGTERM', `a clean exit: ${JSON.stringify(exit)}`);
    const afterSigterm = service.output().slice(seen);
    assert.doesNotMatch(afterSigterm, /Pool is closed|not connected|database connection is not open|"level":50/, afterSigterm.slice(0, 2000));
    const stored = await setup.inspect(async (db) => Number((await db.query('SELECT COUNT(*) AS n FROM users WHERE org_id = ?', [org]))[0].n));
    assert.equal(stored, users.length, 'the import its client left ran to its end');
  });
});
