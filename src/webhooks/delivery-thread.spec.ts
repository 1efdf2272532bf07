import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { EventDto } from '../admin/dto/events.dto.js';
import { DeliveryThread } from './delivery-thread.js';
import { newWebhookSecret } from '../common/crypto/standard-webhooks.js';

const event = (n: number) => ({ sequence: String(n), type: { type: 'user.human.added' }, payload: { n } }) as unknown as EventDto;

describe('the webhook delivery thread', () => {
  const received: { id: string; body: string; headers: Record<string, string>; answeredBefore: number[] }[] = [];
  const answered: number[] = [];
  /** Answers 500 to the event whose payload n is in `failing`; holds the answer to n until `held.get(n)` settles. */
  const failing = new Set<number>();
  const held = new Map<number, Promise<unknown>>();
  /** Events wait on arrivals, never on fixed sleeps: under CI load a 100 ms timer fired before the request arrived. */
  const arrivalWaiters = new Map<string, () => void>();
  const arrival = (id: string) => new Promise<void>((resolve) => arrivalWaiters.set(id, resolve));
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const n = (JSON.parse(body) as { payload: { n: number } }).payload.n;
      const id = String(req.headers['webhook-id']);
      received.push({ id, body, headers: req.headers as Record<string, string>, answeredBefore: [...answered] });
      arrivalWaiters.get(id)?.();
      res.statusCode = failing.has(n) ? 500 : 204;
      void (held.get(n) ?? Promise.resolve()).then(() => (answered.push(n), res.end()));
    });
  });
  const thread = new DeliveryThread(true);
  const secret = newWebhookSecret();
  let url = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  after(async () => {
    await thread.close();
    server.close();
  });
  const job = (ns: number[], sendUntil = Date.now() + 60_000) => ({ url, secret, sendUntil, events: ns.map((n) => ({ eventId: `e${n}`, event: event(n) })) });

  it('sends a job in order, signed as Standard Webhooks verifies, one result per event', async () => {
    received.length = 0;
    const results = await thread.send(job([1, 2, 3]), new AbortController().signal);
    assert.deepEqual(
      results.map((r) => [r.ok, r.status]),
      [
        [true, 204],
        [true, 204],
        [true, 204],
      ],
    );
    assert.deepEqual(
      received.map((r) => r.id),
      ['e1', 'e2', 'e3'],
    );
    const verifier = new Webhook(secret.slice('whsec_'.length));
    for (const r of received) assert.deepEqual(verifier.verify(r.body, r.headers), JSON.parse(r.body));
  });

  it('stops at the first failed attempt: the events after it wait behind it', async () => {
    received.length = 0;
    failing.add(12);
    const results = await thread.send(job([11, 12, 13]), new AbortController().signal);
    failing.clear();
    assert.deepEqual(
      results.map((r) => [r.ok, r.status]),
      [
        [true, 204],
        [false, 500],
      ],
    );
    assert.deepEqual(
      received.map((r) => r.id),
      ['e11', 'e12'],
    );
  });

  it('starts no attempt past the lease deadline', async () => {
    received.length = 0;
    assert.deepEqual(await thread.send(job([21, 22], Date.now() - 1), new AbortController().signal), []);
    assert.equal(received.length, 0);
  });

  it('an abort ends the attempt in flight as failed and sends nothing after it', { timeout: 20_000 }, async () => {
    received.length = 0;
    let release!: () => void;
    held.set(31, new Promise<void>((resolve) => (release = resolve)));
    const abort = new AbortController();
    const arrived = arrival('e31');
    const sending = thread.send(job([31, 32]), abort.signal);
    await arrived;
    abort.abort();
    const results = await sending;
    release();
    held.clear();
    assert.equal(results.length, 1);
    assert.equal(results[0].ok, false);
    assert.deepEqual(
      received.map((r) => r.id),
      ['e31'],
    );
  });

  it('jobs of different subscriptions run side by side', { timeout: 20_000 }, async () => {
    received.length = 0;
    // The first job's answer waits for the second job's event: were jobs queued behind each other, this would never end.
    held.set(41, arrival('e51'));
    const [a, b] = await Promise.all([thread.send(job([41]), new AbortController().signal), thread.send(job([51]), new AbortController().signal)]);
    held.clear();
    assert.ok(a[0].ok && b[0].ok);
    assert.deepEqual(received.map((r) => r.id).sort(), ['e41', 'e51']);
    assert.ok(!received.find((r) => r.id === 'e51')!.answeredBefore.includes(41), 'the second event arrived before the first was answered');
  });
});
