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
import { startService, withPeakMemory } from '../lib/processes.js';
import { seedEvents } from '../lib/seed.js';
import { scimCreateUnderDelivery } from './scim-under-delivery.js';

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

/** SCIM creates with no subscription and with one receiving every event. The target: at most 10 % on the latency. */
async function scimCreateUnderWebhookLoad(ctx: Context): Promise<void> {
  const rx = await startReceiver();
  try {
    await scimCreateUnderDelivery(ctx, {
      group: 'webhooks',
      label: 'SCIM create under webhook delivery',
      busy: 'delivering',
      idleServer: 'Portcullis WORKERS=1, no subscription',
      busyServer: 'Portcullis WORKERS=1, one subscription receiving every event',
      env: ENV,
      attach: async (serviceUrl, admin, orgId) => {
        const { id } = await call(serviceUrl, admin, 'POST', '/admin/v1/webhooks', { url: rx.url, orgId });
        return `/admin/v1/webhooks/${id}`;
      },
      delivered: () => rx.count,
    });
    if (rx.count === 0) throw new Error('the subscription received nothing');
  } finally {
    await rx.close();
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
