/**
 * Multi-factor sign-in: full code-flow sign-ins on one service (WORKERS=1, BCRYPT_COST as the other
 * scenarios), in alternating rounds (three in the full run, one in the quick run) of which the median
 * counts, with
 *   - `mfa.password`: the password alone, users who declined the offer to enrol a second factor;
 *   - `mfa.password-totp`: the password, then a TOTP code (users enrolled with TOTP through the offer);
 *   - `mfa.passkey`: a passkey alone, no password (users who registered bench/lib/authenticator.ts's
 *     credential through the offer), discoverable-credential sign-in from the login page.
 * All users are imported at once with a bcrypt hash at the configured cost, then signed in once through
 * the login UI to decline the offer or to enrol their factor. Each sign-in is an autocannon request chain
 * (10 connections) that leases a user of its pool for the length of the chain: no two sign-ins in flight
 * share a user, so no TOTP step or passkey counter is raced. A sign-in counts when its code redemption
 * answers 200 with an ID token whose `acr`/`amr` name the factors used.
 *
 * TOTP: the service accepts the steps now-1 … now+1 and refuses a step at or below the last one it
 * accepted for that authenticator. Each lease takes the user's next unused step among now and now+1
 * (never now-1: it could expire while the chain runs), remembering it, so a code is never sent twice nor
 * out of order, and it stays valid for at least 30 s after the lease; a user whose steps are used rests
 * until the clock moves on. The pool holds enough users for the ceiling of what bcrypt allows here (at
 * least one sign-in per user and half-minute): should it run dry all the same, the chain counts a
 * failure ("no TOTP step free") rather than reusing a step.
 */
import bcrypt from 'bcrypt';
import { performance } from 'node:perf_hooks';
import { adminToken, call } from '../lib/api.js';
import { SoftwareAuthenticator } from '../lib/authenticator.js';
import type { Context } from '../lib/context.js';
import { CONNECTIONS, load, perOperation } from '../lib/load.js';
import { freePort, startService } from '../lib/processes.js';
import { declineOffer, enrolPasskey, enrolTotp, inParallel, jsonScript, totpCodeAt, totpOf, totpStep } from '../lib/sign-in.js';
import { cookieHeader, header, keepCookies, pathOf } from '../peers/login-chain.js';
import type { Context as ChainContext, Headers } from '../peers/login-chain.js';
import { alternating } from './oidc.js';
import { basic, FORM } from './oidc-setup.js';

const BCRYPT_COST = Number(process.env.BCRYPT_COST ?? 10);
const PASSWORD = 'bench-password';
const REDIRECT = 'http://127.0.0.1:1/cb';
const ACR_PASSWORD = 'urn:portcullis:acr:pwd';
const ACR_MFA = 'urn:portcullis:acr:mfa';
/** Sign-ins/s the TOTP pool is sized for: above bcrypt alone on this machine (≈ 35 checks/s at cost 10). */
const TOTP_RATE_CEILING = 50;
/** A lease older than this is taken back (autocannon gives up on a request after 10 s). */
const LEASE_MS = 30_000;

type Kind = 'password' | 'password-totp' | 'passkey';

interface PasswordUser {
  loginName: string;
}
interface TotpUser extends PasswordUser {
  totp: ReturnType<typeof totpOf>;
  /** The last step used (at enrolment, then by every lease). */
  lastStep: number;
}
interface PasskeyUser extends PasswordUser {
  authenticator: SoftwareAuthenticator;
}

/** Users handed to one in-flight sign-in at a time, round robin; `take` may refuse a user (and says what for). */
class Pool<U, L> {
  private readonly leasedAt = new Map<U, number>();
  private next = 0;
  exhausted = 0;

  constructor(
    readonly users: U[],
    private readonly take: (user: U) => L | undefined,
  ) {}

  lease(): { user: U; lease: L } | undefined {
    const now = Date.now();
    for (let i = 0; i < this.users.length; i++) {
      const user = this.users[(this.next + i) % this.users.length];
      if (now - (this.leasedAt.get(user) ?? 0) < LEASE_MS) continue;
      const lease = this.take(user);
      if (lease === undefined) continue;
      this.next = (this.next + i + 1) % this.users.length;
      this.leasedAt.set(user, now);
      return { user, lease };
    }
    this.exhausted++;
    return undefined;
  }

