/**
 * Outbound SCIM provisioning (docs/provisioning.md): how fast one target receives the people an
 * organization creates, and how far behind the log it falls meanwhile. The target is a minimal SCIM sink in the
 * orchestrator's process (node:http: `ServiceProviderConfig` and `POST /Users` answered at once), so what is measured is
 * the pusher — the log read, the dirty marks, the recorded intent, the user's SCIM document, the request and the
 * recorded result, one request at a time — not a SCIM server. N people are created through the management API, eight
 * at a time; the rate is the sink's, from the first POST to the N-th; the lag is the largest `lag` the target's status
 * showed while they were pushed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { freePort, startService, withPeakMemory } from '../lib/processes.js';

interface Sink {
  url: string;
  count: number;
  first: number;
  last: number;
  close(): Promise<void>;
}

async function startSink(): Promise<Sink> {
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/scim+json');
      if (req.method === 'GET' && req.url?.endsWith('/ServiceProviderConfig'))
        return void res.end(JSON.stringify({ patch: { supported: true }, filter: { supported: true }, bulk: { supported: false } }));
      if (req.method === 'POST' && req.url?.endsWith('/Users')) {
        const now = performance.now();
        sink.count++;
        sink.first ||= now;
        sink.last = now;
        const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
        return void res.writeHead(201).end(JSON.stringify({ ...body, id: `remote-${next++}` }));
      }
      res.writeHead(404).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sink: Sink = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/scim/v2`,
    count: 0,
    first: 0,
    last: 0,
    close: () => new Promise((r) => server.close(() => r())),
  };
  return sink;
}

export async function runProvisioning(ctx: Context): Promise<void> {
  const people = ctx.options.quick ? 20 : 2_000;
  const store = await ctx.newStore();
  const sink = await startSink();
  const service = await startService(store, 1, await freePort(), { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  try {
    const admin = adminToken(store.dataDir);
    const orgId = (await call(service.url, admin, 'POST', '/admin/v1/orgs', { name: 'bench-provisioning' })).id;
    const { id } = await call(service.url, admin, 'POST', `/management/v1/orgs/${orgId}/provisioning/targets`, {
      name: 'sink',
      baseUrl: sink.url,
      auth: { type: 'bearer', token: 'bench' },
    });
    let maxLag = 0;
    const { peakMb } = await withPeakMemory(service.pid, async () => {
      let done = false;
      const watching = (async () => {
        while (!done) {
          maxLag = Math.max(maxLag, (await call(service.url, admin, 'GET', `/management/v1/orgs/${orgId}/provisioning/targets/${id}/status`)).lag);
          await new Promise((r) => setTimeout(r, 200));
        }
      })();
      for (let i = 0; i < people; i += 8) {
        await Promise.all(
          Array.from({ length: Math.min(8, people - i) }, (_, k) =>
            call(service.url, admin, 'POST', `/management/v1/orgs/${orgId}/users/human`, {
              userName: `bench-${i + k}`,
              profile: { firstName: 'Bench', lastName: `User ${i + k}` },
              email: { email: `bench-${i + k}@example.com` },
            }),
          ),
        );
      }
      const deadline = Date.now() + 600_000;
      while (sink.count < people) {
        if (Date.now() > deadline) throw new Error(`provisioning: ${sink.count} of ${people} pushed`);
        await new Promise((r) => setTimeout(r, 20));
      }
      done = true;
      await watching;
    });
    const rate = (sink.count - 1) / ((sink.last - sink.first) / 1000);
    ctx.record({
      scenario: 'provisioning.push',
      label: `outbound SCIM: people created via the API pushed to a SCIM sink (largest lag ${maxLag} events)`,
      kind: 'portcullis',
      server: 'Portcullis WORKERS=1',
      workers: 1,
      size: people,
      unit: 'pushes/s',
      rate,
      errors: 0,
      peakMb,
    });
  } finally {
    await service.stop();
    await sink.close();
    await store.drop();
  }
}
