import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { humanUser, storedCounts } from '../import/import.helpers.js';
import { assertScimError, scimTenant, userBody } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';

/** `{"key": [[[…"x"…]]]}`-like text: `levels` arrays nested in a field of an otherwise ordinary body. */
function nestedIn(body: Record<string, unknown>, field: string, levels: number): string {
  const json = JSON.stringify({ ...body, [field]: '__HOLE__' });
  return json.replace('"__HOLE__"', `${'['.repeat(levels)}"x"${']'.repeat(levels)}`);
}

const DEPTH_MESSAGE = /nested deeper than 32 levels/;

/**
 * Deeply nested JSON (RFC 8259 §9 lets a parser limit nesting) is refused with 400 in each surface's
 * shape, before authentication and before any recursive transform could overflow the stack; nothing
 * changes. 200,000 levels gave a 500 (class-transformer's stack) before the limit.
 */
describe('JSON nesting depth limit', () => {
  const svc = useService();
  let org: { id: string };
  let tenant: ScimTenant;

  before(async () => {
    org = await createOrg(svc);
    tenant = await scimTenant(svc);
  });

  const usersOf = async (orgId: string) => (await svc.api('GET', `/management/v1/orgs/${orgId}/users`, { token: svc.adminToken })).body.total as number;

  it('management API: 200,000 nested arrays → 400 {code,message,details}, with or without a token; nothing created', async () => {
    const before = await usersOf(org.id);
    const human = { userName: unique('deep'), profile: { firstName: 'A', lastName: 'B' }, email: { email: 'deep@example.com', isEmailVerified: true } };
    for (const token of [svc.adminToken, undefined]) {
      const res = await svc.api('POST', `/management/v1/orgs/${org.id}/users/human`, { token, rawBody: nestedIn(human, 'phone', 200_000) });
      assert.equal(res.status, 400, res.text.slice(0, 300));
      assert.equal(res.body.code, 400);
      assert.match(res.body.message, DEPTH_MESSAGE);
      assert.deepEqual(res.body.details, []);
    }
    assert.equal(await usersOf(org.id), before);
  });

  it('the limit is 32 levels: 33 are refused by the parser, 32 reach validation, brackets in strings do not count', async () => {
    const human = () => ({ userName: unique('edge'), profile: { firstName: 'A', lastName: 'B' }, email: { email: 'edge@example.com', isEmailVerified: true } });
    // The field sits one level down in the body object: 31 arrays make 32 levels.
    const over = await svc.api('POST', `/management/v1/orgs/${org.id}/users/human`, { token: svc.adminToken, rawBody: nestedIn(human(), 'phone', 32) });
    assert.equal(over.status, 400);
    assert.match(over.body.message, DEPTH_MESSAGE);
    const at = await svc.api('POST', `/management/v1/orgs/${org.id}/users/human`, { token: svc.adminToken, rawBody: nestedIn(human(), 'phone', 31) });
    assert.equal(at.status, 400, at.text);
    assert.doesNotMatch(at.body.message, DEPTH_MESSAGE, 'refused by validation, not by the depth limit');
    const bracketed = { ...human(), profile: { firstName: '['.repeat(40), lastName: `"{${'{'.repeat(40)}\\"` } };
    const created = await svc.api('POST', `/management/v1/orgs/${org.id}/users/human`, { token: svc.adminToken, body: bracketed });
    assert.equal(created.status, 201, created.text);
  });

  it('SCIM /Users and /Bulk: 400 invalidSyntax envelope; no user created', async () => {
    const listed = async () => (await tenant.scim('GET', '/Users')).body.totalResults as number;
    const before = await listed();
    const deepUser = nestedIn(userBody(unique('deep')), 'nickName', 100_000);
    assertScimError(await tenant.scim('POST', '/Users', { rawBody: deepUser }), 400, 'invalidSyntax');
    const bulk = `{"schemas":["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],"Operations":[{"method":"POST","path":"/Users","bulkId":"a","data":${deepUser}}]}`;
    const res = await tenant.scim('POST', '/Bulk', { rawBody: bulk });
    assertScimError(res, 400, 'invalidSyntax');
    assert.match(res.body.detail, DEPTH_MESSAGE);
    assert.equal(await listed(), before);
  });

  it('import (its own, larger body limit): 400 in the admin shape; nothing imported', async () => {
    const target = await createOrg(svc);
    const user = humanUser(unique('imp'));
    const body = JSON.stringify({ dataOrgs: { orgs: [{ orgId: target.id, humanUsers: [user, { ...user, userId: '__HOLE__' }] }] } });
    const res = await svc.api('POST', '/admin/v1/import', {
      token: svc.adminToken,
      rawBody: body.replace('"__HOLE__"', `${'['.repeat(50_000)}${']'.repeat(50_000)}`),
    });
    assert.equal(res.status, 400, res.text.slice(0, 300));
    assert.match(res.body.message, DEPTH_MESSAGE);
    assert.deepEqual(await storedCounts(svc, target.id), { users: 0, events: 0 });
  });
});
