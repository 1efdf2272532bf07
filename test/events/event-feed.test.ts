import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processSetup, remoteService } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import type { ServiceProcess } from '../support/process.js';
import { createOrg } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';

/** What "promptly" allows on a busy test machine: the benchmark holds the real figure (BENCHMARKS.md). */
const PROMPTLY_MS = 2_000;

/**
 * The event feed (docs/product-rules.md, "Import and event search": the feed): event search with `wait` answers as soon as a matching event
 * commits after `sequence`, on the process that waits or on another one over the same database.
 */
describe('events: the feed for pull consumers (event search with wait)', () => {
  let setup: ProcessSetup;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let onA: TestService;
  let onB: TestService;
  let admin: string;

  before(async () => {
    setup = await processSetup();
    a = await setup.spawn();
    b = await setup.spawn();
    admin = setup.adminToken();
    onA = remoteService(a.url, admin);
    onB = remoteService(b.url, admin);
  });
  after(() => setup?.cleanup());

  const search = (service: TestService, body: Record<string, unknown>) => service.api('POST', '/admin/v1/events/_search', { token: admin, body });

  async function lastSequence(): Promise<string> {
    const res = await search(onA, { limit: 1 });
    assert.equal(res.status, 200, res.text);
    return res.body.events[0].sequence;
  }

  /** Starts a waiting search on `waiter`, lets it settle into its wait, then commits an org through `writer`. */
  async function answeredAfterCommit(waiter: TestService, writer: TestService) {
    const sequence = await lastSequence();
    const started = Date.now();
    const waiting = search(waiter, { asc: true, sequence, wait: '30s', event_types: ['org.added'] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const org = await createOrg(writer);
    const committed = Date.now();
    const res = await waiting;
    const answered = Date.now();
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.events.map((e: { aggregate: { id: string } }) => e.aggregate.id),
      [org.id],
    );
    assert.ok(committed - started >= 300, 'the search was still waiting when the event committed');
    assert.ok(answered - committed < PROMPTLY_MS, `answered ${answered - committed} ms after the commit`);
  }

  it('answers a waiter as soon as a matching event commits on the same process', () => answeredAfterCommit(onA, onA));

  it('answers a waiter as soon as a matching event commits on the other process', () => answeredAfterCommit(onA, onB));

  it('answers at once when something already matches', async () => {
    const started = Date.now();
    const res = await search(onB, { asc: true, limit: 1, wait: '30s' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.events.length, 1);
    assert.ok(Date.now() - started < PROMPTLY_MS);
  });

  it('keeps waiting through events that do not match, and answers empty when wait elapses', async () => {
    const sequence = await lastSequence();
    const started = Date.now();
    const waiting = search(onA, { asc: true, sequence, wait: '1500ms', event_types: ['no.such.event'] });
    await createOrg(onB);
    await createOrg(onA);
    const res = await waiting;
    const took = Date.now() - started;
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.events, []);
    assert.ok(took >= 1500 && took < 1500 + PROMPTLY_MS, `answered after ${took} ms`);
  });

  // The tests after this one use process A only: B is the one stopped here (a process of its own would cost a start-up).
  it('does not hold up a shutdown: a waiting request ends when its process stops', async () => {
    const waiting = search(onB, { asc: true, wait: '60s', event_types: ['no.such.event'] }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopping = Date.now();
    const ended = await b.stop('SIGTERM');
    assert.ok(Date.now() - stopping < 10_000, `stopped after ${Date.now() - stopping} ms`);
    assert.ok(ended.code === 0 || ended.signal === 'SIGTERM', `${JSON.stringify(ended)}\n${b.output()}`);
    const res = await waiting;
    if (!(res instanceof Error)) assert.deepEqual([(res as { status: number }).status, (res as { body: { events: unknown[] } }).body.events], [200, []]);
  });

  it('refuses bad wait values with 400 naming wait, and unknown fields still', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ asc: true, wait: '61s' }, 'wait', /at most 60s/],
      [{ asc: true, wait: '2m' }, 'wait', /at most 60s/],
      [{ asc: true, wait: 'soon' }, 'wait', /Go notation/],
      [{ asc: true, wait: '-1s' }, 'wait', /Go notation/],
      [{ asc: true, wait: '10' }, 'wait', /Go notation/],
      [{ asc: true, wait: 10 }, 'wait', /string/],
      [{ wait: '10s' }, 'wait', /asc: true/],
      [{ asc: false, wait: '10s' }, 'wait', /asc: true/],
      [{ asc: true, wait: '10s', waitFor: '1s' }, 'waitFor', /should not exist/],
    ];
    for (const [body, field, message] of cases) {
      const res = await search(onA, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.text}`);
      const details = (res.body.details ?? []).filter((d: { field: string }) => d.field === field);
      assert.ok(
        details.some((d: { message: string }) => message.test(d.message)),
        `${JSON.stringify(body)} → ${res.text}`,
      );
    }
    // 0 and 60s are within bounds.
    for (const wait of ['0s', '60s']) assert.equal((await search(onA, { asc: true, limit: 1, wait })).status, 200, wait);
  });
});
