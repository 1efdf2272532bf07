/**
 * `node dist/bench/micro/userinfo-errors.js [rounds] [requests] [control]`: userinfo with oidc-provider's own token steps
 * (three InvalidToken errors built per request and never thrown) against the kept patch that builds them only when
 * thrown (src/oidc/provider/extensions/lazy-token-errors.ts), in one process and one run. Two services run in
 * this process, one built with the patch and one with the library's steps put back; rounds alternate between
 * them (B A A B …), so the machine's drift falls on both. Each request is sequential (one connection), and the
 * process's CPU time per request counts the client's work too, the same on both sides. Also the cost of the three
 * errors alone, for scale.
 */
import { errors } from 'oidc-provider';
import userinfo from 'oidc-provider/lib/actions/userinfo.js';
import { getValidateAccessToken, loadAccessTokenAccount, loadAccessTokenClient } from 'oidc-provider/lib/shared/access_token.js';
import { startService } from '../../test/support/service.js';
import type { TestService } from '../../test/support/service.js';
import { createMachine, createProject, postForm } from '../../test/oidc/support/oidc-fixtures.js';

type Step = (ctx: unknown, next: () => Promise<void>) => Promise<void> | void;

const rounds = Number(process.argv[2] ?? 10);
const perRound = Number(process.argv[3] ?? 1000);
/** `control` as a fourth argument: both services keep the patch, so the difference is the method's own bias. */
const control = process.argv[4] === 'control';

async function tokenOf(svc: TestService): Promise<string> {
  const project = await createProject(svc);
  const machine = await createMachine(svc, project.orgId);
  const token = await postForm(
    svc,
    '/oauth/v2/token',
    { grant_type: 'client_credentials', scope: 'openid' },
    { id: machine.clientId, secret: machine.clientSecret },
  );
  if (token.status !== 200) throw new Error(token.text);
  return token.body.access_token;
}

/** The library's steps back in the userinfo list, under names the patch does not look for, so the next provider keeps them. */
function restoreLibrarySteps(): void {
  const steps = userinfo as Step[];
  const validate = getValidateAccessToken({
    afterFind(_ctx: unknown, accessToken: { scopes: Set<string> }) {
      if (!accessToken.scopes.size || !accessToken.scopes.has('openid')) throw new errors.InsufficientScope('access token missing openid scope', 'openid');
    },
  });
  const swap = (name: string, step: Step) => {
    const at = steps.findIndex((s) => s.name === name);
    if (at === -1) throw new Error(`no ${name} in the userinfo steps`);
    steps[at] = step;
  };
  swap('validateUserinfoAccessToken', (ctx, next) => validate(ctx, next));
  swap('loadClientOfAccessToken', (ctx, next) => loadAccessTokenClient(ctx, next));
  swap('loadAccountOfAccessToken', (ctx, next) => loadAccessTokenAccount(ctx, next));
}

async function round(svc: TestService, token: string): Promise<{ wallUs: number; cpuUs: number }> {
  const url = new URL('/oidc/v1/userinfo', svc.url);
  const cpu = process.cpuUsage();
  const began = process.hrtime.bigint();
  for (let i = 0; i < perRound; i++) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`userinfo ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }
  const wallUs = Number(process.hrtime.bigint() - began) / 1000 / perRound;
  const used = process.cpuUsage(cpu);
  return { wallUs, cpuUs: (used.user + used.system) / perRound };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const patched = await startService();
  const patchedToken = await tokenOf(patched);
  if (!control) restoreLibrarySteps();
  const library = await startService();
  try {
    const sides = [
      {
        name: control ? 'second service, patched too (control)' : 'library steps (3 errors built)',
        svc: library,
        token: await tokenOf(library),
        wall: [] as number[],
        cpu: [] as number[],
      },
      { name: 'kept patch (built when thrown)', svc: patched, token: patchedToken, wall: [] as number[], cpu: [] as number[] },
    ];
    for (const side of sides) await round(side.svc, side.token); // warm both before measuring
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 ? [...sides].reverse() : sides) {
        const { wallUs, cpuUs } = await round(side.svc, side.token);
        side.wall.push(wallUs);
        side.cpu.push(cpuUs);
      }
    }
    console.log(`userinfo, ${rounds} alternating rounds of ${perRound} sequential requests each (median of rounds):`);
    for (const side of sides)
      console.log(`  ${side.name}: ${median(side.wall).toFixed(0)} µs/request wall, ${median(side.cpu).toFixed(0)} µs/request CPU (server and client)`);
    const n = 200_000;
    const began = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      new errors.InvalidToken('access token not found');
      new errors.InvalidToken('associated client not found');
      new errors.InvalidToken('associated account not found');
    }
    console.log(`  three InvalidToken built alone: ${(Number(process.hrtime.bigint() - began) / 1000 / n).toFixed(1)} µs`);
  } finally {
    await library.close();
    await patched.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
