/**
 * What delivering the event log costs the requests that write the events: SCIM creates (10 connections) on one
 * service, alternately with nothing delivering and with one sink (a webhook subscription, an audit stream) taking
 * every event of the organization, in rounds (the machine's speed drifts over a run); the median round of each by
 * mean latency counts (autocannon's percentiles are whole milliseconds, too coarse at 5–7 ms).
 */
import type { Context } from '../lib/context.js';
import { adminToken, call } from '../lib/api.js';
import { load } from '../lib/load.js';
import { startService } from '../lib/processes.js';
import { until } from '../lib/until.js';
import { SCIM_SCENARIOS, scimCaller, scimRequests } from './scim.js';

export interface DeliverySink {
  /** The group's name: scenarios are `<group>.scim-create.idle` and `<group>.scim-create.<busy>`. */
  group: string;
  label: string;
  busy: string;
  idleServer: string;
  busyServer: string;
  env: Record<string, string>;
  /** Creates the sink for the organization; answers the admin API path that removes it. */
  attach(serviceUrl: string, admin: string, orgId: string, round: number): Promise<string>;
  /** How many deliveries reached the receiver so far. */
  delivered(): number;
}

const SCIM_CREATE = SCIM_SCENARIOS.find((s) => s.id === 'scim.create')!;
let serial = 0;
/** SCIM create with a new user name on every request of every round (the scenario's own counter restarts per list). */
const CREATE = { ...SCIM_CREATE, request: (base: string) => SCIM_CREATE.request(base, serial++, 0) };

export async function scimCreateUnderDelivery(ctx: Context, sink: DeliverySink): Promise<void> {
  const store = await ctx.newStore();
  try {
    const service = await startService(store, 1, undefined, sink.env);
    try {
      const admin = adminToken(store.dataDir);
      const org = await call(service.url, admin, 'POST', '/admin/v1/orgs', { name: `bench-${sink.group}-load` });
      const server = { url: service.url, base: `/scim/v2/${org.id}`, token: await scimCaller(service.url, admin, org.id) };
      const timing = { seconds: ctx.options.seconds, warmup: ctx.options.warmup };
      const rounds = ctx.options.quick ? 1 : 3;
      const idle: Awaited<ReturnType<typeof load>>[] = [];
      const busy: Awaited<ReturnType<typeof load>>[] = [];
      for (let round = 0; round < rounds; round++) {
        idle.push(await load(service.url, service.pid, timing, scimRequests(server, CREATE, 0)));
        const removal = await sink.attach(service.url, admin, org.id, round);
        // Measured once the sink delivers an event of the organization, not while a process takes its lease: the
        // sink's own creation is an instance event, not the organization's.
        const before = sink.delivered();
        await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/users/machine`, {
          userName: `probe-${round}`,
          name: 'probe',
          accessTokenType: 'opaque',
        });
        await until(`the ${sink.group} sink delivers an event of the organization`, () => sink.delivered() > before, 30_000);
        busy.push(await load(service.url, service.pid, timing, scimRequests(server, CREATE, 0)));
        await fetch(`${service.url}${removal}`, { method: 'DELETE', headers: { authorization: `Bearer ${admin}` } });
      }
      for (const [kind, runs] of [['idle', idle] as const, [sink.busy, busy] as const]) {
        const { socketErrors: _, ...median } = runs.sort((a, b) => (a.mean ?? 0) - (b.mean ?? 0))[Math.floor(rounds / 2)];
        ctx.record({
          scenario: `${sink.group}.scim-create.${kind}`,
          label: sink.label,
          kind: 'portcullis',
          server: kind === 'idle' ? sink.idleServer : sink.busyServer,
          workers: 1,
          unit: 'req/s',
          ...median,
        });
      }
    } finally {
      await service.stop();
    }
  } finally {
    await store.drop();
  }
}
