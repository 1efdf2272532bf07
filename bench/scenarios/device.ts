/**
 * Device flow (RFC 8628; docs/oauth-profiles.md, "Device authorization grant"): what a crowd of devices polling the token endpoint costs, against the plain
 * client-credentials token request on the same service in the same run (alternating rounds, three in the full run,
 * one in the quick run, of which the median counts).
 *
 * `device.poll-pending`: each request is one poll of a pending device code, answered 400 `authorization_pending`.
 * A poll reads the code, checks its client and records the poll in the code's row for `slow_down` (one conditional
 * UPDATE; src/oidc/adapter/device-polls.ts). The devices poll round robin over POOL codes with an interval of 1 s,
 * so each code is polled at most POOL/rate times a second apart: in time, never `slow_down`. A poll counts when it
 * is answered `authorization_pending`; any other answer is an error of the measurement.
 */
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { load, perOperation } from '../lib/load.js';
import { freePort, startService } from '../lib/processes.js';
import { alternating } from './oidc.js';
import { basic, FORM } from './oidc-setup.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** Pending device codes polled round robin: more than the polls a second this machine serves. */
const POOL = 6_000;

export async function runDevice(ctx: Context): Promise<void> {
  const timing = { seconds: ctx.options.seconds, warmup: ctx.options.warmup };
  const rounds = ctx.options.quick ? 1 : 3;
  const store = await ctx.newStore();
  try {
    const service = await startService(store, 1, await freePort(), { DEVICE_POLL_INTERVAL_SECONDS: '1' });
    try {
      const { tv, machine } = await setUp(service.url, adminToken(store.dataDir));
      const codes = await deviceCodes(service.url, tv, ctx.options.quick ? 2_000 : POOL);
      let next = 0;
      const done = { completed: 0, failed: 0, other: new Map<string, number>() };
      const poll = [
        {
          method: 'POST',
          path: '/oauth/v2/token',
          headers: FORM,
          setupRequest: (req: Record<string, unknown>) => ({
            ...req,
            body: new URLSearchParams({ grant_type: DEVICE_GRANT, client_id: tv, device_code: codes[next++ % codes.length] }).toString(),
          }),
          onResponse: (status: number, body: string) => {
            const error = status === 400 ? (JSON.parse(body) as { error?: string }).error : String(status);
            if (error === 'authorization_pending') done.completed++;
            else {
              done.failed++;
              done.other.set(String(error), (done.other.get(String(error)) ?? 0) + 1);
            }
          },
        },
      ];
      const credentials = [
        { method: 'POST', path: '/oauth/v2/token', headers: { ...FORM, authorization: basic(machine) }, body: 'grant_type=client_credentials' },
      ];
      const [polls, plain] = await alternating(rounds, [
        async () => {
          // The warm-up by hand, so that only the measured run's answers are counted.
          if (timing.warmup > 0) await load(service.url, service.pid, { seconds: timing.warmup, warmup: 0 }, poll);
          const before = { completed: done.completed, failed: done.failed };
          const figures = await load(service.url, service.pid, { seconds: timing.seconds, warmup: 0 }, poll);
          return perOperation(figures, timing.seconds, { completed: done.completed - before.completed, failed: done.failed - before.failed });
        },
        async () => {
          const { socketErrors: _, ...figures } = await load(service.url, service.pid, timing, credentials);
          return figures;
        },
      ]);
      if (done.other.size > 0) console.error(`    device polls not pending: ${[...done.other].map(([e, n]) => `${e}×${n}`).join(', ')}`);
      const server = 'Portcullis WORKERS=1';
      ctx.record({
        scenario: 'device.poll-pending',
        label: 'device flow: poll of a pending device code (authorization_pending)',
        kind: 'portcullis',
        server,
        workers: 1,
        unit: 'req/s',
        ...polls,
      });
      ctx.record({
        scenario: 'device.client-credentials',
        label: 'client credentials, same service and run',
        kind: 'portcullis',
        server,
        workers: 1,
        unit: 'req/s',
        ...plain,
      });
    } finally {
      await service.stop();
    }
  } finally {
    await store.drop();
  }
}

/** A public TV application with the device grant and a machine user with a secret, in a new organization. */
async function setUp(url: string, admin: string): Promise<{ tv: string; machine: { id: string; secret: string } }> {
  const org = await call(url, admin, 'POST', '/admin/v1/orgs', { name: `device-bench-${Date.now()}` });
  const base = `/management/v1/orgs/${org.id}`;
  const project = await call(url, admin, 'POST', `${base}/projects`, { name: 'bench' });
  const tv = await call(url, admin, 'POST', `${base}/projects/${project.id}/apps/oidc`, {
    name: 'tv',
    redirectUris: [],
    postLogoutRedirectUris: [],
    responseTypes: [],
    grantTypes: [DEVICE_GRANT],
    authMethod: 'none',
    accessTokenType: 'opaque',
    devMode: true,
  });
  const user = await call(url, admin, 'POST', `${base}/users/machine`, { userName: 'm-device', name: 'bench', accessTokenType: 'opaque' });
  const secret = await call(url, admin, 'POST', `${base}/users/${user.userId}/secret`, {});
  return { tv: tv.clientId, machine: { id: secret.clientId, secret: secret.clientSecret } };
}

/** `count` pending device codes of the TV application, ten requests at a time. */
async function deviceCodes(url: string, clientId: string, count: number): Promise<string[]> {
  const codes: string[] = [];
  while (codes.length < count) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, count - codes.length) }, async () => {
        const res = await fetch(`${url}/oauth/v2/device_authorization`, {
          method: 'POST',
          headers: FORM,
          body: new URLSearchParams({ client_id: clientId, scope: 'openid' }),
        });
        const body = (await res.json()) as { device_code?: string };
        if (!body.device_code) throw new Error(`device authorization failed at ${url}: ${res.status} ${JSON.stringify(body)}`);
        return body.device_code;
      }),
    );
    codes.push(...batch);
  }
  return codes;
}
