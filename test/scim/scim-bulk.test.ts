import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { countRows, searchEvents, unique, useService } from '../support/fixtures.js';
import { ENTERPRISE, PATCH_OP, USER_SCHEMA, assertScimError, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';

describe('SCIM /Bulk (RFC 7644 §3.7)', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
  });

  const bulk = (Operations: unknown[], extra: Record<string, unknown> = {}) => t.scim('POST', '/Bulk', { body: { schemas: [BULK], Operations, ...extra } });

  it('POST, PATCH, PUT and DELETE in order, with bulkId references in paths and data', async () => {
    const manager = unique('manager');
    const report = unique('report');
    const res = await bulk([
      { method: 'POST', path: '/Users', bulkId: 'm', data: userBody(manager) },
      {
        method: 'POST',
        path: '/Users',
        bulkId: 'r',
        data: { ...userBody(report), schemas: [USER_SCHEMA, ENTERPRISE], [ENTERPRISE]: { manager: { value: 'bulkId:m' } } },
      },
      { method: 'PATCH', path: '/Users/bulkId:r', data: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] } },
      { method: 'PUT', path: '/Users/bulkId:m', data: { ...userBody(manager), title: 'Boss' } },
      { method: 'DELETE', path: '/Users/bulkId:m' },
    ]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.schemas, ['urn:ietf:params:scim:api:messages:2.0:BulkResponse']);
    const ops = res.body.Operations;
    assert.deepEqual(
      ops.map((o: any) => [o.method, o.bulkId, o.status]),
      [
        ['POST', 'm', '201'],
        ['POST', 'r', '201'],
        ['PATCH', undefined, '204'],
        ['PUT', undefined, '200'],
        ['DELETE', undefined, '204'],
      ],
    );
    const managerId = ops[0].location.split('/').pop();
    assert.equal(ops[0].location, `${svc.config.publicUrl}/scim/v2/${t.orgId}/Users/${managerId}`);
    const reportUser = (await t.scim('GET', ops[1].location.slice(ops[1].location.indexOf(t.base) + t.base.length))).body;
    assert.equal(reportUser[ENTERPRISE].manager.value, managerId);
    assert.equal(reportUser.active, false);
    assert.equal((await t.scim('GET', `/Users/${managerId}`)).status, 404);
    const types = (await searchEvents(svc, { aggregate_id: managerId, asc: true })).map((e) => e.type.type);
    assert.deepEqual(types, ['user.human.added', 'user.human.profile.changed', 'user.removed']);
  });

  it('reports each failure in its slot with the error envelope; failOnErrors stops the rest', async () => {
    const taken = unique('taken');
    const res = await bulk(
      [
        { method: 'POST', path: '/Users', bulkId: 'a', data: userBody(taken) },
        { method: 'POST', path: '/Users', bulkId: 'b', data: userBody(taken) },
        { method: 'DELETE', path: '/Users/does-not-exist' },
        { method: 'POST', path: '/Users', bulkId: 'c', data: userBody(unique('never')) },
      ],
      { failOnErrors: 2 },
    );
    assert.equal(res.status, 200, res.text);
    const ops = res.body.Operations;
    assert.deepEqual(
      ops.map((o: any) => o.status),
      ['201', '409', '404'],
    );
    assert.equal(ops[1].response.scimType, 'uniqueness');
    assert.deepEqual(ops[1].response.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error', 'urn:ietf:params:scim:api:portcullis:messages:2.0:ErrorDetail']);
    assert.equal(ops[2].response.status, '404');
  });

  it('over 100 operations or 1,000,000 bytes is 413, and nothing is created', async () => {
    const before = await countRows(svc, 'users');
    const many = Array.from({ length: 101 }, (_, i) => ({ method: 'POST', path: '/Users', bulkId: `b${i}`, data: userBody(unique('many')) }));
    assertScimError(await bulk(many), 413);
    const big = [{ method: 'POST', path: '/Users', bulkId: 'big', data: { ...userBody(unique('big')), title: 'x'.repeat(1_000_001) } }];
    assertScimError(await bulk(big), 413);
    assert.equal(await countRows(svc, 'users'), before);
  });

  it('an unknown bulkId, a bad path and a bad method fail only their operation', async () => {
    const res = await bulk([
      { method: 'PATCH', path: '/Users/bulkId:nope', data: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'title', value: 'x' }] } },
      { method: 'POST', path: '/Widgets', bulkId: 'w', data: {} },
      { method: 'GET', path: '/Users' },
      { method: 'POST', path: '/Users', bulkId: 'ok', data: userBody(unique('ok')) },
    ]);
    assert.deepEqual(
      res.body.Operations.map((o: any) => o.status),
      ['409', '404', '400', '201'],
    );
  });
});
