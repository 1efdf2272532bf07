import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countRows, createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';

describe('admin API: organizations', () => {
  const svc = useService();

  it('lists the bootstrapped default organization to the admin client', async () => {
    const res = await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.orgs.map((o: { name: string; primaryDomain: string }) => [o.name, o.primaryDomain]),
      [['default', 'default.localhost']],
    );
  });

  it('creates an organization with a slugged primary domain and writes org.added', async () => {
    const res = await svc.api('POST', '/admin/v1/orgs', { token: svc.adminToken, body: { name: 'Über ACME & Co.' } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['id', 'name', 'primaryDomain']);
    assert.equal(res.body.name, 'Über ACME & Co.');
    assert.equal(res.body.primaryDomain, 'uber-acme-co.localhost');

    const listed = await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken });
    assert.ok(listed.body.orgs.some((o: { id: string }) => o.id === res.body.id));

    const [event] = await searchEvents(svc, { event_types: ['org.added'], aggregate_id: res.body.id });
    assert.equal(event.type.type, 'org.added');
    assert.equal(event.type.localized.key, 'EventTypes.org.added');
    assert.equal(event.aggregate.resourceOwner, res.body.id);
    assert.deepEqual(event.payload, { name: 'Über ACME & Co.', primaryDomain: 'uber-acme-co.localhost' });
  });

  it('refuses a second organization with the same primary domain (409) and writes nothing', async () => {
    const name = unique('Twin');
    await createOrg(svc, name);
    const before = [await countRows(svc, 'organizations'), await countRows(svc, 'events')];
    const res = await svc.api('POST', '/admin/v1/orgs', { token: svc.adminToken, body: { name: name.toUpperCase() } });
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 409);
    assert.match(res.body.message, /primary domain/);
    assert.deepEqual([await countRows(svc, 'organizations'), await countRows(svc, 'events')], before);
  });

  it('answers bad bodies with 400 naming each field, and changes nothing', async () => {
    const before = await countRows(svc, 'organizations');
    const cases: Array<[unknown, string]> = [
      [{}, 'name'],
      [{ name: 42 }, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 'ok', color: 'red' }, 'color'],
    ];
    for (const [body, field] of cases) {
      const res = await svc.api('POST', '/admin/v1/orgs', { token: svc.adminToken, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 400);
      assert.ok(
        res.body.details.some((d: { field: string }) => d.field === field),
        `${JSON.stringify(body)} → ${res.text}`,
      );
    }
    const malformed = await svc.api('POST', '/admin/v1/orgs', { token: svc.adminToken, rawBody: '{"name": "x"' });
    assert.equal(malformed.status, 400);
    assert.match(malformed.body.message, /malformed JSON/);

    const oversized = await svc.api('POST', '/admin/v1/orgs', { token: svc.adminToken, body: { name: 'y'.repeat(1_100_000) } });
    assert.equal(oversized.status, 413);
    assert.match(oversized.body.message, /limit of 1000000 bytes/);
    assert.equal(await countRows(svc, 'organizations'), before);
  });

  it('answers 401 without a valid token, with WWW-Authenticate', async () => {
    for (const token of [undefined, 'not-a-token', '']) {
      const res = await svc.api('GET', '/admin/v1/orgs', token === undefined ? {} : { token });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { code: 401, message: 'a valid bearer token is required', details: [] });
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    }
  });

  it('answers 403 to a caller without IAM_OWNER, and creates nothing', async () => {
    const org = await createOrg(svc);
    const owner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
    const before = await countRows(svc, 'organizations');
    assert.equal((await svc.api('GET', '/admin/v1/orgs', { token: owner.token })).status, 403);
    const res = await svc.api('POST', '/admin/v1/orgs', { token: owner.token, body: { name: unique('nope') } });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /IAM_OWNER/);
    assert.equal(await countRows(svc, 'organizations'), before);
  });

  it('records the calling user as the editor of the event', async () => {
    const org = await createOrg(svc);
    const iam = await createCaller(svc, org.id, { instance: ['IAM_OWNER'] });
    const res = await svc.api('POST', '/admin/v1/orgs', { token: iam.token, body: { name: unique('by-iam') } });
    assert.equal(res.status, 201);
    const [event] = await searchEvents(svc, { aggregate_id: res.body.id, event_types: ['org.added'] });
    assert.equal(event.editor.userId, iam.userId);
  });
});
