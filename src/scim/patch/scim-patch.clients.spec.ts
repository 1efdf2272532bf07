/** The PATCH shapes Microsoft Entra ID and Okta actually send when provisioning. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, type PatchOperation } from './scim-patch.engine.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

function user(): Record<string, unknown> {
  return {
    schemas: [CORE_USER],
    id: '2819c223',
    externalId: 'ext-1',
    userName: 'bjensen@example.com',
    active: true,
    name: { givenName: 'Barbara', familyName: 'Jensen' },
    emails: [{ type: 'home', value: 'babs@example.org', primary: true }],
    meta: { resourceType: 'User', created: '2024-01-01T00:00:00Z' },
  };
}

const patch = (resource: Record<string, unknown>, ...ops: PatchOperation[]): Record<string, unknown> => applyPatch(resource, ops);

describe('Microsoft Entra ID PATCH shapes', () => {
  it('{"op":"Replace","path":"active","value":"False"} stores a boolean', () => {
    assert.equal(patch(user(), { op: 'Replace', path: 'active', value: 'False' })['active'], false);
    assert.equal(patch(user(), { op: 'Replace', path: 'active', value: false })['active'], false);
    assert.equal(patch({ ...user(), active: false }, { op: 'Replace', path: 'active', value: 'True' })['active'], true);
  });

  it('{"op":"Add","path":"emails[type eq \\"work\\"].value"} creates the work email when there is none', () => {
    const result = patch(user(), { op: 'Add', path: 'emails[type eq "work"].value', value: 'x@y' });
    assert.deepEqual(result['emails'], [
      { type: 'home', value: 'babs@example.org', primary: true },
      { type: 'work', value: 'x@y' },
    ]);
  });

  it('…and updates it when there is one', () => {
    const withWork = patch(user(), { op: 'Add', path: 'emails[type eq "work"].value', value: 'x@y' });
    const result = patch(withWork, { op: 'Replace', path: 'emails[type eq "work"].value', value: 'new@y' });
    assert.deepEqual(result['emails'], [
      { type: 'home', value: 'babs@example.org', primary: true },
      { type: 'work', value: 'new@y' },
    ]);
  });

  it('creates addresses and phone numbers from filtered paths', () => {
    const result = patch(
      user(),
      { op: 'Add', path: 'addresses[type eq "work"].streetAddress', value: '1 Main St' },
      { op: 'Add', path: 'addresses[type eq "work"].locality', value: 'Springfield' },
      { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+1 555 0100' },
      { op: 'Add', path: 'phoneNumbers[type eq "work"].value', value: '+1 555 0199' },
    );
    assert.deepEqual(result['addresses'], [{ type: 'work', streetAddress: '1 Main St', locality: 'Springfield' }]);
    assert.deepEqual(result['phoneNumbers'], [
      { type: 'mobile', value: '+1 555 0100' },
      { type: 'work', value: '+1 555 0199' },
    ]);
  });

  it('path-less {"op":"replace","value":{"active":false}}', () => {
    assert.equal(patch(user(), { op: 'replace', value: { active: false } })['active'], false);
  });

  it('path-less replace with dotted and URN-qualified keys', () => {
    const result = patch(user(), {
      op: 'replace',
      value: { 'name.givenName': 'A', [`${ENTERPRISE}:department`]: 'D' },
    });
    assert.deepEqual(result['name'], { givenName: 'A', familyName: 'Jensen' });
    assert.deepEqual(result[ENTERPRISE], { department: 'D' });
    assert.deepEqual(result['schemas'], [CORE_USER, ENTERPRISE]);
  });

  it('{"op":"Add","path":"…:manager","value":"m-id"} stores the manager as {value}', () => {
    const result = patch(user(), { op: 'Add', path: `${ENTERPRISE}:manager`, value: 'm-id' });
    assert.deepEqual(result[ENTERPRISE], { manager: { value: 'm-id' } });
    const again = patch(result, { op: 'Replace', path: `${ENTERPRISE}:manager`, value: { value: 'm-2' } });
    assert.deepEqual(again[ENTERPRISE], { manager: { value: 'm-2' } });
    const removed = patch(again, { op: 'Remove', path: `${ENTERPRISE}:manager` });
    assert.equal(removed[ENTERPRISE], undefined);
    assert.deepEqual(removed['schemas'], [CORE_USER]);
  });

  it('replaces several attributes in one request, as Entra does', () => {
    const result = patch(
      user(),
      { op: 'Replace', path: 'userName', value: 'new@example.com' },
      { op: 'Replace', path: 'name.familyName', value: 'Smith' },
      { op: 'Add', path: 'title', value: 'Engineer' },
      { op: 'Replace', path: 'externalId', value: 'ext-2' },
      { op: 'Add', path: `${ENTERPRISE}:employeeNumber`, value: '42' },
    );
    assert.equal(result['userName'], 'new@example.com');
    assert.deepEqual(result['name'], { givenName: 'Barbara', familyName: 'Smith' });
    assert.equal(result['title'], 'Engineer');
    assert.equal(result['externalId'], 'ext-2');
    assert.deepEqual(result[ENTERPRISE], { employeeNumber: '42' });
  });

  it('adds roles whose primary is the string "True"', () => {
    const result = patch(user(), { op: 'Add', path: 'roles', value: [{ primary: 'True', type: 'WindowsAzureActiveDirectoryRole', value: 'Admin' }] });
    assert.deepEqual(result['roles'], [{ primary: true, type: 'WindowsAzureActiveDirectoryRole', value: 'Admin' }]);
  });

  it('adds and removes group members ({"$ref":null,"value":id})', () => {
    const group = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], id: 'g1', displayName: 'Ops', members: [{ value: 'u1' }] };
    const added = applyPatch(group, [{ op: 'Add', path: 'members', value: [{ $ref: null, value: 'u2' }, { value: 'u1' }] }]);
    assert.deepEqual(added['members'], [{ value: 'u1' }, { value: 'u2' }]);
    const removed = applyPatch(added, [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: 'u1' }] }]);
    assert.deepEqual(removed['members'], [{ value: 'u2' }]);
    const filtered = applyPatch(removed, [{ op: 'Remove', path: 'members[value eq "u2"]' }]);
    assert.equal(filtered['members'], undefined);
  });

  it("accepts the Microsoft reference collection's bare member id", () => {
    const group = { id: 'g1', displayName: 'Ops' };
    assert.deepEqual(applyPatch(group, [{ op: 'add', path: 'members', value: 'string id 1' }])['members'], [{ value: 'string id 1' }]);
  });
});

describe('Okta PATCH shapes', () => {
  it('{"op":"replace","value":{"active":false}} deactivates', () => {
    assert.equal(patch(user(), { op: 'replace', value: { active: false } })['active'], false);
  });

  it('{"op":"replace","value":{"password":"x"}} sets the password attribute', () => {
    assert.equal(patch(user(), { op: 'replace', value: { password: 'x' } })['password'], 'x');
  });

  it('renames a group with a path-less replace that echoes the id', () => {
    const group = { id: 'g1', displayName: 'Old' };
    assert.deepEqual(applyPatch(group, [{ op: 'replace', value: { id: 'g1', displayName: 'New' } }]), { id: 'g1', displayName: 'New' });
  });

  it('adds a member with display and removes it with a filter', () => {
    const group = { id: 'g1', displayName: 'Ops' };
    const added = applyPatch(group, [{ op: 'add', path: 'members', value: [{ value: '00u1', display: 'a@example.com' }] }]);
    assert.deepEqual(added['members'], [{ value: '00u1', display: 'a@example.com' }]);
    assert.deepEqual(applyPatch(added, [{ op: 'remove', path: 'members[value eq "00u1"]' }]), group);
  });
});
