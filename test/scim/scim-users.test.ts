import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { countRows, searchEvents, unique, useService } from '../support/fixtures.js';
import { ENTERPRISE, USER_SCHEMA, assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

describe('SCIM /Users', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
  });

  it('creates a user: 201, Location, meta, defaults, no password in the response', async () => {
    const userName = `${unique('bjensen')}@example.com`;
    const res = await t.scim('POST', '/Users', {
      body: userBody(userName, { password: 'correct horse battery', phoneNumbers: [{ value: '+1 555-555 5555', type: 'work', primary: true }] }),
    });
    assert.equal(res.status, 201, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/scim\+json/);
    const user = res.body;
    assert.equal(res.headers.get('location'), `${svc.config.publicUrl}/scim/v2/${t.orgId}/Users/${user.id}`);
    assert.deepEqual(user.schemas, [USER_SCHEMA]);
    assert.equal(user.userName, userName);
    assert.equal(user.active, true);
    assert.equal(user.preferredLanguage, 'en');
    assert.deepEqual(user.phoneNumbers, [{ value: '+15555555555', type: 'work', primary: true }]);
    assert.deepEqual(user.emails, [{ value: userName, type: 'work', primary: true }]);
    assert.equal(user.password, undefined);
    assert.equal(user.meta.resourceType, 'User');
    assert.equal(user.meta.location, `${svc.config.publicUrl}/scim/v2/${t.orgId}/Users/${user.id}`);
    assert.match(user.meta.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(typeof user.meta.version, 'string');
    const [row] = await svc.dataSource.query('SELECT password_hash FROM users WHERE id = ?', [user.id]);
    assert.match(row.password_hash, /^\$2[aby]\$/);
    const events = await searchEvents(svc, { event_types: ['user.human.added'], aggregate_id: user.id });
    assert.equal(events.length, 1);
    assert.equal(events[0].editor.userId, t.callerId);
  });

  it('GET by id round-trips every attribute, enterprise extension included', async () => {
    const body = userBody(unique('full'), {
      schemas: [USER_SCHEMA, ENTERPRISE],
      externalId: 'ext-1',
      name: { givenName: 'B', familyName: 'J', middleName: 'M', honorificPrefix: 'Ms.', formatted: 'Ms. B M J' },
      displayName: 'Babs',
      nickName: 'Babs',
      profileUrl: 'https://example.com/babs',
      title: 'Tour Guide',
      locale: 'en-US',
      timezone: 'America/Los_Angeles',
      addresses: [{ type: 'work', streetAddress: '100 Universal City Plaza', locality: 'Hollywood', country: 'USA', primary: true }],
      ims: [{ value: 'someaimhandle', type: 'aim' }],
      photos: [{ value: 'https://photos.example.com/profilephoto/72930000000Ccne/F', type: 'photo' }],
      roles: [{ value: 'admin', display: 'Admin' }],
      entitlements: [{ value: 'delete' }],
      [ENTERPRISE]: { employeeNumber: '701984', department: 'Tour Operations', manager: { value: 'm-1' } },
    });
    const created = await createUser(t, body);
    const res = await t.scim('GET', `/Users/${created.id}`);
    assert.equal(res.status, 200);
    const user = res.body;
    for (const key of [
      'externalId',
      'displayName',
      'nickName',
      'profileUrl',
      'title',
      'locale',
      'timezone',
      'addresses',
      'ims',
      'photos',
      'roles',
      'entitlements',
      ENTERPRISE,
    ]) {
      assert.deepEqual(user[key], body[key], key);
    }
    assert.deepEqual(user.name, body.name);
    assert.deepEqual(user.schemas, [USER_SCHEMA, ENTERPRISE]);
    assert.equal(user.userType, undefined, 'userType is returned on request only');
  });

  it('PUT replaces the user, bumps version and writes events with the caller as editor', async () => {
    const created = await createUser(t, userBody(unique('put')));
    const res = await t.scim('PUT', `/Users/${created.id}`, {
      body: { ...userBody(created.userName), name: { givenName: 'Babs', familyName: 'Jensen' }, emails: [{ value: 'new@example.com', primary: true }] },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.name.givenName, 'Babs');
    assert.notEqual(res.body.meta.version, created.meta.version);
    const events = await searchEvents(svc, { aggregate_id: created.id });
    const types = events.map((e) => e.type.type);
    assert.ok(types.includes('user.human.profile.changed'), types.join());
    assert.ok(types.includes('user.human.email.changed'), types.join());
    assert.ok(events.every((e) => e.editor.userId === t.callerId));
  });

  it('PUT with active false deactivates; DELETE removes (user.removed), then 404', async () => {
    const created = await createUser(t, userBody(unique('del')));
    const put = await t.scim('PUT', `/Users/${created.id}`, { body: { ...userBody(created.userName), active: false } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.active, false);
    const del = await t.scim('DELETE', `/Users/${created.id}`);
    assert.equal(del.status, 204);
    assertScimError(await t.scim('GET', `/Users/${created.id}`), 404);
    const types = (await searchEvents(svc, { aggregate_id: created.id, asc: true })).map((e) => e.type.type);
    assert.deepEqual(
      types.filter((x) => x !== 'user.human.added' && x !== 'user.human.profile.changed'),
      ['user.deactivated', 'user.removed'],
    );
  });

  it('duplicate userName (any case) is 409 uniqueness and adds nothing', async () => {
    const created = await createUser(t, userBody(unique('dup')));
    const before = await countRows(svc, 'users');
    assertScimError(await t.scim('POST', '/Users', { body: userBody(created.userName.toUpperCase()) }), 409, 'uniqueness');
    assert.equal(await countRows(svc, 'users'), before);
  });

  it('another organization never sees or changes these users (404)', async () => {
    const created = await createUser(t, userBody(unique('iso')));
    const other = await scimTenant(svc);
    assertScimError(await other.scim('GET', `/Users/${created.id}`), 404);
    assertScimError(await other.scim('PUT', `/Users/${created.id}`, { body: userBody(created.userName) }), 404);
    assertScimError(await other.scim('DELETE', `/Users/${created.id}`), 404);
    const list = await other.scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${created.userName}"`)}`);
    assert.equal(list.body.totalResults, 0);
    // A token of org B on org A's base URL: the org is outside its reach.
    assertScimError(await svc.api('GET', `${t.base}/Users/${created.id}`, { token: other.token }), 404);
    assert.equal((await t.scim('GET', `/Users/${created.id}`)).status, 200);
  });

  it('IAM_OWNER reaches any organization; unknown SCIM paths are SCIM 404s', async () => {
    const created = await createUser(t, userBody(unique('iam')));
    assert.equal((await svc.api('GET', `${t.base}/Users/${created.id}`, { token: svc.adminToken })).status, 200);
    assertScimError(await t.scim('GET', '/serviceConfiguration'), 404);
    assertScimError(await t.scim('DELETE', '/Groups/some-id'), 404);
  });

  it('401 carries a SCIM body', async () => {
    assertScimError(await svc.api('GET', `${t.base}/Users`, { token: 'nope' }), 401);
    assertScimError(await svc.api('GET', `${t.base}/Users`), 401);
  });

  it('stores and returns emails[].display and phoneNumbers[].display, which the schema says are readWrite', async () => {
    const created = await createUser(t, {
      ...userBody(unique('display')),
      emails: [{ value: 'd@example.com', type: 'work', primary: true, display: 'Work mail' }],
      phoneNumbers: [{ value: '+41 79 123 45 67', type: 'mobile', display: 'Mobile (CH)' }],
    });
    const read = (await t.scim('GET', `/Users/${created.id}`)).body;
    assert.equal(read.emails[0].display, 'Work mail');
    assert.equal(read.phoneNumbers[0].display, 'Mobile (CH)');
    const patched = await t.scim('PATCH', `/Users/${created.id}`, {
      body: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'emails[type eq "work"].display', value: 'Office' }],
      },
    });
    assert.equal(patched.status, 204, patched.text);
    assert.equal((await t.scim('GET', `/Users/${created.id}`)).body.emails[0].display, 'Office');
  });

  it('identifiers match exactly on both databases: a trailing space or tab finds nothing and changes nothing', async () => {
    const created = await createUser(t, userBody(unique('exact')));
    const before = (await t.scim('GET', `/Users/${created.id}`)).body;
    for (const suffix of ['%20', '%09', '%00']) {
      assertScimError(await t.scim('GET', `/Users/${created.id}${suffix}`), 404);
      assertScimError(
        await t.scim('PATCH', `/Users/${created.id}${suffix}`, {
          body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'title', value: 'changed' }] },
        }),
        404,
      );
      assertScimError(await t.scim('DELETE', `/Users/${created.id}${suffix}`), 404);
      const org = await svc.api('GET', `/admin/v1/orgs/${t.orgId}${suffix}`, { token: svc.adminToken });
      assert.equal(org.status, 404, `${suffix}: ${org.text}`);
    }
    assert.deepEqual((await t.scim('GET', `/Users/${created.id}`)).body, before);
  });

  it('discovery is readable without a token; other methods are 405', async () => {
    const spc = await svc.api('GET', `${t.base}/ServiceProviderConfig`);
    assert.equal(spc.status, 200);
    assert.equal(spc.body.bulk.maxOperations, 100);
    assert.equal(spc.body.bulk.maxPayloadSize, 1000000);
    assert.equal(spc.body.filter.maxResults, 100);
    assert.equal(spc.body.etag.supported, false);
    assert.equal(spc.body.authenticationSchemes[0].type, 'oauthbearertoken');
    const schemas = await svc.api('GET', `${t.base}/Schemas`);
    assert.equal(schemas.body.totalResults, 3, 'User, EnterpriseUser, Group');
    const user = await svc.api('GET', `${t.base}/Schemas/${USER_SCHEMA}`);
    assert.equal(user.body.attributes.find((a: any) => a.name === 'userName').uniqueness, 'server');
    const types = await svc.api('GET', `${t.base}/ResourceTypes/User`);
    assert.equal(types.body.endpoint, '/Users');
    assertScimError(await svc.api('POST', `${t.base}/ServiceProviderConfig`, { body: {} }), 405);
    assertScimError(await t.scim('PUT', '/Users', { body: {} }), 405);
  });

  it('a 405 names the allowed methods; the root search is 501 and the bare base a SCIM 404', async () => {
    const allowed: Array<[string, string, string]> = [
      ['PUT', '/Users', 'GET, HEAD, POST'],
      ['DELETE', '/Groups', 'GET, HEAD, POST'],
      ['GET', '/Users/.search', 'POST'],
      ['POST', '/Users/some-id', 'GET, HEAD, PUT, PATCH, DELETE'],
      ['POST', '/Groups/some-id', 'GET, HEAD, PUT, PATCH, DELETE'],
      ['GET', '/Bulk', 'POST'],
      ['POST', '/ServiceProviderConfig', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of allowed) {
      const res = await t.scim(method, path, method === 'GET' ? {} : { body: {} });
      assertScimError(res, 405);
      assert.equal(res.headers.get('allow'), allow, `${method} ${path}`);
    }
    const unknown = await t.scim('GET', '/Me');
    assertScimError(unknown, 404);
    assert.match(unknown.body.detail, /\/Users, \/Groups, \/Bulk/);
    const rootSearch = await t.scim('POST', '/.search', { body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'] } });
    assertScimError(rootSearch, 501);
    for (const path of ['/', '']) assertScimError(await t.scim('GET', path), 404);
  });
});
