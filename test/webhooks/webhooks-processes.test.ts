import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { processSetup, remoteService } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { createOrg, searchEvents, unique } from '../support/fixtures.js';
import type { SearchedEvent } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { firstArrivals, Receiver, until } from './receiver.js';
import type { Received } from './receiver.js';

const LEASE_MS = 15_000;
const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_LEASE_MS: String(LEASE_MS), WEBHOOK_RETRY_BASE_MS: '200' };

async function machineUsers(svc: TestService, orgId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/machine`, {
      token: svc.adminToken,
      body: { userName: unique('m'), name: 'm', accessTokenType: 'opaque' },
    });
    assert.equal(res.status, 201, res.text);
  }
}

/** Every event the subscription must receive: from its own `webhook.added` on. */
async function expectedEvents(svc: TestService, subscriptionId: string): Promise<SearchedEvent[]> {
  const [added] = await searchEvents(svc, { event_types: ['webhook.added'], aggregate_id: subscriptionId });
  return searchEvents(svc, { asc: true, sequence: String(Number(added.sequence) - 1), limit: 1000 });
}

/** All expected events arrived (accepted), each repeat of a webhook-id carrying the same body, first arrivals in order. */
function assertComplete(rx: Receiver, expected: SearchedEvent[], secret: string): void {
  rx.verified(secret);
  const accepted = new Set(rx.accepted().map((r) => r.event.sequence));
  assert.deepEqual(
    expected.filter((e) => !accepted.has(e.sequence)).map((e) => e.sequence),
    [],
    'every event was delivered',
  );
  const bodies = new Map<string, string>();
  for (const r of rx.requests) {
    if (bodies.has(r.id)) assert.equal(r.body, bodies.get(r.id), `a repeat of ${r.id} is the same message`);
    bodies.set(r.id, r.body);
  }
  const firsts = firstArrivals(rx.requests);
  assert.deepEqual(
    firsts,
    [...firsts].sort((a, b) => a - b),
    'first arrivals are in sequence order',
  );
}

/** Runs of strictly increasing sequences: a new run starts where a sequence is not above the one before (a redelivery). */
function runs(requests: readonly Received[]): number[][] {
  const out: number[][] = [];
  for (const r of requests) {
    const s = Number(r.event.sequence);
    const run = out.at(-1);
    if (run && s > run.at(-1)!) run.push(s);
    else out.push([s]);
  }
  return out;
}

describe('webhooks across processes (real service processes)', () => {
  let setup: ProcessSetup | undefined;
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await setup?.cleanup();
    setup = undefined;
  });
  after(() => Promise.all(receivers.map((r) => r.close())));

  it('kill -9 with deliveries pending: after a restart every event arrives (repeats keep their webhook-id), in order', async () => {
    setup = await processSetup(ENV);
    const first = await setup.spawn();
    const svc = remoteService(first.url, setup.adminToken());
    const rx = await Receiver.start();
    receivers.push(rx);
    // The first few events are taken, then the receiver is down: the rest is pending when the process dies.
    let down = false;
    rx.answer = () => (down || new Set(rx.accepted().map((r) => r.id)).size >= 5 ? ((down = true), 500) : 200);
    const created = await svc.api('POST', '/admin/v1/webhooks', { token: svc.adminToken, body: { url: rx.url } });
    assert.equal(created.status, 201, created.text);
    const { id, secret } = created.body;
    const org = await createOrg(svc);
    await machineUsers(svc, org.id, 15);
    await until('the receiver failed a delivery', () => down && rx.requests.some((r) => r.answered === 500), 20_000);
    const killed = await first.stop('SIGKILL');
    assert.equal(killed.signal, 'SIGKILL');

    down = false;
    rx.answer = () => 200;
    const second = await setup.spawn();
    const svc2 = remoteService(second.url, setup.adminToken());
    await machineUsers(svc2, org.id, 3);
    const expected = await expectedEvents(svc2, id);
    assert.ok(expected.length >= 20, `${expected.length} events`);
    await until('every event delivered after the restart', () => rx.accepted().some((r) => r.event.sequence === expected.at(-1)!.sequence), LEASE_MS + 30_000);
    assertComplete(rx, expected, secret);
    // A batch's attempts are recorded once the receiver has answered its last event: the log follows shortly after.
    let log = await svc2.api('GET', `/admin/v1/webhooks/${id}/deliveries?limit=1000`, { token: svc2.adminToken });
    await until('the delivery log records every event delivered', async () => {
      log = await svc2.api('GET', `/admin/v1/webhooks/${id}/deliveries?limit=1000`, { token: svc2.adminToken });
      assert.equal(log.status, 200);
      const logged: { sequence: string; status: string }[] = log.body.deliveries;
      return expected.every((event) => logged.some((d) => d.sequence === event.sequence)) && logged.every((d) => d.status === 'delivered');
    }).catch((error) => assert.fail(`${error}\n${log.text.slice(0, 500)}`));
  });

  it('two processes share one subscription without interleaving: one sends at a time; a stopped process hands over', async () => {
    setup = await processSetup(ENV);
    const one = await setup.spawn();
    const svc1 = remoteService(one.url, setup.adminToken());
    const rx = await Receiver.start();
    receivers.push(rx);
    const created = await svc1.api('POST', '/admin/v1/webhooks', { token: svc1.adminToken, body: { url: rx.url } });
    assert.equal(created.status, 201, created.text);
    const { id, secret } = created.body;
    // The first process holds the subscription before the second one starts.
    await until('the first delivery', () => rx.accepted().length > 0);
    const two = await setup.spawn();
    const svc2 = remoteService(two.url, setup.adminToken());
    const org = await createOrg(svc1);
    await Promise.all([machineUsers(svc1, org.id, 10), machineUsers(svc2, org.id, 10)]);
    // A graceful stop hands the lease back; the other process carries on from the cursor.
    const stopped = await one.stop('SIGTERM');
    assert.ok(stopped.code === 0 || stopped.signal === 'SIGTERM', JSON.stringify(stopped));
    await machineUsers(svc2, org.id, 10);
    const expected = await expectedEvents(svc2, id);
    await until('every event delivered', () => rx.accepted().some((r) => r.event.sequence === expected.at(-1)!.sequence), 30_000);
    assertComplete(rx, expected, secret);
    const sequenceRuns = runs(rx.requests);
    assert.ok(sequenceRuns.length <= 2, `at most one restart from the cursor (the handover), got runs ${JSON.stringify(sequenceRuns)}`);
  });

  it('WORKERS=2: both workers run the dispatcher; the subscription is delivered once, in order', async () => {
    setup = await processSetup(ENV);
    const service = await setup.spawn({ WORKERS: '2' });
    const svc = remoteService(service.url, setup.adminToken());
    const rx = await Receiver.start();
    receivers.push(rx);
    const created = await svc.api('POST', '/admin/v1/webhooks', { token: svc.adminToken, body: { url: rx.url } });
    assert.equal(created.status, 201, created.text);
    const org = await createOrg(svc);
    await Promise.all([machineUsers(svc, org.id, 10), machineUsers(svc, org.id, 10)]);
    const expected = await expectedEvents(svc, created.body.id);
    await until('every event delivered', () => rx.accepted().some((r) => r.event.sequence === expected.at(-1)!.sequence), 30_000);
    assertComplete(rx, expected, created.body.secret);
    assert.deepEqual(
      rx.requests.map((r) => r.event.sequence),
      expected.map((e) => e.sequence),
      'each event once, in order',
    );
  });

  it('processes share the subscriptions evenly: a process that joins takes over half, and every receiver gets everything in order', async () => {
    setup = await processSetup(ENV);
    const one = await setup.spawn();
    const svc = remoteService(one.url, setup.adminToken());
    const subscriptions: { id: string; secret: string; rx: Receiver }[] = [];
    for (let i = 0; i < 4; i++) {
      const rx = await Receiver.start();
      receivers.push(rx);
      const created = await svc.api('POST', '/admin/v1/webhooks', { token: svc.adminToken, body: { url: rx.url } });
      assert.equal(created.status, 201, created.text);
      subscriptions.push({ ...created.body, rx });
    }
    const holders = () =>
      setup!.inspect(
        async (db) =>
          (await db.query('SELECT lease_owner AS owner, COUNT(*) AS n FROM webhook_subscriptions GROUP BY lease_owner')) as {
            owner: string | null;
            n: number | string;
          }[],
      );
    await until('the first process holds all four', async () => {
      const rows = await holders();
      return rows.length === 1 && rows[0].owner !== null && Number(rows[0].n) === 4;
    });
    const two = await setup.spawn();
    const org = await createOrg(svc);
    await machineUsers(svc, org.id, 5);
    await until('two processes hold two each', async () => {
      const rows = await holders();
      return rows.length === 2 && rows.every((r) => r.owner !== null && Number(r.n) === 2);
    });
    await machineUsers(remoteService(two.url, setup.adminToken()), org.id, 5);
    for (const { id, secret, rx } of subscriptions) {
      const expected = await expectedEvents(svc, id);
      await until('every event delivered', () => rx.accepted().some((r) => r.event.sequence === expected.at(-1)!.sequence), 30_000);
      assertComplete(rx, expected, secret);
      assert.ok(runs(rx.requests).length <= 2, 'at most one restart from the cursor (the handover)');
    }
  });
});
