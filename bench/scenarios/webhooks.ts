/**
 * Webhook delivery throughput (docs/webhooks.md): one instance subscription to a fast local receiver
 * (node:http answering 204, in the orchestrator's process). The subscription is created, the service
 * stopped, N events written straight into the log, and the service started again: what is measured is
 * the rate at which those N events reach the receiver — from the first to the last arrival, signed, one at a
 * time and in order, the cursor and the delivery log written as in production. The floor beside it: the
 * same receiver fed one request at a time by a bare node:http client (no database, no signature).
 */
import { createServer, request, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { until } from '../lib/until.js';
import { load } from '../lib/load.js';
import { startService, withPeakMemory } from '../lib/processes.js';
import { seedEvents } from '../lib/seed.js';
import { SCIM_SCENARIOS, scimCaller, scimRequests } from './scim.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

interface Receiver {
  url: string;
  count: number;
  first: number;
  last: number;
  outOfOrder: number;
  reset(): void;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  let previous = 0;
  const rx: Receiver = {
    url: '',
    count: 0,
    first: 0,
    last: 0,
    outOfOrder: 0,
    reset: () => {
      previous = 0;
      Object.assign(rx, { count: 0, first: 0, last: 0, outOfOrder: 0 });
    },
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = performance.now();
      if (req.headers['webhook-id']) {
        const sequence = Number((JSON.parse(Buffer.concat(chunks).toString()) as { sequence: string }).sequence);
        if (sequence <= previous) rx.outOfOrder++;
        previous = sequence;
      }
      rx.count++;
      rx.first ||= now;
      rx.last = now;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rx.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return rx;
}

export async function runWebhooks(ctx: Context): Promise<void> {
  const events = ctx.options.quick ? 500 : 20_000;
  const store = await ctx.newStore();
  const rx = await startReceiver();
  try {
    const setup = await startService(store, 1, undefined, ENV);
    try {
      const res = await fetch(`${setup.url}/admin/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken(store.dataDir)}` },
        body: JSON.stringify({ url: rx.url }),
      });
      if (res.status !== 201) throw new Error(`webhook create answered ${res.status}: ${await res.text()}`);
      await until('the subscription delivers its own event', () => rx.count >= 1, 30_000);
    } finally {
      await setup.stop();
    }
    await seedEvents(store, 'bench-webhooks', 0, events);
    rx.reset();
    const service = await startService(store, 1, undefined, ENV);
    try {
      const { peakMb } = await withPeakMemory(service.pid, () => until('every event delivered', () => rx.count >= events, 600_000));
      if (rx.outOfOrder > 0) throw new Error(`${rx.outOfOrder} deliveries out of order`);
      const rate = (rx.count - 1) / ((rx.last - rx.first) / 1000);
      ctx.record({
        scenario: 'webhooks.delivery',
        label: 'webhook delivery, one subscription, in order',
        kind: 'portcullis',
        server: 'Portcullis WORKERS=1',
        workers: 1,
        size: events,
        unit: 'events/s',
        rate,
        errors: 0,
        peakMb,
      });
    } finally {
      await service.stop();
    }
    rx.reset();
    const rate = await bareClient(rx, Math.min(events, 10_000));
    ctx.record({
      scenario: 'webhooks.floor',
      label: 'webhook delivery, one subscription, in order',
      kind: 'reference',
      server: 'node:http client alone, one at a time',
      size: events,
      unit: 'events/s',
      rate,
      errors: 0,
    });
  } finally {
    await rx.close();
    await store.drop();
  }
  await scimCreateUnderWebhookLoad(ctx);
}

const SCIM_CREATE = SCIM_SCENARIOS.find((s) => s.id === 'scim.create')!;
let serial = 0;
/** SCIM create with a new user name on every request of every round (the scenario's own counter restarts per list). */
const CREATE = { ...SCIM_CREATE, request: (base: string) => SCIM_CREATE.request(base, serial++, 0) };

/**
 * What delivering costs the requests that write the events: SCIM creates (10 connections) on one service,
 * alternately with no subscription and with one that receives every event, in rounds (the machine's speed
 * drifts over a run); the median round of each by mean latency counts (autocannon's percentiles are whole
 * milliseconds, too coarse at 5–7 ms). The target: at most 10 % on the create latency.
 */
async function scimCreateUnderWebhookLoad(ctx: Context): Promise<void> {
  const store = await ctx.newStore();
  const rx = await startReceiver();
  try {
    const service = await startService(store, 1, undefined, ENV);
    try {
      const admin = adminToken(store.dataDir);
      const org = await call(service.url, admin, 'POST', '/admin/v1/orgs', { name: 'bench-webhook-load' });
      const server = { url: service.url, base: `/scim/v2/${org.id}`, token: await scimCaller(service.url, admin, org.id) };
      const timing = { seconds: ctx.options.seconds, warmup: ctx.options.warmup };
      const ROUNDS = ctx.options.quick ? 1 : 3;
      const rounds: Record<'idle' | 'delivering', Awaited<ReturnType<typeof load>>[]> = { idle: [], delivering: [] };
      for (let round = 0; round < ROUNDS; round++) {
        rounds.idle.push(await load(service.url, service.pid, timing, scimRequests(server, CREATE, 0)));
        const { id } = await call(service.url, admin, 'POST', '/admin/v1/webhooks', { url: rx.url, orgId: org.id });
        // Measured once the subscription delivers (an event of the organization arrived), not while a process
        // claims it and starts its delivery thread: an instance subscription's own webhook.added is not the organization's.
        const before = rx.count;
        await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/users/machine`, {
          userName: `probe-${round}`,
          name: 'probe',
          accessTokenType: 'opaque',
        });
        await until('the subscription delivers an event of the organization', () => rx.count > before, 30_000);
        rounds.delivering.push(await load(service.url, service.pid, timing, scimRequests(server, CREATE, 0)));
        await fetch(`${service.url}/admin/v1/webhooks/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${admin}` } });
      }
      if (rx.count === 0) throw new Error('the subscription received nothing');
      for (const kind of ['idle', 'delivering'] as const) {
        const { socketErrors: _, ...median } = rounds[kind].sort((a, b) => (a.mean ?? 0) - (b.mean ?? 0))[Math.floor(ROUNDS / 2)];
        const server = kind === 'idle' ? 'Portcullis WORKERS=1, no subscription' : 'Portcullis WORKERS=1, one subscription receiving every event';
        ctx.record({
          scenario: `webhooks.scim-create.${kind}`,
          label: 'SCIM create under webhook delivery',
          kind: 'portcullis',
          server,
          workers: 1,
          unit: 'req/s',
          ...median,
        });
      }
    } finally {
      await service.stop();
    }
  } finally {
    await rx.close();
    await store.drop();
  }
}

/** The floor: POSTs of an event-sized body, one at a time over a kept-alive connection. */
async function bareClient(rx: Receiver, count: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ sequence: '1', type: { type: 'user.human.added' }, payload: { seq: 1 } }).padEnd(420, ' ');
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await new Promise<void>((resolve, reject) => {
      const req = request(
        rx.url,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
  agent.destroy();
  return count / ((performance.now() - started) / 1000);
}
