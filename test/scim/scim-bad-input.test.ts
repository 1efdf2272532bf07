import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { countRows, unique, useService } from '../support/fixtures.js';
import { ENTERPRISE, USER_SCHEMA, assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

describe('SCIM bad input: the right error, and nothing changes', () => {
  const svc = useService();
  let t: ScimTenant;
  let existing: any;
  before(async () => {
    t = await scimTenant(svc);
    existing = await createUser(t, userBody(unique('existing')));
  });

  /** Sends the body as POST and as PUT over `existing`; both must fail alike and change nothing. */
  async function refused(body: unknown, status: number, scimType?: string, rawBody?: string) {
    const users = await countRows(svc, 'users');
    const events = await countRows(svc, 'events');
    const before = (await t.scim('GET', `/Users/${existing.id}`)).body;
    const options = rawBody === undefined ? { body } : { rawBody };
    assertScimError(await t.scim('POST', '/Users', options), status, scimType);
    assertScimError(await t.scim('PUT', `/Users/${existing.id}`, options), status, scimType);
    assert.equal(await countRows(svc, 'users'), users);
    assert.equal(await countRows(svc, 'events'), events);
    assert.deepEqual((await t.scim('GET', `/Users/${existing.id}`)).body, before);
  }

  it('malformed JSON is 400 invalidSyntax', () => refused(undefined, 400, 'invalidSyntax', '{"userName": "x",'));
  it('a body that is not an object is 400 invalidSyntax', () => refused([userBody('x')], 400, 'invalidSyntax'));
  it('missing or wrong schemas are 400 invalidSyntax', async () => {
    await refused({ userName: 'no-schemas' }, 400, 'invalidSyntax');
    await refused({ ...userBody('grp'), schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'] }, 400, 'invalidSyntax');
    await refused({ ...userBody('ent'), [ENTERPRISE]: { department: 'x' } }, 400, 'invalidSyntax');
  });
  it('unknown attributes and sub-attributes are 400 invalidSyntax', async () => {
    await refused({ ...userBody('unknown'), favouriteColour: 'blue' }, 400, 'invalidSyntax');
    await refused({ ...userBody('unknown'), name: { givenName: 'a', surname: 'b' } }, 400, 'invalidSyntax');
    await refused({ ...userBody('unknown'), schemas: [USER_SCHEMA, ENTERPRISE], [ENTERPRISE]: { shoeSize: 42 } }, 400, 'invalidSyntax');
  });
  it('wrong types are 400 invalidValue', async () => {
    await refused({ ...userBody('types'), active: 'yes' }, 400, 'invalidValue');
    await refused({ ...userBody('types'), userName: 42 }, 400, 'invalidValue');
    await refused({ ...userBody('types'), emails: { value: 'a@b.c' } }, 400, 'invalidValue');
    await refused({ ...userBody('types'), name: 'Barbara' }, 400, 'invalidValue');
    await refused({ ...userBody('types'), password: 12345678 }, 400, 'invalidValue');
    await refused({ ...userBody('types'), phoneNumbers: [{ value: 'call me maybe' }] }, 400, 'invalidValue');
    await refused(
      {
        ...userBody('types'),
        emails: [
          { value: 'a@b.c', primary: true },
          { value: 'd@e.f', primary: true },
        ],
      },
      400,
      'invalidValue',
    );
    await refused({ ...userBody('types'), userName: '' }, 400, 'invalidValue');
    await refused({ ...userBody('types'), password: 'short' }, 400, 'invalidValue');
  });
  it('read-only attributes in a body are ignored (RFC 7644 §3.3), in PATCH refused with mutability', async () => {
    const created = await createUser(t, { ...userBody(unique('ro')), id: 'chosen-id', meta: { created: '2001-01-01T00:00:00Z', resourceType: 'User' } });
    assert.notEqual(created.id, 'chosen-id');
    assert.notEqual(created.meta.created, '2001-01-01T00:00:00Z');
    const res = await t.scim('PATCH', `/Users/${created.id}`, {
      body: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'meta.created', value: '2001-01-01T00:00:00Z' }],
      },
    });
    assertScimError(res, 400, 'mutability');
  });
  it('oversize bodies are 413 with a SCIM body', async () => {
    await refused(undefined, 413, undefined, JSON.stringify({ ...userBody('big'), title: 'x'.repeat(1_000_001) }));
  });
  it('application/json is accepted as well as application/scim+json; responses are application/scim+json', async () => {
    const res = await t.scim('POST', '/Users', { body: userBody(unique('plainjson')), headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 201, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/scim\+json/);
  });
  it('a user of another organization or a machine user is 404', async () => {
    assertScimError(await t.scim('GET', `/Users/${t.callerId}`), 404);
    assertScimError(await t.scim('DELETE', `/Users/${t.callerId}`), 404);
  });
  it('a caller without ORG_USER_MANAGER is 403 with a SCIM body', async () => {
    const { createCaller } = await import('../support/fixtures.js');
    const plain = await createCaller(svc, t.orgId, {});
    assertScimError(await svc.api('GET', `${t.base}/Users`, { token: plain.token }), 403);
  });
});
