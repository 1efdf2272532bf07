/**
 * The designed look against the look before it (docs/design.md): the same pages of two builds, this one and an
 * earlier one built in `BENCH_LOOK_BEFORE` (a checkout with `npm run build` done, e.g. the commit before the design
 * system), each service on its own data, measured in alternating turns on one machine:
 * 1. the sign-in page's weight — its HTML and every stylesheet, script and image it loads, raw and gzip-compressed
 *    (what a browser downloads on a first visit) — and the console's (its page and bundle);
 * 2. the sign-in page served (`GET /ui/login/{uid}`, requests per second and CPU);
 * 3. in Chromium, the sign-in page (`/ui/login/{uid}`, opened again under one interaction) from navigation to its load
 *    event, and a console page (an organization's users) from navigation to its first row, the browser's cache warm as
 *    on every visit after the first.
 * Goal: no slower than before, with the weight stated. On demand (`--only look`): it needs the other build.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { LoginClient } from '../../test/attack/support/login-client.js';
import { launchBrowser } from '../../test/oidc/support/browser.js';
import { adminToken, call, publicSignInApp } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { load } from '../lib/load.js';
import { freePort, startService } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';
import { signIn } from './console.js';
import { alternating } from './oidc.js';

const REDIRECT = 'http://127.0.0.1:65527/cb';
const PEOPLE = 60;

interface Build {
  name: 'before' | 'after';
  service: Running;
  orgId: string;
  authorizeUrl: string;
  password: string;
}

export async function runLook(ctx: Context): Promise<void> {
  const beforeRoot = process.env.BENCH_LOOK_BEFORE;
  if (!beforeRoot) throw new Error('look: BENCH_LOOK_BEFORE must name a built checkout of the earlier look (see bench/scenarios/look.ts)');
  const stores = [await ctx.newStore(), await ctx.newStore()];
  const builds: Build[] = [];
  let browser: Browser | undefined;
  try {
    builds.push(await prepare('after', await startService(stores[0], 1, await freePort()), stores[0].dataDir));
    builds.push(await prepare('before', await startService(stores[1], 1, await freePort(), {}, beforeRoot), stores[1].dataDir));
    for (const build of builds) {
      const weight = await weights(build);
      console.error(
        `  look (${build.name}): sign-in page ${kb(weight.signIn.raw)} (${kb(weight.signIn.gzip)} gzip) in ${weight.signIn.files} files, its HTML ${kb(weight.signIn.page)} (then ${weight.signIn.assets.join(', ')}); console ${kb(weight.console.raw)} (${kb(weight.console.gzip)} gzip) in ${weight.console.files} files`,
      );
    }
    await served(ctx, builds);
    browser = await launchBrowser();
    await rendered(ctx, browser, builds);
  } finally {
    await browser?.close();
    for (const build of builds) await build.service.stop();
    for (const store of stores) await store.drop();
  }
}

/** An organization with a public application and PEOPLE users, on one build. */
async function prepare(name: Build['name'], service: Running, dataDir: string): Promise<Build> {
  const admin = adminToken(dataDir);
  const app = await publicSignInApp(service.url, admin, `look-${name}`, REDIRECT);
  const org = { id: app.orgId };
  for (let i = 0; i < PEOPLE; i++) {
    await call(service.url, admin, 'POST', `/management/v1/orgs/${org.id}/users/human`, {
      userName: `person${i}`,
      profile: { firstName: 'Person', lastName: `Number ${i}` },
      email: { email: `person${i}@example.com`, isEmailVerified: true },
    });
  }
  const authorize = new URL('/oauth/v2/authorize', service.url);
  for (const [k, v] of Object.entries(authorizeParams(app.clientId))) authorize.searchParams.set(k, v);
  return { name, service, orgId: org.id, authorizeUrl: authorize.toString(), password: readFileSync(join(dataDir, 'admin.password'), 'utf8').trim() };
}

function authorizeParams(clientId: string): Record<string, string> {
  return {
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid',
    state: 'look',
    // RFC 7636 appendix B's challenge: the code is never redeemed.
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };
}

interface Weight {
  raw: number;
  gzip: number;
  files: number;
  /** The page itself, without what it loads. */
  page: number;
  /** What it loads. */
  assets: string[];
}

/** What a first visit downloads: the page and every stylesheet, script and image it names, raw and gzip-compressed. */
async function weights(build: Build): Promise<{ signIn: Weight; console: Weight }> {
  const login = new LoginClient(build.service.url);
  const { uid } = await login.startLogin(authorizeParams(new URL(build.authorizeUrl).searchParams.get('client_id')!));
  const cookie = [...login.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  return {
    signIn: await pageWeight(build.service.url, `/ui/login/${uid}`, cookie),
    console: await pageWeight(build.service.url, '/console/', ''),
  };
}

async function pageWeight(base: string, path: string, cookie: string): Promise<Weight> {
  const get = async (url: string) => Buffer.from(await (await fetch(new URL(url, base), { headers: { cookie, 'accept-language': 'en' } })).arrayBuffer());
  const html = await get(path);
  const assets = [...html.toString('utf8').matchAll(/<(?:link[^>]+rel="?(?:stylesheet|icon)"?[^>]*href|script[^>]+src|img[^>]+src)="([^"]+)"/g)].map(
    (m) => m[1],
  );
  const bodies = [
    html,
    ...(await Promise.all(
      [...new Set(assets)].filter((a) => !a.startsWith('data:')).map((a) => get(new URL(a.replace(/&amp;/g, '&'), new URL(path, base)).toString())),
    )),
  ];
  return {
    raw: sum(bodies.map((b) => b.length)),
    gzip: sum(bodies.map((b) => gzipSync(b).length)),
    files: bodies.length,
    page: html.length,
    assets: [...new Set(assets)],
  };
}

