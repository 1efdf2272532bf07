/**
 * SCIM Groups at the sizes of a large tenant: `groups` groups in one organization, one of them holding
 * `members` users and one holding ten. Membership changes are single-member PATCHes as Entra ID sends them
 * by default (a Remove and an Add per change); a change to the large group should cost what it costs on
 * the small one, and the reads Entra ID makes (one group without members, a lookup by displayName, a page)
 * should not depend on the number of groups or members.
 */
import { adminToken, call } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { load } from '../lib/load.js';
import { freePort, startService } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';
import { groupId, groupName, seedGroups, seedUsers, userId } from '../lib/seed.js';
import { scimCaller } from './scim.js';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const SMALL = 10;

interface GroupScenario {
  id: string;
  label: string;
  request(base: string, n: number): { method: string; path: string; body?: string };
}

/** Remove then add back one member of `group`, member `n / 2` in turn: every request is a real change. */
const membershipChanges = (id: string, label: string, group: number, memberCount: number): GroupScenario => ({
  id,
  label,
  request: (base, n) => {
    const member = userId(Math.floor(n / 2) % memberCount);
    const operation = n % 2 === 0 ? { op: 'Remove', path: 'members', value: [{ value: member }] } : { op: 'Add', path: 'members', value: [{ value: member }] };
    return { method: 'PATCH', path: `${base}/Groups/${groupId(group)}`, body: JSON.stringify({ schemas: [PATCH_OP], Operations: [operation] }) };
  },
});

export async function runGroups(ctx: Context): Promise<void> {
  const { quick, seconds, warmup } = ctx.options;
  const [groups, members] = quick ? [1_000, 5_000] : [10_000, 100_000];
  const store = await ctx.newStore();
  try {
    const port = await freePort();
    const setup = await startService(store, 1, port);
    const admin = adminToken(store.dataDir);
    const org = await call(setup.url, admin, 'POST', '/admin/v1/orgs', { name: 'groups-bench' });
    const token = await scimCaller(setup.url, admin, org.id);
    await setup.stop();
    await seedUsers(store, org.id, 0, members);
    // Group 0 holds every seeded user, group 1 ten of them, the rest one each.
    await seedGroups(store, org.id, groups, (i) =>
      i === 0 ? Array.from({ length: members }, (_, u) => u) : i === 1 ? Array.from({ length: SMALL }, (_, u) => u) : [i % members],
    );

    const scenarios: GroupScenario[] = [
      membershipChanges('groups.change-small', `SCIM group member Remove/Add, group of ${SMALL}`, 1, SMALL),
      membershipChanges('groups.change-large', `SCIM group member Remove/Add, group of ${members.toLocaleString('en')}`, 0, members),
      {
        id: 'groups.get',
        label: 'SCIM GET group excludedAttributes=members',
        request: (base, n) => ({ method: 'GET', path: `${base}/Groups/${groupId(n % 2)}?excludedAttributes=members` }),
      },
      {
        id: 'groups.lookup',
        label: 'SCIM group lookup `displayName eq`',
        request: (base, n) => ({
          method: 'GET',
          path: `${base}/Groups?filter=${encodeURIComponent(`displayName eq "${groupName((n * 7919) % groups)}"`)}&excludedAttributes=members`,
        }),
      },
      {
        id: 'groups.page',
        label: 'SCIM groups page of 100 (excludedAttributes=members)',
        request: (base, n) => ({ method: 'GET', path: `${base}/Groups?startIndex=${1 + ((n * 7919) % (groups - 100))}&count=100&excludedAttributes=members` }),
      },
    ];
    const base = `/scim/v2/${org.id}`;
    const measure = async (service: Running, s: GroupScenario, workers: number, connections?: number) => {
      const { socketErrors: _, ...figures } = await load(service.url, service.pid, { seconds, warmup }, requestsOf(s, base, token), connections);
      const server = `Portcullis WORKERS=${workers}${connections === 1 ? ', 1 connection' : ''}`;
      ctx.record({
        scenario: connections === 1 ? `${s.id}.latency` : s.id,
        label: s.label,
        kind: 'portcullis',
        server,
        workers,
        size: s.id === 'groups.change-small' ? SMALL : members,
        unit: 'req/s',
        ...figures,
      });
    };
    const one = await startService(store, 1, port);
    try {
      const probe = await call(one.url, token, 'GET', `${base}/Groups/${groupId(0)}?excludedAttributes=members`);
      if (probe.displayName !== groupName(0)) throw new Error(`the seeded group is not served: ${JSON.stringify(probe)}`);
      for (const s of scenarios) await measure(one, s, 1);
      // The reads' latency without queueing behind nine other connections.
      for (const s of scenarios.filter((x) => x.id === 'groups.get' || x.id === 'groups.lookup')) await measure(one, s, 1, 1);
    } finally {
      await one.stop();
    }
    // Not with --quick: writes from two processes are proven by the oidc group's WORKERS=2 refresh grant, and
    // starting two processes takes longer than this group's other scenarios together.
    if (!quick) {
      const two = await startService(store, 2, port);
      try {
        await measure(two, scenarios[1], 2);
      } finally {
        await two.stop();
      }
    }
  } finally {
    await store.drop();
  }
}

/** autocannon's request list: one request, rewritten before each send. */
function requestsOf(s: GroupScenario, base: string, token: string): Record<string, unknown>[] {
  let n = 0;
  return [
    {
      setupRequest: (req: Record<string, any>) => {
        const next = s.request(base, n++);
        const headers = {
          ...req.headers,
          authorization: `Bearer ${token}`,
          accept: 'application/scim+json',
          ...(next.body ? { 'content-type': 'application/scim+json' } : {}),
        };
        return { ...req, ...next, headers };
      },
    },
  ];
}
