/**
 * Deep SCIM pages: the page of 100 that starts halfway through the organization's users (500,000 of 1,000,000
 * in a full run; the largest of `--sizes` otherwise), by RFC 9865 cursor and by RFC 7644 `startIndex` (and the first
 * page by cursor, for scale), in the
 * default order (`meta.created`) and by `userName`. Each method and order gets a fresh process: its first request
 * is the cold figure (one request, nothing of the process warmed: its latency as p50 and mean, no p99, so the
 * generic p99 target does not judge a first request), then one connection for the run's seconds the warm one. The cursor is the one the service gives for the page before (its last row's sort value and id), made
 * from the seeded rows.
 */
import { call } from '../lib/api.js';
import { adminToken } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { load } from '../lib/load.js';
import type { Measurement } from '../lib/measurement.js';
import { freePort, startService } from '../lib/processes.js';
import { readRow, seedUsers } from '../lib/seed.js';
import { encodeCursor } from '../../src/scim/query/scim-cursor.js';
import { scimCaller } from './scim.js';

const PAGE = 100;

const ORDERS = [
  { name: 'meta.created', sortBy: '', key: 'createdAt', column: 'created_at', numeric: true },
  { name: 'userName', sortBy: '&sortBy=userName', key: 'userNameLower', column: 'user_name_lower', numeric: false },
] as const;

export async function runScimCursor(ctx: Context): Promise<void> {
  const size = ctx.options.sizes.at(-1) ?? 1_000_000;
  const depth = Math.floor(size / 2);
  const store = await ctx.newStore();
  try {
    const port = await freePort();
    const setup = await startService(store, 1, port);
    const admin = adminToken(store.dataDir);
    const org = await call(setup.url, admin, 'POST', '/admin/v1/orgs', { name: 'scim-cursor-bench' });
    const token = await scimCaller(setup.url, admin, org.id);
    await setup.stop();
    const started = Date.now();
    await seedUsers(store, org.id, 0, size);
    console.error(`  seeded ${size.toLocaleString('en')} users in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const base = `/scim/v2/${org.id}/Users`;

    for (const order of ORDERS) {
      // The row just before the page: its position is what the previous page's nextCursor names.
      const before = await readRow(
        store,
        `SELECT ${order.column} AS v, id FROM users WHERE org_id = ? AND type = 'human' ORDER BY ${order.column}, id LIMIT 1 OFFSET ${depth - 1}`,
        [org.id],
      );
      if (!before) throw new Error(`no user at position ${depth}`);
      const value = order.numeric ? Number(before.v) : String(before.v);
      const cursor = encodeCursor(order.key, false, { value, id: String(before.id) });
      const paths = {
        // The first page by cursor, for scale: a deep page should cost what it costs.
        'cursor (first page)': `${base}?count=${PAGE}&cursor=${order.sortBy}`,
        cursor: `${base}?count=${PAGE}&cursor=${cursor}${order.sortBy}`,
        startIndex: `${base}?count=${PAGE}&startIndex=${depth + 1}${order.sortBy}`,
      };
      const firstIds: string[] = [];
      for (const [method, path] of Object.entries(paths)) {
        const service = await startService(store, 1, port);
        try {
          const first = method.includes('first');
          const label = first
            ? `SCIM first page of ${PAGE} by cursor, ${order.name}`
            : `SCIM page of ${PAGE} at ${depth.toLocaleString('en')} by ${method}, ${order.name}`;
          const scenario = `scim.${first ? 'first-page.cursor' : `deep-page.${method}`}.${order.name === 'userName' ? 'username' : 'created'}`;
          const began = performance.now();
          const res = await fetch(new URL(path, service.url), { headers: { authorization: `Bearer ${token}` } });
          const body = (await res.json()) as { Resources?: { id: string }[] };
          const ms = performance.now() - began;
          if (res.status !== 200 || body.Resources?.length !== PAGE) throw new Error(`${label}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
          if (!first) firstIds.push(body.Resources[0].id);
          const common = { kind: 'portcullis', server: 'Portcullis WORKERS=1', workers: 1, size, unit: 'req/s' } as const;
          ctx.record({
            ...common,
            scenario: `${scenario}.cold`,
            label: `${label}, cold process`,
            rate: 1000 / ms,
            p50: Math.round(ms * 10) / 10,
            mean: Math.round(ms * 10) / 10,
            errors: 0,
            requests: 1,
          });
          const requests = [{ method: 'GET', path, headers: { authorization: `Bearer ${token}` } }];
          const { socketErrors: _, ...figures } = await load(
            service.url,
            service.pid,
            { seconds: ctx.options.seconds, warmup: ctx.options.warmup },
            requests,
            1,
          );
          ctx.record({ ...common, scenario: `${scenario}.warm`, label: `${label}, warm process`, ...figures } satisfies Measurement);
        } finally {
          await service.stop();
        }
      }
      if (firstIds[0] !== firstIds[1]) throw new Error(`${order.name}: the page by cursor starts at ${firstIds[0]}, by startIndex at ${firstIds[1]}`);
    }
  } finally {
    await store.drop();
  }
}