  release(user: U | undefined): void {
    if (user !== undefined) this.leasedAt.delete(user);
  }
}

/** The next TOTP step of a user that the service will accept now and for the next 30 s at least. */
function nextStep(user: TotpUser): number | undefined {
  const now = totpStep();
  const step = Math.max(user.lastStep + 1, now);
  if (step > now + 1) return undefined;
  user.lastStep = step;
  return step;
}

interface Done {
  signIns: number;
  failed: number;
  /** Whole sign-ins (first request to token response), ms. */
  durations: number[];
}

interface MfaTarget {
  url: string;
  web: { id: string; secret: string; redirect: string };
  rpId: string;
  password: Pool<PasswordUser, true>;
  totp: Pool<TotpUser, number>;
  passkey: Pool<PasskeyUser, true>;
}

/** What a sign-in chain needs of a pool. */
interface Leasing {
  lease(): { user: PasswordUser; lease: unknown } | undefined;
  release(user: PasswordUser | undefined): void;
}

type Request = Record<string, unknown>;

/**
 * One sign-in as an autocannon request chain: authorize → login page → first factor (password POST, or
 * passkey POST) → [TOTP: second-factor page → code POST] → resume → code redemption. A chain that found
 * no user free sends only health checks (never a form that would count against the rate limits) and
 * counts as failed.
 */
function signInChain(t: MfaTarget, kind: Kind, done: Done) {
  const authorize = `/oauth/v2/authorize?${new URLSearchParams({ client_id: t.web.id, redirect_uri: t.web.redirect, response_type: 'code', scope: 'openid', state: 'bench' })}`;
  const pool: Leasing = kind === 'password' ? t.password : kind === 'passkey' ? t.passkey : (t.totp as unknown as Leasing);
  const expected = kind === 'password' ? { acr: ACR_PASSWORD, amr: 'pwd' } : kind === 'passkey' ? { acr: ACR_MFA, amr: 'hwk' } : { acr: ACR_MFA, amr: 'otp' };
  const guarded = (setup: (req: Request, context: ChainContext) => Request) => (req: Request, context: ChainContext) =>
    context.leased ? setup(req, context) : { ...req, method: 'GET', path: '/healthz', headers: {}, body: undefined };
  const follow = guarded((req, context) => ({
    ...req,
    method: 'GET',
    path: pathOf(String(context.location), t.url),
    headers: { cookie: cookieHeader(context) },
    body: undefined,
  }));
  const form = (step: string, fields: (context: ChainContext) => Record<string, string>) =>
    guarded((req, context) => ({
      ...req,
      method: 'POST',
      path: `/ui/login/${context.uid}/${step}`,
      headers: { cookie: cookieHeader(context), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: context.csrf, ...fields(context) }).toString(),
    }));
  const toLocation = (_status: number, _body: string, context: ChainContext, headers: Headers) => {
    keepCookies(context, headers);
    context.location = header(headers, 'location');
  };
  const page = (_status: number, body: string, context: ChainContext, headers: Headers) => {
    keepCookies(context, headers);
    context.csrf = /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
    if (kind === 'passkey') context.challenge = jsonScript<{ challenge: string }>(body, 'passkey-options-sign-in')?.challenge ?? '';
  };

  const firstFactor =
    kind === 'passkey'
      ? form('passkey', (context) => ({ response: JSON.stringify((context.leased.user as PasskeyUser).authenticator.assert(context.challenge)) }))
      : form('login', (context) => ({ loginName: context.leased.user.loginName, password: PASSWORD }));
  const secondFactor =
    kind !== 'password-totp'
      ? []
      : [
          { method: 'GET', setupRequest: follow, onResponse: page },
          {
            method: 'POST',
            setupRequest: form('code', (context) => ({ code: totpCodeAt((context.leased.user as TotpUser).totp, context.leased.lease as number) })),
            onResponse: toLocation,
          },
        ];
  return [
    {
      method: 'GET',
      path: authorize,
      setupRequest: (req: Request, context: ChainContext) => {
        context.cookies = {};
        context.started = performance.now();
        context.leased = pool.lease();
        return context.leased ? { ...req, path: authorize, headers: {} } : { ...req, path: '/healthz', headers: {} };
      },
      onResponse: (status: number, body: string, context: ChainContext, headers: Headers) => {
        toLocation(status, body, context, headers);
        context.uid = /\/ui\/login\/([^/?]+)/.exec(String(context.location ?? ''))?.[1] ?? 'none';
      },
    },
    { method: 'GET', setupRequest: follow, onResponse: page },
    { method: 'POST', setupRequest: firstFactor, onResponse: toLocation },
    ...secondFactor,
    {
      method: 'GET',
      setupRequest: follow,
      onResponse: (_status: number, _body: string, context: ChainContext, headers: Headers) => {
        const location = String(header(headers, 'location') ?? '');
        context.code = location.startsWith('http') ? new URL(location).searchParams.get('code') : undefined;
      },
    },
    {
      method: 'POST',
      setupRequest: guarded((req, context) => ({
        ...req,
        method: 'POST',
        path: '/oauth/v2/token',
        headers: { authorization: basic(t.web), ...FORM },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: String(context.code ?? 'none'), redirect_uri: t.web.redirect }).toString(),
      })),
      onResponse: (status: number, body: string, context: ChainContext) => {
        pool.release(context.leased?.user);
        if (status === 200 && context.leased && idTokenNames(body, expected)) {
          done.signIns++;
          done.durations.push(performance.now() - context.started);
        } else done.failed++;
      },
    },
  ];
}

