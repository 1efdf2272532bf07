/**
 * Federated sign-in (docs/federation.md): what a sign-in through the organization's upstream OpenID
 * Provider costs over a local password sign-in on the same service (WORKERS=1), in alternating rounds. Each
 * measurement is a closed loop of CONCURRENCY browsers without JavaScript (test/federation/support/
 * federated-browser.ts) doing whole code-flow sign-ins, the code redeemed at the token endpoint; a sign-in counts
 * when the token endpoint answers. The upstream is the reference oidc-provider in this process
 * (test/federation/support/upstream-idp.ts); its own sign-in alone (the same form, its own client) is the floor
 * a broker cannot go under, recorded as the peer beside the federated figure.
 */
import { performance } from 'node:perf_hooks';
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { freePort, startService } from '../lib/processes.js';
import { alternating } from './oidc.js';
import { FederatedBrowser, RP } from '../../test/federation/support/federated-browser.js';
import { startUpstreamIdp } from '../../test/federation/support/upstream-idp.js';
import type { UpstreamIdp } from '../../test/federation/support/upstream-idp.js';
import { LoginClient, csrfOf } from '../../test/attack/support/login-client.js';
import type { TestService } from '../../test/support/service.js';
import type { OidcApp } from '../../test/oidc/support/oidc-fixtures.js';

export const LOCAL = { scenario: 'federation.local-sign-in', label: 'sign-in with a password (code flow, whole)' };
export const FEDERATED = { scenario: 'federation.federated-sign-in', label: 'sign-in through the upstream OpenID Provider (code flow, whole)' };

/** Browsers at once, in every sign-in loop (also the SAML group's, saml.ts). */
export const CONCURRENCY = 4;
const PASSWORD = 'Bench-Federation-9';
const SECRET = 'bench-upstream-secret';

interface LoopFigures {
  rate: number;
  p50: number;
  mean: number;
  p99: number;
  errors: number;
}

export async function runFederation(ctx: Context): Promise<void> {
  const { seconds } = ctx.options;
  const rounds = ctx.options.quick ? 1 : 3;
  const store = await ctx.newStore();
  let upstream: UpstreamIdp | undefined;
  const service = await startService(store, 1, await freePort(), { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  try {
    upstream = await startUpstreamIdp({ 'bench-sub': { preferred_username: 'bench' }, 'floor-sub': { preferred_username: 'floor' } });
    const admin = adminToken(store.dataDir);
    const org = await call(service.url, admin, 'POST', '/admin/v1/orgs', { name: 'federation-bench' });
    await call(service.url, admin, 'PUT', `/management/v1/orgs/${org.id}/login-policy`, { mfa: 'off', passkeys: false, allowRegistration: false });
    const project = await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/projects`, { name: 'bench' });
    const app: OidcApp = {
      ...(await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/projects/${project.id}/apps/oidc`, {
        name: 'bench app',
        redirectUris: [`${RP}/cb`],
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
        authMethod: 'client_secret_basic',
        devMode: true,
      })),
      projectId: project.id,
      orgId: org.id,
    };
    const user = await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/users/human`, {
      userName: 'bench.person',
      profile: { firstName: 'Bench', lastName: 'Person' },
      email: { email: 'bench@example.com', isEmailVerified: true },
      password: PASSWORD,
    });
    const idp = await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/idps`, {
      type: 'oidc',
      name: 'Upstream',
      issuer: upstream.issuer,
      clientId: 'bench',
      clientSecret: SECRET,
    });
    upstream.addClient({ client_id: 'bench', client_secret: SECRET, redirect_uris: [idp.callbackUrl] });
    // The upstream's own client, for its sign-in alone: its redirect URI is never followed.
    upstream.addClient({ client_id: 'floor', client_secret: SECRET, redirect_uris: [`${RP}/floor`] });
    await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/users/${user.userId}/identities`, { idpId: idp.id, subject: 'bench-sub' });

    const svc = { url: service.url, config: { publicUrl: service.url } } as unknown as TestService;
    const loginName = `bench.person@${org.primaryDomain}`;
    const local = async () => {
      const browser = new FederatedBrowser(svc, upstream!.issuer);
      const done = await browser.walk(await browser.typeLoginName(await browser.authorize(app), loginName, PASSWORD));
      await browser.tokens(app, done);
    };
    const federated = async () => {
      const browser = new FederatedBrowser(svc, upstream!.issuer);
      await browser.tokens(app, await browser.signInUpstream(await browser.choose(await browser.authorize(app), idp.id), 'bench-sub'));
    };
    const floor = () => upstreamAlone(upstream!);
    // Each once, unmeasured: a broken chain fails the run here, not as a rate of errors.
    for (const once of [local, federated, floor]) await once();
    const [l, f, u] = await alternating(rounds, [loop(seconds, local), loop(seconds, federated), loop(seconds, floor)]);
    const mine = { kind: 'portcullis' as const, server: 'Portcullis WORKERS=1', workers: 1, unit: 'sign-ins/s' as const };
    ctx.record({ ...LOCAL, ...mine, ...l, hashing: true });
    ctx.record({ ...FEDERATED, ...mine, ...f });
    ctx.record({ ...FEDERATED, kind: 'peer', server: 'the upstream alone (reference oidc-provider, its own sign-in)', nextTo: 1, unit: 'sign-ins/s', ...u });
    console.error(`  federated ÷ local: ${(f.mean / l.mean).toFixed(2)}× the time per sign-in; federated − upstream alone: ${(f.mean - u.mean).toFixed(1)} ms`);
  } finally {
    await upstream?.close();
    await service.stop();
    await store.drop();
  }
}

/** The upstream's own sign-in for its own client: authorize, its form, the code at its token endpoint. */
async function upstreamAlone(upstream: UpstreamIdp): Promise<void> {
  const browser = new LoginClient(upstream.issuer);
  const start = await browser.get(
    `/auth?${new URLSearchParams({ client_id: 'floor', redirect_uri: `${RP}/floor`, response_type: 'code', scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`,
  );
  const form = await browser.get(start.location!);
  const uid = /\/interaction\/([^/?"]+)/.exec(form.text)![1];
  let page = await browser.post(`/interaction/${uid}/login`, { account: 'floor-sub', csrf: csrfOf(form.text) });
  while (page.location && !page.location.startsWith(RP))
    page = await browser.get(new URL(page.location, upstream.issuer).pathname + new URL(page.location, upstream.issuer).search);
  const code = new URL(page.location!).searchParams.get('code')!;
  const token = await fetch(`${upstream.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`floor:${SECRET}`).toString('base64')}` },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${RP}/floor`,
      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    }),
  });
  if (token.status !== 200) throw new Error(`the upstream's token endpoint answered ${token.status}`);
}

/** CONCURRENCY loops of `signIn` (given its loop's index) for `seconds`: completions per second and their latencies (ms). */
export function loop(seconds: number, signIn: (index: number) => Promise<void>): () => Promise<LoopFigures> {
  return async () => {
    const end = performance.now() + seconds * 1000;
    const times: number[] = [];
    let errors = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, index) => {
        while (performance.now() < end) {
          const started = performance.now();
          try {
            await signIn(index);
            times.push(performance.now() - started);
          } catch {
            errors++;
          }
        }
      }),
    );
    times.sort((a, b) => a - b);
    const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0);
    return { rate: times.length / seconds, p50: at(0.5), p99: at(0.99), mean: times.reduce((s, t) => s + t, 0) / Math.max(1, times.length), errors };
  };
}