/** The sign-in page served, both builds in alternating rounds (median of three in the full run). */
async function served(ctx: Context, builds: Build[]): Promise<void> {
  const requests = await Promise.all(
    builds.map(async (build) => {
      const login = new LoginClient(build.service.url);
      const { uid } = await login.startLogin(authorizeParams(new URL(build.authorizeUrl).searchParams.get('client_id')!));
      const cookie = [...login.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      return [{ method: 'GET', path: `/ui/login/${uid}`, headers: { cookie, 'accept-language': 'en' } }];
    }),
  );
  const measure =
    (i: number, seconds = ctx.options.seconds) =>
    async () => {
      const { socketErrors: _, ...figures } = await load(builds[i].service.url, builds[i].service.pid, { seconds, warmup: 0 }, requests[i]);
      return figures;
    };
  if (!ctx.options.quick) for (const i of [0, 1]) await measure(i, ctx.options.warmup)();
  // Five rounds: one machine's noise moved a median of three by ±10 % between runs.
  const [after, before] = await alternating(ctx.options.quick ? 1 : 5, [measure(0), measure(1)]);
  const label = 'sign-in page served, this look against the one before';
  ctx.record({ scenario: 'look.sign-in-served', label, kind: 'portcullis', server: 'Portcullis WORKERS=1, this look', workers: 1, unit: 'req/s', ...after });
  ctx.record({ scenario: 'look.sign-in-served', label, kind: 'peer', server: 'Portcullis WORKERS=1, the look before', nextTo: 1, unit: 'req/s', ...before });
  console.error(
    `  look: sign-in page served ${(before.rate / after.rate).toFixed(3)}× the time of before (${after.rate.toFixed(0)} vs ${before.rate.toFixed(0)} req/s)`,
  );
}

/** In Chromium: the sign-in page to its load event, and the users page to its first row, turn by turn. */
async function rendered(ctx: Context, browser: Browser, builds: Build[]): Promise<void> {
  const loads = ctx.options.quick ? 3 : 40;
  const pages: Page[] = [];
  for (const build of builds) {
    const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
    await signIn(page, build.service.url, build.password);
    pages.push(page);
  }
  const consoleTimes: number[][] = [[], []];
  const signInTimes: number[][] = [[], []];
  // The sign-in page itself, opened again and again under its interaction: the authorization request before it (one
  // redirect) is the protocol's work, not the page's, and is measured by the oidc group.
  const signInPages = await Promise.all(builds.map(async () => (await browser.newContext({ locale: 'en-US' })).newPage()));
  const signInUrls: string[] = [];
  for (const [b, page] of signInPages.entries()) {
    await page.goto(builds[b].authorizeUrl, { waitUntil: 'load' });
    if (!new URL(page.url()).pathname.startsWith('/ui/login/')) throw new Error(`look: the authorization request led to ${page.url()}`);
    signInUrls.push(page.url());
  }
  for (let i = -1; i < loads; i++) {
    for (const b of [0, 1]) {
      const users = `${builds[b].service.url}/console/orgs/${builds[b].orgId}/users`;
      let started = performance.now();
      await pages[b].goto(users);
      await pages[b].getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      await pages[b].locator('tbody tr').first().waitFor();
      if (i >= 0) consoleTimes[b].push(performance.now() - started);
      started = performance.now();
      await signInPages[b].goto(signInUrls[b], { waitUntil: 'load' });
      if (i >= 0) signInTimes[b].push(performance.now() - started);
    }
  }
  for (const [scenario, label, times] of [
    ['look.console-users', 'console: users of an organization to its first row (Chromium)', consoleTimes],
    ['look.sign-in-rendered', 'sign-in page to its load event (Chromium)', signInTimes],
  ] as const) {
    const [after, before] = times.map(figures);
    ctx.record({ scenario, label, kind: 'portcullis', server: 'Portcullis WORKERS=1, this look, Chromium', workers: 1, unit: 'page loads/s', ...after });
    ctx.record({ scenario, label, kind: 'peer', server: 'Portcullis WORKERS=1, the look before, Chromium', nextTo: 1, unit: 'page loads/s', ...before });
    console.error(`  look: ${label}: p50 ${after.p50} ms against ${before.p50} ms before (${(after.p50 / before.p50).toFixed(2)}×)`);
  }
}

function figures(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
  return { rate: 1000 / (sum(sorted) / sorted.length), p50: at(0.5), p99: at(0.99), max: Math.round(sorted[sorted.length - 1]), errors: 0 };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
