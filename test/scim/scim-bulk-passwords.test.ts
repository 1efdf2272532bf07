import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import { PATCH_OP, USER_SCHEMA, assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
const LIMIT = 10;

/**
 * Every operation that sets a password costs a bcrypt hash; a Bulk request may carry at most ten, so
 * one request cannot hold a process for seconds. Past that, 413 (RFC 7644 §3.7.4) before any
 * operation runs.
 */
describe('SCIM /Bulk: password operations per request are bounded', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
  });

  const bulk = (Operations: unknown[]) => t.scim('POST', '/Bulk', { body: { schemas: [BULK], Operations } });
  const total = async () => (await t.scim('GET', '/Users')).body.totalResults as number;
  const hashOf = async (id: string) => ((await svc.dataSource.query('SELECT password_hash AS h FROM users WHERE id = ?', [id])) as { h: string | null }[])[0].h;
  const create = (i: number, password?: string) => ({ method: 'POST', path: '/Users', bulkId: `u${i}`, data: userBody(unique(`bulk${i}`), password ? { password } : {}) });

  it(`${LIMIT + 1} creations with a password: 413 naming the limit, and no user created`, async () => {
    const before = await total();
    const res = await bulk([create(0), ...Array.from({ length: LIMIT + 1 }, (_, i) => create(i + 1, 'Bulk-Passw0rd!'))]);
    assertScimError(res, 413);
    assert.equal(res.body[`urn:ietf:params:scim:api:portcullis:messages:2.0:ErrorDetail`].id, 'tooManyPasswordOperations');
    assert.match(res.body.detail, /11 operations of this request set a password; at most 10/);
    assert.equal(await total(), before, 'not even the operation without a password ran');
  });

  it('password changes by PATCH (path, path-less value, schema-qualified) and PUT count too; nothing changes', async () => {
    const users = [];
    for (let i = 0; i < 4; i++) users.push(await createUser(t, userBody(unique('target'), { password: 'Original-Passw0rd!' })));
    const hashes = await Promise.all(users.map((u) => hashOf(u.id)));
    const patch = (id: string, operation: Record<string, unknown>) => ({ method: 'PATCH', path: `/Users/${id}`, data: { schemas: [PATCH_OP], Operations: [operation] } });
    const operations = [
      ...users.map((u) => patch(u.id, { op: 'replace', path: 'password', value: 'New-Passw0rd-1!' })),
      ...users.map((u) => patch(u.id, { op: 'Replace', value: { password: 'New-Passw0rd-2!' } })),
      patch(users[0].id, { op: 'replace', path: `${USER_SCHEMA}:password`, value: 'New-Passw0rd-3!' }),
      { method: 'PUT', path: `/Users/${users[1].id}`, data: { ...userBody(users[1].userName), password: 'New-Passw0rd-4!' } },
      { method: 'PUT', path: `/Users/${users[2].id}`, data: { ...userBody(users[2].userName), PASSWORD: 'New-Passw0rd-5!' } },
      patch(users[3].id, { op: 'replace', path: 'displayName', value: 'renamed' }),
    ];
    assertScimError(await bulk(operations), 413);
    assert.deepEqual(await Promise.all(users.map((u) => hashOf(u.id))), hashes, 'no password changed');
    const renamed = await t.scim('GET', `/Users/${users[3].id}`);
    assert.notEqual(renamed.body.displayName, 'renamed', 'no other operation ran either');
  });

  it(`${LIMIT} password operations, and any number without one, run`, async () => {
    const before = await total();
    const res = await bulk([...Array.from({ length: LIMIT }, (_, i) => create(i, 'Bulk-Passw0rd!')), ...Array.from({ length: 20 }, (_, i) => create(100 + i))]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(new Set(res.body.Operations.map((o: { status: string }) => o.status)), new Set(['201']));
    assert.equal(await total(), before + LIMIT + 20);
  });
});
