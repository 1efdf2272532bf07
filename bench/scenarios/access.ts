/**
 * Application access (docs/application-access.md): what the access check and the `roles` claim add to a token
 * request when the project is large. One project holds GRANTS grants, one per group, each with a role; the signing-in
 * user belongs to MEMBERSHIPS of those groups. Two OIDC applications of that project differ only in `access`:
 * `granted` (every refresh asks whether a grant reaches the user) and `everyone`. Both ask for `openid
 * offline_access roles`, so a refresh that builds the `roles` claim pays for it on both; the ratio is the access
 * check's cost, the absolute figures include the claim wherever the service builds it.
 *
 * The measured request is the refresh-token grant (rotating; bench/scenarios/oidc-refresh.ts): the cheapest token
 * request that runs both for a person. Alternating rounds (three in the full run, one in the quick run, of which the
 * median counts); each round signs in afresh, since a rotated token in flight when a round stops is lost.
 */
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { CONNECTIONS, load } from '../lib/load.js';
import { freePort, startService } from '../lib/processes.js';
import { alternating } from './oidc.js';
import { refreshRequests } from './oidc-refresh.js';
import { setUpPortcullis } from './oidc-setup.js';
import type { OidcTarget } from './oidc-setup.js';

const GRANTS = 1_000;
const MEMBERSHIPS = 200;
const ROLE_KEYS = 10;
const SCOPE = 'openid offline_access roles';

export async function runAccess(ctx: Context): Promise<void> {
  const timing = { seconds: ctx.options.seconds, warmup: ctx.options.warmup };
  const rounds = ctx.options.quick ? 1 : 3;
  const size = ctx.options.quick ? { grants: 100, memberships: 20 } : { grants: GRANTS, memberships: MEMBERSHIPS };
  const store = await ctx.newStore();
  try {
    const service = await startService(store, 1, await freePort());
    try {
      const open = await setUpPortcullis(service.url, adminToken(store.dataDir));
      const gated = await grantedTwin(open, adminToken(store.dataDir), size);
      const measure = (t: OidcTarget) => async () => {
        const { socketErrors: _, ...figures } = await load(service.url, service.pid, timing, await refreshRequests(t, CONNECTIONS, timing.warmup > 0, SCOPE));
        return figures;
      };
      const [granted, everyone] = await alternating(rounds, [measure(gated), measure(open)]);
      const common = { kind: 'portcullis' as const, server: 'Portcullis WORKERS=1', workers: 1, unit: 'req/s' as const, size: size.grants };
      ctx.record({
        scenario: 'access.refresh-granted',
        label: `token with access check and roles: refresh at an app with access "granted" (${size.grants} grants, user in ${size.memberships} groups)`,
        ...common,
        ...granted,
      });
      ctx.record({
        scenario: 'access.refresh-everyone',
        label: 'token with access check and roles: the same refresh at an app of the same project with access "everyone"',
        ...common,
        ...everyone,
      });
    } finally {
      await service.stop();
    }
  } finally {
    await store.drop();
  }
}

/**
 * Beside the target's `everyone` web application: role keys and `grants` group grants in its project, the bench user
 * in `memberships` of the groups, and a `granted` twin of the web application; the target as seen through the twin.
 */
async function grantedTwin(t: OidcTarget, admin: string, size: { grants: number; memberships: number }): Promise<OidcTarget> {
  if (!t.ids) throw new Error('the access scenario needs a Portcullis target');
  const { orgId, projectId, userId } = t.ids;
  const base = `/management/v1/orgs/${orgId}`;
  const project = `${base}/projects/${projectId}`;
  for (let i = 0; i < ROLE_KEYS; i++) await call(t.url, admin, 'POST', `${project}/roles`, { key: `role-${i}` });
  await inBatches(size.grants, async (i) => {
    const group = await call(t.url, admin, 'POST', `${base}/groups`, { displayName: `bench-group-${i}` });
    await call(t.url, admin, 'POST', `${project}/grants`, { groupId: group.id, roles: [`role-${i % ROLE_KEYS}`] });
    if (i < size.memberships) await call(t.url, admin, 'PUT', `${base}/groups/${group.id}/members/${userId}`);
  });
  const twin = await call(t.url, admin, 'POST', `${project}/apps/oidc`, {
    name: 'web-granted',
    redirectUris: [t.web.redirect],
    postLogoutRedirectUris: [],
    responseTypes: ['code'],
    grantTypes: ['authorization_code', 'refresh_token'],
    authMethod: 'client_secret_basic',
    accessTokenType: 'opaque',
    devMode: true,
    access: 'granted',
  });
  return { ...t, web: { id: twin.clientId, secret: twin.clientSecret, redirect: t.web.redirect } };
}

/** `count` calls of `work`, ten at a time. */
async function inBatches(count: number, work: (i: number) => Promise<void>): Promise<void> {
  for (let start = 0; start < count; start += 10) await Promise.all(Array.from({ length: Math.min(10, count - start) }, (_, k) => work(start + k)));
}
