import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { searchEvents, unique, useService } from '../support/fixtures.js';
import { ENTERPRISE, PATCH_OP, USER_SCHEMA, assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

/** The request sequences Microsoft Entra ID and Okta send while provisioning, replayed end to end. */
describe('SCIM provisioning as Entra ID and Okta do it', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
  });

  const patch = (id: string, ...Operations: unknown[]) => t.scim('PATCH', `/Users/${id}`, { body: { schemas: [PATCH_OP], Operations } });
  const get = async (id: string) =>
    (await t.scim('GET', `/Users/${id}?attributes=userName,name,emails,phoneNumbers,addresses,active,title,${ENTERPRISE},meta`)).body;
  const types = async (id: string) => (await searchEvents(svc, { aggregate_id: id, asc: true })).map((e) => e.type.type);

  it('Entra ID: existence checks by userName and externalId, create, then PATCH variants', async () => {
    const userName = `${unique('entra')}@contoso.com`;
    const externalId = unique('ext');
    for (const filter of [`userName eq "${userName}"`, `externalId eq "${externalId}"`]) {
      const res = await t.scim('GET', `/Users?filter=${encodeURIComponent(filter)}&startIndex=1&count=100`);
      assert.equal(res.body.totalResults, 0);
    }
    const created = await createUser(t, {
      schemas: [USER_SCHEMA, ENTERPRISE],
      externalId,
      userName,
      active: true,
      displayName: 'Entra User',
      emails: [{ primary: true, type: 'work', value: userName }],
      name: { formatted: 'Entra User', familyName: 'User', givenName: 'Entra' },
      [ENTERPRISE]: { employeeNumber: '1', department: 'Sales' },
      password: 'p@ssw0rd-entra',
    });
    const found = await t.scim('GET', `/Users?filter=${encodeURIComponent(`externalId eq "${externalId}"`)}`);
    assert.equal(found.body.Resources[0].id, created.id);

    const res = await patch(
      created.id,
      { op: 'Replace', path: 'active', value: 'False' },
      { op: 'Add', path: 'emails[type eq "home"].value', value: 'home@contoso.com' },
      { op: 'Replace', path: 'name.givenName', value: 'Entra2' },
      { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 (555) 010-0200' },
      { op: 'Replace', path: `${ENTERPRISE}:department`, value: 'Marketing' },
      { op: 'Add', path: `${ENTERPRISE}:manager`, value: 'manager-id' },
      { op: 'Replace', path: 'addresses[type eq "work"].locality', value: 'Redmond' },
    );
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');
    let user = await get(created.id);
    assert.equal(user.active, false);
    assert.equal(user.name.givenName, 'Entra2');
    assert.deepEqual(user.emails, [
      { value: userName, type: 'work', primary: true },
      { value: 'home@contoso.com', type: 'home', primary: false },
    ]);
    assert.deepEqual(user.phoneNumbers, [{ value: '+15550100200', type: 'mobile', primary: false }]);
    assert.deepEqual(user[ENTERPRISE], { employeeNumber: '1', department: 'Marketing', manager: { value: 'manager-id' } });
    assert.deepEqual(user.addresses, [{ type: 'work', locality: 'Redmond' }]);

    assert.equal((await patch(created.id, { op: 'Remove', path: 'emails[type eq "home"]' })).status, 204);
    assert.equal((await patch(created.id, { op: 'replace', path: 'active', value: 'True' })).status, 204);
    user = await get(created.id);
    assert.equal(user.emails.length, 1);
    assert.equal(user.active, true);

    const seen = await types(created.id);
    for (const type of [
      'user.human.added',
      'user.human.profile.changed',
      'user.human.email.changed',
      'user.human.phone.changed',
      'user.deactivated',
      'user.reactivated',
    ]) {
      assert.ok(seen.includes(type), `${type} in ${seen.join()}`);
    }
    const events = await searchEvents(svc, { aggregate_id: created.id });
    assert.ok(events.every((e) => e.editor.userId === t.callerId));
    assert.ok(
      events.every((e) => !JSON.stringify(e.payload).includes('p@ssw0rd')),
      'no password in any event',
    );
  });

  it('path-less replace with plain, dotted and URN-qualified keys; path-less deactivate', async () => {
    const created = await createUser(t, userBody(unique('pathless')));
    const res = await patch(created.id, {
      op: 'replace',
      value: { 'name.familyName': 'Dotted', [`${USER_SCHEMA}:title`]: 'Qualified', displayName: 'Plain', [`${ENTERPRISE}:costCenter`]: 'CC', active: false },
    });
    assert.equal(res.status, 204, res.text);
    const user = await get(created.id);
    assert.equal(user.name.familyName, 'Dotted');
    assert.equal(user.name.formatted, 'Barbara Dotted', 'a derived formatted name follows its parts');
    assert.equal(user.title, 'Qualified');
    assert.deepEqual(user[ENTERPRISE], { costCenter: 'CC' });
    assert.equal(user.active, false);
    assert.ok((await types(created.id)).includes('user.deactivated'));
  });

  it('Okta: GET then full PUT, deactivate by path-less PATCH, password change', async () => {
    const created = await createUser(t, { ...userBody(unique('okta')), password: 't1meMachine!' });
    const current = (await t.scim('GET', `/Users/${created.id}`)).body;
    const put = await t.scim('PUT', `/Users/${created.id}`, { body: { ...current, name: { givenName: 'New', familyName: 'Name' }, password: 'n3wPassword!' } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.name.givenName, 'New');
    assert.equal(put.body.password, undefined);
    assert.equal((await patch(created.id, { op: 'replace', value: { active: false } })).status, 204);
    assert.equal((await patch(created.id, { op: 'replace', value: { password: 'an0therPassword' } })).status, 204);
    assert.equal((await patch(created.id, { op: 'replace', path: 'password', value: 'yet-an0ther-one' })).status, 204);
    const seen = await types(created.id);
    assert.equal(seen.filter((x) => x === 'user.human.password.changed').length, 3, seen.join());
    assert.ok(seen.includes('user.deactivated'));
  });

  it('a new primary demotes the old one (RFC 7644 §3.5.2); op names in any case', async () => {
    const created = await createUser(t, userBody(unique('primary')));
    const res = await patch(created.id, { op: 'ADD', path: 'emails', value: [{ value: 'second@example.com', type: 'home', primary: true }] });
    assert.equal(res.status, 204, res.text);
    const user = await get(created.id);
    assert.deepEqual(
      user.emails.map((e: any) => [e.value, e.primary]),
      [
        [created.emails[0].value, false],
        ['second@example.com', true],
      ],
    );
    const [row] = await svc.dataSource.query('SELECT email FROM users WHERE id = ?', [created.id]);
    assert.equal(row.email, 'second@example.com');
  });

  it('remove of preferredLanguage leaves it unassigned, not the organization default', async () => {
    const created = await createUser(t, { ...userBody(unique('lang')), preferredLanguage: 'de-CH' });
    const read = async () => (await t.scim('GET', `/Users/${created.id}`)).body;
    assert.equal((await read()).preferredLanguage, 'de-CH');
    const res = await patch(created.id, { op: 'remove', path: 'preferredLanguage' });
    assert.equal(res.status, 204, res.text);
    assert.ok(!('preferredLanguage' in (await read())), 'absent from the resource');
    const unassigned = await t.scim('GET', `/Users?filter=${encodeURIComponent(`id eq "${created.id}" and preferredLanguage pr`)}`);
    assert.equal(unassigned.body.totalResults, 0);
  });

  it('bad PATCH requests change nothing: 400 with the RFC scimType', async () => {
    const created = await createUser(t, userBody(unique('badpatch')));
    const before = await get(created.id);
    const cases: [unknown, string][] = [
      [{ op: 'replace', path: 'id', value: 'other' }, 'mutability'],
      [{ op: 'replace', path: 'emails[type eq', value: 'x' }, 'invalidPath'],
      [{ op: 'remove' }, 'noTarget'],
      [{ op: 'replace', path: 'active', value: 'maybe' }, 'invalidValue'],
      [{ op: 'replace', path: 'nonsense', value: 'x' }, 'invalidSyntax'],
      [{ op: 'remove', path: 'userName' }, 'mutability'],
      // Removing `active` used to be ignored with 204.
      [{ op: 'remove', path: 'active' }, 'mutability'],
      [{ op: 'frobnicate', path: 'title', value: 'x' }, 'invalidSyntax'],
    ];
    for (const [operation, scimType] of cases)
      assertScimError(await patch(created.id, { op: 'replace', path: 'title', value: 'changed' }, operation), 400, scimType);
    assertScimError(
      await t.scim('PATCH', `/Users/${created.id}`, { body: { Operations: [{ op: 'replace', path: 'title', value: 'x' }] } }),
      400,
      'invalidSyntax',
    );
    assert.deepEqual(await get(created.id), before);
    assertScimError(await patch('no-such-user', { op: 'replace', path: 'title', value: 'x' }), 404);
  });
});
