/**
 * Directories (docs/directories.md, "Speed"): Debian's slapd, started here in a temporary directory as the tests start
 * it (test/support/slapd.ts), with `size` people added by ldapadd (not measured). On one service:
 * 1. a full sync of every person (`POST …/sync {"full": true}` to its `finished` state), with the service's peak
 *    resident memory; goal at 100,000 people: at most 5 minutes and 300 MB;
 * 2. an incremental sync after 100 people changed at the directory; goal: at most 5 s;
 * 3. the password step of a sign-in (`POST /ui/login/{uid}/login`) of a person the directory checks by a bind,
 *    against a local person's at the service's hashing cost, one after the other in turns; goal: the bind's p95 at
 *    most 50 ms above the local one's.
 * Needs `slapd` and `ldap-utils`: without them the quick run skips the group and says so, a full run fails.
 * `BENCH_DIRECTORY_SIZE=10000` replaces the full run's 100,000 people.
 */
import { existsSync } from 'node:fs';
import { LoginClient, csrfOf } from '../../test/attack/support/login-client.js';
import { personLdif, startSlapd, SUFFIX } from '../../test/support/slapd.js';
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { startService, withPeakMemory } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';
import { until } from '../lib/until.js';

const PEOPLE = `ou=people,${SUFFIX}`;
/** People per ldapadd: its output (a line per entry) stays within execFileSync's buffer. */
const LDIF_CHUNK = 5000;
const CHANGED = 100;
const REDIRECT = 'http://127.0.0.1:65528/cb';
const LOCAL_PASSWORD = 'Local-bench-pw-1';

export async function runDirectories(ctx: Context): Promise<void> {
  if (!existsSync('/usr/sbin/slapd') || !existsSync('/usr/bin/ldapadd')) {
    const text = 'directories: slapd or ldapadd not installed (Debian packages slapd and ldap-utils)';
    if (ctx.options.quick) {
      console.error(`== ${text}: group skipped`);
      return;
    }
    throw new Error(text);
  }
  const size = ctx.options.quick ? 500 : Number(process.env.BENCH_DIRECTORY_SIZE ?? 100_000);
  const slapd = await startSlapd();
  const store = await ctx.newStore();
  let service: Running | undefined;
  try {
    const seeded = Date.now();
    // Changed over years, one a minute from 2020, and not since (set with the Relax Rules control): an incremental
    // sync's cursor reaches back from the latest change it saw by the last sync's duration, so people all added in the
    // seconds before it would all count as changed again.
    const changedAt = (i: number) => `${new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString().slice(0, 19).replace(/[-T:]/g, '')}Z`;
    for (let i = 0; i < size; i += LDIF_CHUNK) {
      const people = Array.from(
        { length: Math.min(LDIF_CHUNK, size - i) },
        (_, k) => `${personLdif(`person${i + k}`, { sn: 'Seeded' })}modifyTimestamp: ${changedAt(i + k)}\n`,
      );
      slapd.modify(people.join('\n'), true, true);
    }
    console.error(`    seeded ${size.toLocaleString('en')} people into slapd in ${((Date.now() - seeded) / 1000).toFixed(0)} s`);
    service = await startService(store, 1);
    const { url } = service;
    const admin = adminToken(store.dataDir);
    const org = await call(url, admin, 'POST', '/admin/v1/orgs', { name: 'directory-bench' });
    await call(url, admin, 'PUT', '/admin/v1/directory-hosts', { allow: ['127.0.0.1'] });
    const directory = await call(url, admin, 'POST', `/management/v1/orgs/${org.id}/directories`, {
      type: 'ldap',
      name: 'slapd',
      url: slapd.url,
      bindDn: slapd.serviceDn,
      bindPassword: slapd.servicePassword,
      usersDn: PEOPLE,
      groupsDn: `ou=groups,${SUFFIX}`,
      sync: { intervalMinutes: 0 },
    });
    const base = `/management/v1/orgs/${org.id}/directories/${directory.id}`;
    const sync = async (full: boolean) => {
      const started = performance.now();
      const { syncId } = await call(url, admin, 'POST', `${base}/sync`, { full });
      let done: { state: string; counts: Record<string, number>; failures: unknown[] } | undefined;
      await until(
        'the sync to finish',
        async () => {
          done = await call(url, admin, 'GET', `${base}/syncs/${syncId}`);
          if (done!.state === 'failed') throw new Error(`the sync failed: ${JSON.stringify(done).slice(0, 500)}`);
          return done!.state === 'finished';
        },
        30 * 60_000,
        100,
      );
      return { seconds: (performance.now() - started) / 1000, sync: done! };
    };

    const full = await withPeakMemory(service.pid, () => sync(true));
    const created = full.result.sync.counts.created;
    if (created !== size) throw new Error(`the full sync created ${created} of ${size} people: ${JSON.stringify(full.result.sync).slice(0, 500)}`);
    record(ctx, 'directories.full-sync', 'full sync from slapd', size, size / full.result.seconds, 'users/s', full.peakMb);
    console.error(`    full sync of ${size.toLocaleString('en')} people: ${full.result.seconds.toFixed(1)} s, service peak ${full.peakMb} MB`);

    const changes = Array.from(
      { length: CHANGED },
      (_, k) => `dn: uid=person${Math.floor((k * size) / CHANGED)},${PEOPLE}\nchangetype: modify\nreplace: sn\nsn: Changed\n`,
    );
    slapd.modify(changes.join('\n'));
    // On a process of its own (same data, same port): resident memory does not shrink after the full sync.
    const port = Number(new URL(url).port);
    await service.stop();
    service = await startService(store, 1, port);
    const incremental = await withPeakMemory(service.pid, () => sync(false));
    const { updated } = incremental.result.sync.counts;
    if (updated !== CHANGED)
      throw new Error(`the incremental sync updated ${updated} of ${CHANGED} people: ${JSON.stringify(incremental.result.sync).slice(0, 500)}`);
    record(
      ctx,
      'directories.incremental-sync',
      `incremental sync of ${CHANGED} changed people`,
      size,
      CHANGED / incremental.result.seconds,
      'users/s',
      incremental.peakMb,
    );
    console.error(`    incremental sync of ${CHANGED} changes among ${size.toLocaleString('en')}: ${incremental.result.seconds.toFixed(2)} s`);

    await signIns(ctx, service, admin, org.id, size);
  } finally {
    await service?.stop();
    await store.drop();
    await slapd.stop();
  }
}

