/**
 * SCIM scenarios, run against Portcullis and against the scimmy + Express peer (bench/peers/scimmy-peer.ts)
 * holding the same users. Each request differs (another user, page or name), numbered by `n`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call } from '../lib/api.js';
import type { Store } from '../lib/processes.js';
import { userId, userName } from '../lib/seed.js';
import { MAX_FILTER_CLAUSES } from '../../src/scim/query/filter-cost.js';

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const spread = (n: number, size: number) => (n * 7919) % size;

export interface ScimServer {
  url: string;
  base: string;
  token: string;
}

interface Request {
  method: string;
  path: string;
  body?: string;
}

export interface ScimScenario {
  id: string;
  label: string;
  request(base: string, n: number, size: number): Request;
  /** Concurrent connections, when not the default: a read that takes half a second is measured one at a time. */
  connections?: number;
}

export const LOOKUP: ScimScenario = {
  id: 'scim.lookup',
  label: 'SCIM lookup `userName eq`',
  // In the stored case: scimmy's filter compares userName case-sensitively (the tests cover Portcullis's
  // case-insensitive match, which uses the same index either way).
  request: (base, n, size) => ({ method: 'GET', path: `${base}/Users?filter=${encodeURIComponent(`userName eq "${userName(spread(n, size))}"`)}` }),
};

/** A page of 100 at a random startIndex (RFC 7644 §3.4.2.4), the deep ones included. */
export const SORTED_PAGE: ScimScenario = {
  id: 'scim.page',
  label: 'SCIM sorted page of 100',
  request: (base, n, size) => ({ method: 'GET', path: `${base}/Users?sortBy=userName&startIndex=${1 + spread(n, Math.max(1, size - 100))}&count=100` }),
};

/**
 * The costliest filter a client may send (src/scim/query/filter-cost.ts): MAX_FILTER_CLAUSES substring
 * comparisons on e-mails, matching nobody, so every user's e-mails are read.
 */
export const WORST_FILTER: ScimScenario = {
  id: 'scim.filter-worst',
  label: 'SCIM worst allowed filter (10 × `emails[value co]`, no match)',
  connections: 1,
  request: (base, n) => ({
    method: 'GET',
    path: `${base}/Users?filter=${encodeURIComponent(Array.from({ length: MAX_FILTER_CLAUSES }, (_, i) => `emails[value co "zq${n}x${i}"]`).join(' or '))}`,
  }),
};

export const SCIM_SCENARIOS: ScimScenario[] = [
  LOOKUP,
  SORTED_PAGE,
  WORST_FILTER,
  {
    id: 'scim.create',
    label: 'SCIM create (no password)',
    request: (base, n) => ({
      method: 'POST',
      path: `${base}/Users`,
      body: JSON.stringify({
        schemas: [USER_SCHEMA],
        userName: `new-${process.pid}-${n}@bench.example.com`,
        name: { givenName: 'New', familyName: `User${n}` },
        emails: [{ value: `new${n}@bench.example.com`, primary: true }],
      }),
    }),
  },
  {
    id: 'scim.patch',
    label: 'SCIM PATCH active',
    request: (base, n, size) => ({
      method: 'PATCH',
      path: `${base}/Users/${userId(spread(n, size))}`,
      body: JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'active', value: n % 2 === 0 }] }),
    }),
  },
];

/** autocannon's request list for a scenario: one request, rewritten before each send. */
export function scimRequests(server: ScimServer, scenario: ScimScenario, size: number): Record<string, unknown>[] {
  let n = 0;
  return [
    {
      setupRequest: (req: Record<string, any>) => {
        const next = scenario.request(server.base, n++, size);
        const headers = {
          ...req.headers,
          authorization: `Bearer ${server.token}`,
          accept: 'application/scim+json',
          ...(next.body ? { 'content-type': 'application/scim+json' } : {}),
        };
        return { ...req, ...next, headers };
      },
    },
  ];
}

/** Fails the run when the lookup would not find the seeded user (a 200 with no match is a 200 too). */
export async function checkLookup(server: ScimServer, size: number): Promise<void> {
  const found = await call(server.url, server.token, 'GET', LOOKUP.request(server.base, 1, size).path);
  if (found.totalResults !== 1) throw new Error(`${server.url}: lookup found ${found.totalResults} users, expected 1`);
  const page = await call(server.url, server.token, 'GET', `${server.base}/Users?count=1`);
  if (page.totalResults < size) throw new Error(`${server.url}: the list counts ${page.totalResults} users, expected at least ${size}`);
}

/** An ORG_USER_MANAGER machine user's personal access token, the SCIM caller. */
export async function scimCaller(url: string, admin: string, orgId: string): Promise<string> {
  const user = await call(url, admin, 'POST', `/management/v1/orgs/${orgId}/users/machine`, {
    userName: 'scim-bench',
    name: 'bench',
    accessTokenType: 'opaque',
  });
  await call(url, admin, 'PUT', `/management/v1/orgs/${orgId}/members/${user.userId}`, { roles: ['ORG_USER_MANAGER'] });
  return (await call(url, admin, 'POST', `/management/v1/orgs/${orgId}/users/${user.userId}/pats`, {})).token;
}

/** The seeded users as the peer holds them (same ids, names and e-mails); returns the file's path. */
export function writePeerUsers(store: Store, size: number): string {
  const created = new Date(Date.UTC(2026, 0, 1)).toISOString();
  const users = Array.from({ length: size }, (_, i) => {
    const [given, family] = [`Given${i % 997}`, `Family${i % 1009}`];
    return {
      id: userId(i),
      userName: userName(i),
      name: { givenName: given, familyName: family },
      displayName: `${given} ${family}`,
      active: true,
      emails: [{ value: userName(i), type: 'work', primary: true }],
      meta: { created, lastModified: created },
    };
  });
  const file = join(store.dataDir, 'peer-users.json');
  writeFileSync(file, JSON.stringify(users));
  return file;
}
