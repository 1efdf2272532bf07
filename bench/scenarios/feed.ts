/**
 * Event writes and the event feed (docs/product-rules.md, "Import and event search"):
 *
 * - `feed.scim-create`: SCIM creates at 10 connections, each a user and its event, on two processes over
 *   one database at once (5 connections each), so event positions are contended across processes: the
 *   cost of taking them in commit order (src/common/events/event-positions.ts).
 * - `feed.latency.same` / `feed.latency.other`: a consumer waits on event search with `wait`; an org is
 *   created through the same process or the other one. The figure is the time from sending the write to
 *   the consumer's answer: an upper bound of commit-to-answer, as it includes the write itself (its
 *   request, transaction and commit). `feed.latency.*.after-ack` measures from the writer's response
 *   instead, a lower bound (the commit happened before that response).
 */
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { load } from '../lib/load.js';
import { startService } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';
import { SCIM_SCENARIOS, scimCaller, scimRequests } from './scim.js';

export async function runFeed(ctx: Context): Promise<void> {
  const { seconds, warmup } = ctx.options;
  const store = await ctx.newStore();
  const services: Running[] = [];
  try {
    services.push(await startService(store, 1));
    services.push(await startService(store, 1));
    const [a, b] = services;
    const admin = adminToken(store.dataDir);
    const org = await call(a.url, admin, 'POST', '/admin/v1/orgs', { name: 'feed-bench' });
    const token = await scimCaller(a.url, admin, org.id);

    const create = SCIM_SCENARIOS.find((s) => s.id === 'scim.create')!;
    const timing = { seconds, warmup };
    // Each process its own range of user names.
    const onProcess = (k: number) => ({ ...create, request: (base: string, n: number, size: number) => create.request(base, n + k * 10_000_000, size) });
    const both = await Promise.all(
      services.map((s, k) => load(s.url, s.pid, timing, scimRequests({ url: s.url, base: `/scim/v2/${org.id}`, token }, onProcess(k), 0), 5)),
    );
    const rate = both.reduce((sum, f) => sum + f.rate, 0);
    const errors = both.reduce((sum, f) => sum + f.errors, 0);
    ctx.record({
      scenario: 'feed.scim-create',
      label: 'SCIM create, two processes × 5 connections',
      kind: 'portcullis',
      server: 'Portcullis 2 × WORKERS=1',
      workers: 1,
      unit: 'req/s',
      rate,
      p50: Math.max(...both.map((f) => f.p50!)),
      p99: Math.max(...both.map((f) => f.p99!)),
      errors,
    });

    const samples = ctx.options.quick ? 10 : Math.max(20, seconds * 10);
    for (const [name, writer] of [
      ['same', a],
      ['other', b],
    ] as const) {
      const started = performance.now();
      const { sent, acked } = await feedLatencies(a, writer, admin, samples, name);
      const elapsed = performance.now() - started;
      // The rate is of one consumer waiting for one write at a time: the latencies are the figures.
      const record = (scenario: string, label: string, ms: number[]) =>
        ctx.record({
          scenario,
          label,
          kind: 'portcullis',
          server: 'Portcullis WORKERS=1',
          workers: 1,
          unit: 'events/s',
          rate: (samples * 1000) / elapsed,
          p50: percentile(ms, 0.5),
          p99: percentile(ms, 0.99),
          errors: 0,
        });
      record(
        `feed.latency.${name}`,
        `event feed: write sent → waiting consumer answered (writer on ${name === 'same' ? 'the same' : 'the other'} process)`,
        sent,
      );
      record(`feed.latency.${name}.after-ack`, `event feed: write answered → waiting consumer answered (${name})`, acked);
    }
  } finally {
    for (const s of services) await s.stop();
    await store.drop();
  }
}

/** One consumer waiting on `waiter`, one write at a time through `writer`; milliseconds per event. */
async function feedLatencies(waiter: Running, writer: Running, admin: string, samples: number, name: string): Promise<{ sent: number[]; acked: number[] }> {
  let [last] = (await call(waiter.url, admin, 'POST', '/admin/v1/events/_search', { limit: 1 })).events;
  const sent: number[] = [];
  const acked: number[] = [];
  for (let i = 0; i < samples; i++) {
    const waiting = call(waiter.url, admin, 'POST', '/admin/v1/events/_search', {
      asc: true,
      sequence: last.sequence,
      wait: '10s',
      event_types: ['org.added'],
    });
    // Let the consumer settle into its wait (and vary the phase against the process's 10 ms poll).
    await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 20));
    const start = performance.now();
    let ack = 0;
    const written = call(writer.url, admin, 'POST', '/admin/v1/orgs', { name: `feed-${name}-${i}` }).then((org) => ((ack = performance.now()), org));
    const { events } = await waiting;
    const answered = performance.now();
    const org = await written;
    if (events.length !== 1 || events[0].aggregate.id !== org.id)
      throw new Error(`feed: expected the new org's event, got ${JSON.stringify(events).slice(0, 300)}`);
    sent.push(answered - start);
    // Negative when the consumer heard of the event before the writer heard back.
    acked.push(answered - ack);
    last = events[0];
  }
  return { sent, acked };
}

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 10) / 10;
}
