import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { BCRYPT_HASH, humanUser, importBody, importedIds, postImport, storedCounts, storedHash, userErrors } from './import.helpers.js';

/** docs/product-rules.md, "Import and event search": import organizations with users and password hashes, then find them by event search. */
describe('POST /admin/v1/import round trip', () => {
  const svc = useService();

  it('imports into an existing organization: its error entry, users added, hashes stored as given', async () => {
    const org = await createOrg(svc);
    const ids = [unique('u'), unique('u')];
    const response = await postImport(svc, importBody([{ orgId: org.id, humanUsers: ids.map((id) => humanUser(id)) }], '1m30s'));

    assert.deepEqual(response.success.orgs, [{ orgId: org.id, humanUserIds: ids }]);
    assert.deepEqual(response.errors, [{ type: 'org', id: org.id, message: 'the organization already exists; its users are added to it' }]);
    for (const id of ids) assert.equal(await storedHash(svc, id), BCRYPT_HASH, 'the hash is stored as given');
    assert.deepEqual(await storedCounts(svc, org.id), { users: 2, events: 2 });
  });

  it('event search lists each user.human.added with displayName, email and userName, and no hash (rule 5)', async () => {
    const org = await createOrg(svc);
    const id = unique('u');
    const userName = unique('ann');
    await postImport(
      svc,
      importBody([{ orgId: org.id, humanUsers: [humanUser(id, userName, { profile: { firstName: 'Ann', lastName: 'Lee', displayName: 'Ann L.' } })] }]),
    );

    const events = await searchEvents(svc, { asc: true, limit: 1000, event_types: ['user.human.added'], resource_owner: org.id });
    assert.equal(events.length, 1);
    const [event] = events;
    assert.equal(event.type.type, 'user.human.added');
    assert.equal(event.type.localized.key, 'EventTypes.user.human.added');
    assert.deepEqual(event.aggregate.id, id);
    assert.deepEqual(event.aggregate.resourceOwner, org.id);
    assert.match(event.creationDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    assert.equal(event.payload.displayName, 'Ann L.');
    assert.equal(event.payload.email, `${userName}@example.com`);
    assert.equal(event.payload.userName, userName);
    assert.ok(!JSON.stringify(event).includes(BCRYPT_HASH.slice(7)), 'no hash in the event');
    assert.ok(!('hashedPassword' in event.payload) && !('password' in event.payload));
  });

  it('creates a missing organization with the given id and name, with its org.added event', async () => {
    const orgId = unique('org-id');
    const name = unique('Imported Org');
    const id = unique('u');
    const response = await postImport(svc, importBody([{ orgId, org: { name }, humanUsers: [humanUser(id)] }]));

    assert.deepEqual(response, { success: { orgs: [{ orgId, humanUserIds: [id] }] }, errors: [] });
    const orgs = await svc.api('GET', '/admin/v1/orgs', { token: svc.adminToken });
    assert.deepEqual(
      orgs.body.orgs.find((o: { id: string }) => o.id === orgId),
      { id: orgId, name, primaryDomain: `${name.toLowerCase().replace(/[^a-z0-9]/g, '-')}.localhost` },
    );
    const added = await searchEvents(svc, { event_types: ['org.added'], aggregate_id: orgId });
    assert.equal(added.length, 1);
  });

  it('stores the optional profile fields, phone, a plain password (hashed) and passwordChangeRequired', async () => {
    const org = await createOrg(svc);
    const id = unique('u');
    const item = humanUser(id, unique('full'), {
      profile: { firstName: 'Max', lastName: 'Muster', nickName: 'maxi', displayName: 'Max M.', preferredLanguage: 'de-CH', gender: 'GENDER_MALE' },
      phone: { phone: '+41 79 123 45 67', isPhoneVerified: true },
      hashedPassword: undefined,
      password: 'a plain password',
      passwordChangeRequired: true,
    });
    const response = await postImport(svc, importBody([{ orgId: org.id, humanUsers: [item] }]));
    assert.deepEqual(importedIds(response), [id]);

    const [row] = await svc.dataSource.query(
      'SELECT nick_name, display_name, preferred_language, gender, phone, phone_verified, password_hash, password_change_required FROM users WHERE id = ?',
      [id],
    );
    assert.equal(row.nick_name, 'maxi');
    assert.equal(row.display_name, 'Max M.');
    assert.equal(row.preferred_language, 'de-CH');
    assert.equal(row.gender, 'male');
    assert.equal(row.phone, '+41791234567');
    assert.equal(Boolean(row.phone_verified), true);
    assert.equal(Boolean(row.password_change_required), true);
    assert.match(row.password_hash, /^\$2b\$04\$/, 'the plain password is hashed with bcrypt at the configured cost');
    const [event] = await searchEvents(svc, { event_types: ['user.human.added'], aggregate_id: id });
    assert.equal(event.payload.phone, '+41791234567');
    assert.ok(!JSON.stringify(event.payload).includes('a plain password'));
  });

  it('makes imported users visible to SCIM provisioning clients, by id and by an e-mail filter', async () => {
    const orgId = unique('scim');
    const id = unique('u');
    const userName = unique('scimmed');
    await postImport(svc, importBody([{ orgId, org: { name: orgId }, humanUsers: [humanUser(id, userName)] }]));
    const headers = { accept: 'application/scim+json' };
    const read = await svc.api('GET', `/scim/v2/${orgId}/Users/${id}`, { token: svc.adminToken, headers });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.userName, userName);
    const filter = encodeURIComponent(`emails.value eq "${userName.toUpperCase()}@EXAMPLE.COM"`);
    const found = await svc.api('GET', `/scim/v2/${orgId}/Users?filter=${filter}`, { token: svc.adminToken, headers });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(
      found.body.Resources.map((r: { id: string }) => r.id),
      [id],
    );
  });

  it('a re-run reports the users that exist as errors and adds only the missing ones', async () => {
    const orgId = unique('rerun');
    const first = [unique('u'), unique('u')];
    const body = (ids: string[]) => importBody([{ orgId, org: { name: orgId }, humanUsers: ids.map((id) => humanUser(id)) }]);
    await postImport(svc, body(first));

    const added = unique('u');
    const rerun = await postImport(svc, body([...first, added]));
    assert.deepEqual(importedIds(rerun, orgId), [added]);
    assert.deepEqual(rerun.errors[0], { type: 'org', id: orgId, message: 'the organization already exists; its users are added to it' });
    const errors = userErrors(rerun);
    assert.deepEqual([...errors.keys()].sort(), [...first].sort());
    for (const id of first) assert.equal(errors.get(id), `a user with id "${id}" already exists`);
    assert.deepEqual(await storedCounts(svc, orgId), { users: 3, events: 3 });
  });

  it('imports several organizations in one request, each user with exactly one event', async () => {
    const orgs = [unique('multi'), unique('multi'), unique('multi')];
    const users = orgs.map(() => Array.from({ length: 1200 }, () => humanUser(unique('u'))));
    const response = await postImport(svc, importBody(orgs.map((orgId, i) => ({ orgId, humanUsers: users[i] }))));
    assert.deepEqual(response.errors, []);
    for (const [i, orgId] of orgs.entries()) {
      assert.deepEqual(
        importedIds(response, orgId),
        users[i].map((u) => u.userId),
      );
      assert.deepEqual(await storedCounts(svc, orgId), { users: 1200, events: 1200 });
    }
  });
});
