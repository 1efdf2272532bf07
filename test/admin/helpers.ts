import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { countRows, createCaller, createOrg, searchEvents } from '../support/fixtures.js';
import type { SearchedEvent } from '../support/fixtures.js';
import type { ApiResponse } from '../support/http.js';
import type { TestService } from '../support/service.js';

/** Every table the admin and management API write; a refused request must leave all of them as they were. */
export const TABLES = [
  'organizations',
  'users',
  'memberships',
  'projects',
  'applications',
  'public_keys',
  'machine_secrets',
  'personal_access_tokens',
  'features',
  'org_groups',
  'group_members',
  'project_roles',
  'project_grants',
  'user_factors',
  'recovery_codes',
  'events',
] as const;

export async function snapshot(svc: TestService): Promise<Record<string, number>> {
  // Counted at once (on MariaDB the pool counts side by side): it runs before and after every refused request.
  const counts = await Promise.all(TABLES.map((table) => countRows(svc, table)));
  return Object.fromEntries(TABLES.map((table, i) => [table, counts[i]]));
}

/**
 * Sends a request that must be refused with `status`, and asserts the error body shape and that no
 * table gained or lost a row.
 */
export async function refused(svc: TestService, status: number, send: () => Promise<ApiResponse>, label = ''): Promise<ApiResponse> {
  const before = await snapshot(svc);
  const res = await send();
  assert.equal(res.status, status, `${label} → ${res.status} ${res.text}`);
  assert.equal(res.body?.code, status, `${label} → ${res.text}`);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(Array.isArray(res.body.details), `${label} → ${res.text}`);
  assert.deepEqual(await snapshot(svc), before, `${label}: a refused request changed the database`);
  return res;
}

/** A 400 whose details name every one of `fields`, and which changed nothing. */
export async function badRequest(svc: TestService, fields: string[], send: () => Promise<ApiResponse>, label = ''): Promise<ApiResponse> {
  const res = await refused(svc, 400, send, label);
  const named = res.body.details.map((d: { field?: string }) => d.field);
  for (const field of fields) assert.ok(named.includes(field), `${label}: expected a detail for ${field}, got ${res.text}`);
  return res;
}

export interface Caller {
  userId: string;
  token: string;
}

/** An organization with an ORG_OWNER, an ORG_USER_MANAGER and a member without roles, each with a PAT. */
export interface OrgSetup {
  org: { id: string; name: string; primaryDomain: string };
  owner: Caller;
  manager: Caller;
  member: Caller;
}

export async function setUpOrg(svc: TestService): Promise<OrgSetup> {
  const org = await createOrg(svc);
  return {
    org,
    owner: await createCaller(svc, org.id, { org: ['ORG_OWNER'] }),
    manager: await createCaller(svc, org.id, { org: ['ORG_USER_MANAGER'] }),
    member: await createCaller(svc, org.id),
  };
}

/** Tokens that must be answered with 401: none, garbage, and a well-formed one that was never issued. */
export const INVALID_TOKENS: Array<string | undefined> = [undefined, '', 'not-a-token', 'Zm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyZm8'];

export function tokenOption(token: string | undefined): { token?: string } {
  return token === undefined ? {} : { token };
}

/** The one event of `type` on the aggregate that satisfies `match`; fails unless there is exactly one. */
export async function theEvent(
  svc: TestService,
  type: string,
  aggregateId: string,
  match: (event: SearchedEvent) => boolean = () => true,
): Promise<SearchedEvent> {
  const events = (await searchEvents(svc, { event_types: [type], aggregate_id: aggregateId, limit: 1000 })).filter(match);
  assert.equal(events.length, 1, `expected one ${type} event on ${aggregateId}, found ${events.length}`);
  const [event] = events;
  assert.equal(event.type.type, type);
  assert.equal(event.type.localized.key, `EventTypes.${type}`);
  assert.equal(event.aggregate.id, aggregateId);
  return event;
}

// Names of values, not of their ids or types: `tokenId`, `keyId` and `accessTokenType` are fine.
const SECRET_KEY_NAME = /^(.*secret|.*password|.*hash|token|accessToken|refreshToken|privateKey|key)$/i;

/** A payload names no secret-looking field and carries none of the given secrets, hashes or keys. */
export function assertNoSecretsIn(payload: Record<string, unknown>, secrets: string[] = []): void {
  const walk = (value: unknown, path: string): void => {
    if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        assert.ok(!SECRET_KEY_NAME.test(k), `event payload carries a secret-looking field ${path}${k}`);
        walk(v, `${path}${k}.`);
      }
    }
  };
  walk(payload, '');
  const text = JSON.stringify(payload);
  assert.doesNotMatch(text, /\$2[aby]\$\d\d\$/, 'event payload carries a bcrypt hash');
  assert.doesNotMatch(text, /PRIVATE KEY/, 'event payload carries a private key');
  for (const secret of secrets) assert.ok(!text.includes(secret), 'event payload carries a secret');
}

/** The secret appears in no row of any table (it was shown once and only its hash, if anything, is kept). */
export async function assertNotStored(svc: TestService, secret: string): Promise<void> {
  for (const table of TABLES) {
    const rows = await svc.dataSource.query(`SELECT * FROM ${table}`);
    assert.ok(!JSON.stringify(rows).includes(secret), `the secret is stored in ${table}`);
  }
}

/**
 * A PEM RSA 2048 private key that Node loads, whose public half is exactly the stored SPKI PEM.
 * Returns the loaded key.
 */
export function assertRsaKeyMatches(pem: string, storedPublicKeyPem: string) {
  assert.match(pem, /^-----BEGIN (RSA )?PRIVATE KEY-----\n[\s\S]+\n-----END (RSA )?PRIVATE KEY-----\n?$/);
  const privateKey = createPrivateKey(pem);
  assert.equal(privateKey.asymmetricKeyType, 'rsa');
  assert.equal(privateKey.asymmetricKeyDetails?.modulusLength, 2048);
  const derived = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const stored = createPublicKey(storedPublicKeyPem).export({ type: 'spki', format: 'der' });
  assert.ok(derived.equals(stored), 'the stored public key is not the public half of the returned private key');
  return privateKey;
}

/** No table holds the private key: no PEM private key at all, and none of its private lines. */
export async function assertPrivateKeyNotStored(svc: TestService, pem: string): Promise<void> {
  // Lines past the modulus carry only private material (d, p, q), which the public half never contains.
  const lines = pem.split('\n').filter((l) => l && !l.startsWith('-----'));
  const privateLines = [lines[10], lines[15], lines[20]].filter(Boolean);
  assert.ok(privateLines.length > 0);
  for (const table of TABLES) {
    const dump = JSON.stringify(await svc.dataSource.query(`SELECT * FROM ${table}`));
    assert.ok(!dump.includes('PRIVATE KEY'), `a private key is stored in ${table}`);
    for (const line of privateLines) assert.ok(!dump.includes(line), `the private key is stored in ${table}`);
  }
}

/** One row by a parameterised query (both drivers take `?`). */
export async function row(svc: TestService, sql: string, params: unknown[]): Promise<Record<string, any>> {
  const rows = await svc.dataSource.query(sql, params);
  assert.equal(rows.length, 1, `expected one row for ${sql} ${JSON.stringify(params)}, got ${rows.length}`);
  return rows[0];
}

/** Booleans read back raw: 0/1 on SQLite and MariaDB alike. */
export function bool(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** JSON text columns read back raw. */
export function json(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}