/** The ID token says how the user signed in: the expected `acr`, and `amr` naming the factor. */
function idTokenNames(body: string, expected: { acr: string; amr: string }): boolean {
  try {
    const { id_token: idToken } = JSON.parse(body) as { id_token?: string };
    const claims = JSON.parse(Buffer.from(String(idToken).split('.')[1], 'base64url').toString()) as { acr?: string; amr?: string[] };
    return claims.acr === expected.acr && (claims.amr ?? []).includes(expected.amr);
  } catch {
    return false;
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? undefined : Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);

async function signIns(t: MfaTarget, pid: number, seconds: number, kind: Kind) {
  const done: Done = { signIns: 0, failed: 0, durations: [] };
  const exhaustedBefore = t.totp.exhausted + t.passkey.exhausted + t.password.exhausted;
  // The chain's redirects are non-2xx by design: only failed sign-ins and socket errors count as errors.
  const figures = perOperation(await load(t.url, pid, { seconds, warmup: 0 }, signInChain(t, kind, done)), seconds, {
    completed: done.signIns,
    failed: done.failed,
  });
  const exhausted = t.totp.exhausted + t.passkey.exhausted + t.password.exhausted - exhaustedBefore;
  if (exhausted > 0) console.error(`    ${kind}: ${exhausted} sign-ins found no user free (no TOTP step free): counted as failed`);
  const sorted = done.durations.sort((a, b) => a - b);
  console.error(`    ${kind}: ${done.signIns} sign-ins, whole sign-in p50 ${percentile(sorted, 50)} ms p99 ${percentile(sorted, 99)} ms`);
  return { ...figures, signInP50: percentile(sorted, 50), signInP99: percentile(sorted, 99) };
}

export async function runMfa(ctx: Context): Promise<void> {
  const { seconds, quick } = ctx.options;
  const rounds = quick ? 1 : 3;
  const store = await ctx.newStore();
  try {
    const port = await freePort();
    const service = await startService(store, 1, port);
    try {
      const t = await setUp(service.url, adminToken(store.dataDir), seconds * rounds, quick);
      const server = 'Portcullis WORKERS=1';
      const kinds: Kind[] = ['password', 'password-totp', 'passkey'];
      const results = await alternating(
        rounds,
        kinds.map((kind) => () => signIns(t, service.pid, seconds, kind)),
      );
      const labels: Record<Kind, string> = {
        password: 'sign-in, password (offer declined)',
        'password-totp': 'sign-in, password + TOTP code',
        passkey: 'sign-in, passkey alone (no password)',
      };
      for (const [i, kind] of kinds.entries()) {
        const { signInP50, signInP99, ...figures } = results[i];
        console.error(`    ${kind}: median round's whole sign-in p50 ${signInP50} ms p99 ${signInP99} ms`);
        ctx.record({
          scenario: `mfa.${kind}`,
          label: labels[kind],
          kind: 'portcullis',
          server,
          workers: 1,
          unit: 'sign-ins/s',
          ...figures,
          ...(kind === 'passkey' ? {} : { hashing: true }),
        });
      }
    } finally {
      await service.stop();
    }
  } finally {
    await store.drop();
  }
}

/**
 * An organization of imported users (one bcrypt hash at the configured cost), its web application, and
 * each user signed in once: declining the offer, or enrolling TOTP or a passkey. `measuredSeconds`: the
 * TOTP sign-ins' total measured time, for the size of its pool. `quick`: the pools without their margins,
 * one user per connection and the TOTP steps the ceiling needs (each user's set-up is a sign-in or two).
 */
async function setUp(url: string, admin: string, measuredSeconds: number, quick: boolean): Promise<MfaTarget> {
  const started = Date.now();
  const totpNeeded = CONNECTIONS + Math.ceil((TOTP_RATE_CEILING * measuredSeconds) / 2);
  const counts = quick
    ? { password: CONNECTIONS, totp: totpNeeded, passkey: CONNECTIONS }
    : { password: 2 * CONNECTIONS, totp: Math.max(6 * CONNECTIONS, totpNeeded), passkey: 2 * CONNECTIONS };
  const total = counts.password + counts.totp + counts.passkey;
  const orgId = `mfa-bench-${Date.now()}`;
  const hash = await bcrypt.hash(PASSWORD, BCRYPT_COST);
  const humanUsers = Array.from({ length: total }, (_, i) => ({
    userId: `${orgId}-${i}`,
    user: {
      userName: `user${i}`,
      profile: { firstName: 'Bench', lastName: `User ${i}` },
      email: { email: `user${i}@${orgId}.example.com`, isEmailVerified: true },
      hashedPassword: { value: hash },
    },
  }));
  const imported = await call(url, admin, 'POST', '/admin/v1/import', { dataOrgs: { orgs: [{ orgId, org: { name: orgId }, humanUsers }] }, timeout: '10m' });
  const count = (imported.success?.orgs ?? []).reduce((n: number, o: { humanUserIds: string[] }) => n + o.humanUserIds.length, 0);
  if (count !== total) throw new Error(`import: ${count} of ${total} users: ${JSON.stringify(imported).slice(0, 500)}`);
  const org = ((await call(url, admin, 'GET', '/admin/v1/orgs')).orgs as { id: string; primaryDomain: string }[]).find((o) => o.id === orgId);
  if (!org) throw new Error(`organization ${orgId} not listed`);
  const base = `/management/v1/orgs/${orgId}`;
  const project = await call(url, admin, 'POST', `${base}/projects`, { name: 'mfa-bench' });
  const app = await call(url, admin, 'POST', `${base}/projects/${project.id}/apps/oidc`, {
    name: 'web',
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [],
    responseTypes: ['code'],
    grantTypes: ['authorization_code'],
    authMethod: 'client_secret_basic',
    accessTokenType: 'opaque',
    devMode: true,
  });
  const web = { id: app.clientId as string, secret: app.clientSecret as string, redirect: REDIRECT };
  const loginName = (i: number) => `user${i}@${org.primaryDomain}`;
  const { hostname: rpId, origin } = new URL(url);

  const password: PasswordUser[] = Array.from({ length: counts.password }, (_, i) => ({ loginName: loginName(i) }));
  await inParallel(password, 4, (u) => declineOffer(url, web, u.loginName, PASSWORD));
  const passkey: PasskeyUser[] = Array.from({ length: counts.passkey }, (_, i) => ({
    loginName: loginName(counts.password + i),
    authenticator: new SoftwareAuthenticator(rpId, origin),
  }));
  await inParallel(passkey, 4, (u) => enrolPasskey(url, web, u.loginName, PASSWORD, u.authenticator));
  const totp: TotpUser[] = [];
  await inParallel(
    Array.from({ length: counts.totp }, (_, i) => loginName(counts.password + counts.passkey + i)),
    4,
    async (name) => {
      const { secret, lastStep } = await enrolTotp(url, web, name, PASSWORD);
      totp.push({ loginName: name, totp: totpOf(secret), lastStep });
    },
  );
  console.error(
    `    set-up: ${total} users (${counts.password} declined the offer, ${counts.totp} TOTP, ${counts.passkey} passkeys) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  return {
    url,
    web,
    rpId,
    password: new Pool(password, () => true as const),
    totp: new Pool(totp, nextStep),
    passkey: new Pool(passkey, () => true as const),
  };
}
