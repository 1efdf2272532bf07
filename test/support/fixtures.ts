import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import { startService } from './service.js';
import type { TestService } from './service.js';

const issuedSuffixes = new Set<string>();

/**
 * Short unique suffix for names that must not collide across tests sharing one service.
 * Random, so processes sharing a database do not collide; remembered, so one process never
 * repeats itself: 3,600 draws of 32 bits meet a birthday collision about once in 700 runs.
 */
export function unique(prefix: string): string {
  let suffix: string;
  do suffix = randomBytes(4).toString('hex');
  while (issuedSuffixes.has(suffix));
  issuedSuffixes.add(suffix);
  return `${prefix}-${suffix}`;
}

export async function createOrg(svc: TestService, name = unique('org')): Promise<{ id: string; name: string; primaryDomain: string }> {
  const res = await svc.api('POST', '/admin/v1/orgs', { token: svc.adminToken, body: { name } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/**
 * A machine user of the organization holding the given roles, with a personal access token:
 * the way an operator sets up an automation account.
 */
export async function createCaller(
  svc: TestService,
  orgId: string,
  roles: { org?: string[]; instance?: string[] } = {},
): Promise<{ userId: string; token: string }> {
  const admin = svc.adminToken;
  const created = await svc.api('POST', `/management/v1/orgs/${orgId}/users/machine`, {
    token: admin,
    body: { userName: unique('caller'), name: 'test caller', accessTokenType: 'opaque' },
  });
  assert.equal(created.status, 201, created.text);
  const userId: string = created.body.userId;
  if (roles.org?.length) {
    const res = await svc.api('PUT', `/management/v1/orgs/${orgId}/members/${userId}`, { token: admin, body: { roles: roles.org } });
    assert.equal(res.status, 200, res.text);
  }
  if (roles.instance?.length) {
    const res = await svc.api('PUT', `/admin/v1/members/${userId}`, { token: admin, body: { roles: roles.instance } });
    assert.equal(res.status, 200, res.text);
  }
  const pat = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${userId}/pats`, { token: admin, body: {} });
  assert.equal(pat.status, 201, pat.text);
  return { userId, token: pat.body.token };
}

export interface SearchedEvent {
  sequence: string;
  creationDate: string;
  type: { type: string; localized: { key: string; localizedMessage: string } };
  aggregate: { id: string; type: { type: string }; resourceOwner: string };
  editor: { userId: string | null };
  payload: Record<string, unknown>;
}

export async function searchEvents(svc: TestService, query: Record<string, unknown>): Promise<SearchedEvent[]> {
  const res = await svc.api('POST', '/admin/v1/events/_search', { token: svc.adminToken, body: query });
  assert.equal(res.status, 200, res.text);
  return res.body.events;
}

/** Row count of a table, to assert that a refused request changed nothing. */
export async function countRows(svc: TestService, table: string): Promise<number> {
  const [row] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`);
  return Number(row.n);
}

/**
 * A service for the enclosing suite: started before its tests (startService, with `env`), closed after
 * them. The handle is filled in the `before` hook, so it is usable in the suite's later hooks and tests.
 */
export function useService(env: Record<string, string> = {}): TestService {
  const handle = {} as TestService;
  before(async () => {
    Object.assign(handle, await startService(env));
  });
  after(() => handle.close?.());
  return handle;
}
