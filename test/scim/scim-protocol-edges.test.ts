import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { countRows, createCaller, createOrg, unique, useService } from '../support/fixtures.js';
import { PATCH_OP, assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
const SEARCH = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
const SCIM_JSON = { accept: 'application/scim+json', 'content-type': 'application/scim+json' };

/** Every SCIM route, as a client would call it under a tenant base. */
function everyRoute(userId: string): [string, string, unknown?][] {
  return [
    ['GET', '/ServiceProviderConfig'],
    ['GET', '/Schemas'],
    ['GET', '/Schemas/urn:ietf:params:scim:schemas:core:2.0:User'],
    ['GET', '/ResourceTypes'],
    ['GET', '/ResourceTypes/User'],
    ['GET', '/Users'],
    ['GET', `/Users?filter=${encodeURIComponent('userName eq "nobody"')}`],
    ['POST', '/Users/.search', { schemas: [SEARCH], filter: 'userName pr' }],
    ['GET', `/Users/${userId}`],
    ['POST', '/Users', userBody(unique('wrong-tenant'))],
    ['PUT', `/Users/${userId}`, userBody(unique('wrong-tenant'))],
    ['PATCH', `/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }],
    ['DELETE', `/Users/${userId}`],
    ['GET', '/Groups'],
    ['POST', '/Bulk', { schemas: [BULK], Operations: [{ method: 'DELETE', path: `/Users/${userId}` }] }],
  ];
}

describe('SCIM protocol edges: unknown tenants, entity tags, media types, bulk locations', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
  });

  it('under an organization id that does not exist, every SCIM route is 404 with a SCIM error, for an IAM_OWNER too', async () => {
    const owner = await createCaller(svc, t.orgId, { instance: ['IAM_OWNER'] });
    const missing = '0190c0de-0000-7000-8000-000000000000';
    const users = await countRows(svc, 'users');
    // Without a token only the discovery routes are open (RFC 7644 §4); the others answer 401 first.
    const calls = [
      ...[owner.token, t.token].flatMap((token) => everyRoute(t.callerId).map((route) => ({ token, route }))),
      ...everyRoute(t.callerId)
        .filter(([, path]) => /^\/(ServiceProviderConfig|Schemas|ResourceTypes)/.test(path))
        .map((route) => ({ token: undefined, route })),
    ];
    for (const {
      token,
      route: [method, path, body],
    } of calls) {
      const res = await svc.api(method, `/scim/v2/${missing}${path}`, { token, body, headers: SCIM_JSON });
      assertScimError(res, 404);
      assert.equal(res.body.detail, 'organization not found', `${method} ${path}`);
    }
    assert.equal(await countRows(svc, 'users'), users);
  });

  it("another tenant's organization answers exactly as an unknown one; the IAM_OWNER reaches existing ones", async () => {
    const other = await createOrg(svc);
    const missing = await svc.api('GET', '/scim/v2/0190c0de-0000-7000-8000-000000000001/Users', { token: t.token, headers: SCIM_JSON });
    const foreign = await svc.api('GET', `/scim/v2/${other.id}/Users`, { token: t.token, headers: SCIM_JSON });
    assertScimError(foreign, 404);
    assert.deepEqual(foreign.body, missing.body);
    const owner = await createCaller(svc, t.orgId, { instance: ['IAM_OWNER'] });
    const listed = await svc.api('GET', `/scim/v2/${other.id}/Users`, { token: owner.token, headers: SCIM_JSON });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.totalResults, 0);
    assert.equal((await svc.api('GET', `/scim/v2/${other.id}/ServiceProviderConfig`, { headers: SCIM_JSON })).status, 200);
  });

  it('no SCIM response carries an ETag, and If-None-Match never yields 304 (etag.supported false)', async () => {
    const user = await createUser(t, userBody(unique('etag')));
    for (const path of ['/ServiceProviderConfig', '/Schemas', '/ResourceTypes', '/Users', `/Users/${user.id}`]) {
      const first = await t.scim('GET', path);
      assert.equal(first.status, 200, path);
      assert.equal(first.headers.get('etag'), null, path);
      const again = await t.scim('GET', path, { headers: { 'if-none-match': '*' } });
      assert.equal(again.status, 200, path);
      assert.equal(again.headers.get('etag'), null, path);
    }
    const put = await t.scim('PUT', `/Users/${user.id}`, { body: userBody(user.userName, { title: 'x' }) });
    assert.equal(put.headers.get('etag'), null);
    assert.equal(put.body.meta.version.startsWith('W/"'), true, 'meta.version stays');
    const admin = await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken });
    assert.equal(admin.status, 200, admin.text);
    assert.equal(admin.headers.get('etag'), null, 'the same Express default is off for the JSON APIs');
  });

  it('a body that is not JSON or SCIM JSON is 415 with a SCIM error, and changes nothing', async () => {
    const user = await createUser(t, userBody(unique('media')));
    const users = await countRows(svc, 'users');
    const events = await countRows(svc, 'events');
    const json = JSON.stringify(userBody(unique('media')));
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      'application/merge-patch+json',
      'multipart/form-data; boundary=x',
    ]) {
      for (const [method, path] of [
        ['POST', '/Users'],
        ['PUT', `/Users/${user.id}`],
        ['PATCH', `/Users/${user.id}`],
        ['POST', '/Users/.search'],
        ['POST', '/Bulk'],
      ]) {
        const res = await t.scim(method, path, { rawBody: json, headers: { 'content-type': type } });
        assertScimError(res, 415);
        assert.match(res.body.detail, /application\/scim\+json/);
      }
    }
    assert.equal(await countRows(svc, 'users'), users);
    assert.equal(await countRows(svc, 'events'), events);
    assert.equal((await t.scim('POST', '/Users', { rawBody: json, headers: { 'content-type': 'application/scim+json; charset=utf-8' } })).status, 201);
    // A request without a body has nothing to refuse, whatever it declares.
    const bare = await t.scim('DELETE', `/Users/${user.id}`, { headers: { 'content-type': 'text/plain' } });
    assert.equal(bare.status, 204, bare.text);
  });

  it('a failed PUT, PATCH or DELETE in /Bulk carries its location (RFC 7644 §3.7.3); a failed POST does not', async () => {
    const user = await createUser(t, userBody(unique('bulkloc')));
    const missing = '0190c0de-0000-7000-8000-0000000000ff';
    const res = await t.scim('POST', '/Bulk', {
      body: {
        schemas: [BULK],
        Operations: [
          { method: 'PUT', path: `/Users/${missing}`, data: userBody(unique('x')) },
          { method: 'PATCH', path: `/Users/${user.id}`, data: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'nosuch', value: 1 }] } },
          { method: 'DELETE', path: `/Users/${missing}` },
          { method: 'POST', path: '/Users', bulkId: 'p', data: { schemas: ['nope'] } },
          { method: 'DELETE', path: '/Users/%E0%A4%A' },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    const base = `${svc.config.publicUrl}/scim/v2/${t.orgId}/Users`;
    assert.deepEqual(
      res.body.Operations.map((o: any) => [o.method, o.status, o.location]),
      [
        ['PUT', '404', `${base}/${missing}`],
        ['PATCH', '400', `${base}/${user.id}`],
        ['DELETE', '404', `${base}/${missing}`],
        ['POST', '400', undefined],
        ['DELETE', '404', undefined],
      ],
    );
  });
});