/** The password step of a bind sign-in and of a local one, in turns; its latency percentiles for each. */
async function signIns(ctx: Context, service: Running, admin: string, orgId: string, size: number): Promise<void> {
  const { url } = service;
  const { primaryDomain } = await call(url, admin, 'GET', `/admin/v1/orgs/${orgId}`);
  const project = await call(url, admin, 'POST', `/management/v1/orgs/${orgId}/projects`, { name: 'bench' });
  const app = await call(url, admin, 'POST', `/management/v1/orgs/${orgId}/projects/${project.id}/apps/oidc`, {
    name: 'bench',
    redirectUris: [REDIRECT],
    responseTypes: ['code'],
    grantTypes: ['authorization_code'],
    authMethod: 'client_secret_basic',
    devMode: true,
  });
  await call(url, admin, 'POST', `/management/v1/orgs/${orgId}/users/human`, {
    userName: 'local.person',
    profile: { firstName: 'Local', lastName: 'Person' },
    email: { email: 'local.person@example.com', isEmailVerified: true },
    password: LOCAL_PASSWORD,
  });
  const people = {
    bind: { loginName: `person${size - 1}@${primaryDomain}`, password: `person${size - 1}-password` },
    local: { loginName: `local.person@${primaryDomain}`, password: LOCAL_PASSWORD },
  };
  /** One password step, timed from the POST to its answer; the sign-in must go on (303), not back to the form. */
  const step = async (who: keyof typeof people) => {
    const browser = new LoginClient(url);
    const { uid, page } = await browser.startLogin({ client_id: app.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 'd' });
    const started = performance.now();
    const posted = await browser.post(`/ui/login/${uid}/login`, { csrf: csrfOf(page.text), ...people[who] });
    const ms = performance.now() - started;
    if (posted.status !== 303) throw new Error(`${who}: the password step answered ${posted.status}: ${posted.text.slice(0, 300)}`);
    return ms;
  };
  // The first sign-in of each (the offer of a second factor, a new person's first bind) is not measured.
  for (let i = 0; i < 3; i++) await Promise.all([step('bind'), step('local')]);
  const rounds = ctx.options.quick ? 20 : 200;
  const times = { bind: [] as number[], local: [] as number[] };
  for (let i = 0; i < rounds; i++) {
    times.bind.push(await step('bind'));
    times.local.push(await step('local'));
  }
  for (const who of ['bind', 'local'] as const) {
    const sorted = times[who].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    const total = sorted.reduce((sum, ms) => sum + ms, 0);
    ctx.record({
      scenario: `directories.sign-in.${who}`,
      label: 'password step of a sign-in, by a bind against slapd and by a local hash',
      kind: who === 'bind' ? 'portcullis' : 'reference',
      server: who === 'bind' ? 'Portcullis WORKERS=1, a directory person (bind)' : 'Portcullis WORKERS=1, a local person (bcrypt)',
      workers: 1,
      unit: 'sign-ins/s',
      rate: sorted.length / (total / 1000),
      p50: Math.round(at(0.5)),
      p95: at(0.95),
      p99: Math.round(at(0.99)),
      mean: total / sorted.length,
      errors: 0,
      requests: sorted.length,
      hashing: who === 'local',
    });
    console.error(`    password step, ${who}: p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms over ${sorted.length}`);
  }
}

function record(ctx: Context, scenario: string, label: string, size: number, rate: number, unit: 'users/s', peakMb: number): void {
  ctx.record({ scenario, label, kind: 'portcullis', server: 'Portcullis WORKERS=1', workers: 1, size, unit, rate, errors: 0, peakMb });
}
