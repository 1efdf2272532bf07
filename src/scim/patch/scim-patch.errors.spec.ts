import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, type PatchOperation } from './scim-patch.engine.js';
import { ScimPatchError, type ScimPatchErrorType } from './scim-patch.errors.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

function user(): Record<string, unknown> {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    id: 'u1',
    userName: 'bjensen',
    name: { givenName: 'B' },
    emails: [{ type: 'work', value: 'w@x', primary: true }],
    meta: { created: '2024-01-01T00:00:00Z' },
  };
}

function assertPatchError(ops: unknown, scimType: ScimPatchErrorType, message: RegExp, resource: unknown = user()): void {
  const before = structuredClone(resource);
  assert.throws(
    () => applyPatch(resource as Record<string, unknown>, ops as PatchOperation[]),
    (e: unknown) => {
      assert.ok(e instanceof ScimPatchError, `expected ScimPatchError, got ${String(e)}`);
      assert.equal(e.scimType, scimType, e.message);
      assert.equal(e.status, 400);
      assert.match(e.message, message);
      return true;
    },
  );
  assert.deepEqual(resource, before, 'a failed PATCH leaves the resource unchanged');
}

describe('ScimPatchError: invalidSyntax', () => {
  it('rejects a missing or empty Operations array', () => {
    assertPatchError([], 'invalidSyntax', /one or more PATCH operations/);
    assertPatchError(undefined, 'invalidSyntax', /one or more PATCH operations/);
    assertPatchError({ op: 'add' }, 'invalidSyntax', /one or more PATCH operations/);
  });

  it('rejects operations that are not objects or have an unknown op', () => {
    assertPatchError(['add'], 'invalidSyntax', /Operations\[0\]: Each PATCH operation must be a JSON object/);
    assertPatchError([{ path: 'title', value: 'x' }], 'invalidSyntax', /"op" must be "add", "remove" or "replace".*got undefined/);
    assertPatchError([{ op: 'delete', path: 'title' }], 'invalidSyntax', /got "delete"/);
    assertPatchError([{ op: 'copy', path: 'title' }], 'invalidSyntax', /"op" must be/);
  });

  it('rejects a resource that is not an object', () => {
    assertPatchError([{ op: 'add', path: 'title', value: 'x' }], 'invalidSyntax', /must be a JSON object/, ['not', 'an', 'object']);
  });
});

describe('ScimPatchError: invalidPath', () => {
  it('reports malformed paths with the parser position', () => {
    assertPatchError([{ op: 'add', path: 'emails[type eq "work"', value: 'x' }], 'invalidPath', /Invalid path at position 21/);
    assertPatchError([{ op: 'add', path: 'name.givenName.x', value: 'x' }], 'invalidPath', /more than one sub-attribute level/);
    assertPatchError([{ op: 'remove', path: 'emails[type eq work]' }], 'invalidPath', /double quotes/);
    assertPatchError([{ op: 'add', path: 42, value: 'x' }], 'invalidPath', /"path" must be a string/);
  });

  it('reports paths into structures that do not exist', () => {
    assertPatchError([{ op: 'add', path: 'userName.first', value: 'x' }], 'invalidPath', /'userName' is not a complex attribute/);
    assertPatchError([{ op: 'remove', path: 'userName.first' }], 'invalidPath', /'userName' is not a complex attribute/);
    assertPatchError([{ op: 'add', path: 'name[givenName eq "B"].x', value: 'x' }], 'invalidPath', /'name' is single-valued/);
    assertPatchError([{ op: 'remove', path: 'userName[value eq "x"]' }], 'invalidPath', /'userName' is single-valued/);
    assertPatchError([{ op: 'add', path: 'name.givenName[x eq "y"]', value: 'x' }], 'invalidPath', /must follow an attribute, not a sub-attribute/);
  });

  it('reports unknown schema URNs and paths continuing after a schema URN', () => {
    assertPatchError([{ op: 'add', path: 'urn:example:unknown:1.0:User:x', value: 'x' }], 'invalidPath', /unknown schema 'urn:example:unknown:1.0:User'/);
    assertPatchError([{ op: 'add', path: `${ENTERPRISE}[department eq "x"]`, value: {} }], 'invalidPath', /continues after the schema URN/);
    assertPatchError([{ op: 'remove', path: 'urn:ietf:params:scim:schemas:core:2.0:User' }], 'invalidPath', /core schema .* cannot be removed/);
    assertPatchError([{ op: 'add', path: ENTERPRISE, value: { 'a:b': 1 } }], 'invalidPath', /'a:b' .* is not an attribute name/);
    assertPatchError([{ op: 'add', path: 'urn:ietf:params:scim:schemas:core:2.0:User:userName.x', value: 'x' }], 'invalidPath', /not a complex attribute/);
  });

  it('reports a bad key in a path-less value object', () => {
    assertPatchError([{ op: 'replace', value: { 'bad key': 1 } }], 'invalidPath', /expected '\[' or end of path but found 'key' \(path 'bad key'\)/);
  });

  it('reports an extension key that does not hold an object', () => {
    assertPatchError([{ op: 'add', path: `${ENTERPRISE}:department`, value: 'D' }], 'invalidPath', /is not an object of extension attributes/, {
      ...user(),
      [ENTERPRISE]: 'oops',
    });
  });
});

describe('ScimPatchError: noTarget', () => {
  it('rejects remove without a path (RFC 7644 §3.5.2.2)', () => {
    assertPatchError([{ op: 'remove' }], 'noTarget', /"remove" requires a "path"/);
    assertPatchError([{ op: 'remove', path: '  ' }], 'noTarget', /"remove" requires a "path"/);
    assertPatchError([{ op: 'remove', value: { title: 'x' } }], 'noTarget', /requires a "path"/);
  });

  it('rejects a filter that matches nothing and cannot describe a new value', () => {
    assertPatchError(
      [{ op: 'replace', path: 'emails[value co "nobody"].type', value: 'x' }],
      'noTarget',
      /matched no value; a value can only be created from 'eq'/,
    );
    assertPatchError([{ op: 'add', path: 'emails[type eq "a" or type eq "b"].value', value: 'x' }], 'noTarget', /matched no value/);
    assertPatchError([{ op: 'add', path: 'emails[not (type eq "work")].value', value: 'x' }], 'noTarget', /matched no value/);
    assertPatchError([{ op: 'add', path: 'emails[type eq null].value', value: 'x' }], 'noTarget', /matched no value/);
  });
});

describe('ScimPatchError: invalidValue', () => {
  it('requires a value for add and replace', () => {
    assertPatchError([{ op: 'add', path: 'title' }], 'invalidValue', /"add" requires a "value"/);
    assertPatchError([{ op: 'replace' }], 'invalidValue', /"replace" requires a "value"/);
    assertPatchError([{ op: 'add', path: 'title', value: null }], 'invalidValue', /needs a value, not null/);
  });

  it('requires an object for path-less operations and schema URNs', () => {
    assertPatchError([{ op: 'add', value: 'x' }], 'invalidValue', /without a "path" needs an object value/);
    assertPatchError([{ op: 'replace', value: [{ title: 'x' }] }], 'invalidValue', /needs an object value/);
    assertPatchError([{ op: 'add', path: ENTERPRISE, value: 'x' }], 'invalidValue', /must be an object of attributes/);
  });

  it('rejects non-boolean values for boolean attributes', () => {
    assertPatchError([{ op: 'replace', path: 'active', value: 'yes' }], 'invalidValue', /'active' is a boolean; got "yes"/);
    assertPatchError([{ op: 'replace', value: { active: 1 } }], 'invalidValue', /'active' is a boolean; got 1/);
    assertPatchError([{ op: 'add', path: 'emails', value: { value: 'a@x', primary: 'y' } }], 'invalidValue', /'emails.primary' is a boolean/);
  });

  it('rejects more than one primary value (RFC 7643 §2.4)', () => {
    const two = [
      { value: 'a@x', primary: true },
      { value: 'b@x', primary: 'True' },
    ];
    assertPatchError([{ op: 'replace', path: 'emails', value: two }], 'invalidValue', /More than one value of 'emails' would have "primary": true/);
    assertPatchError([{ op: 'add', path: 'emails', value: two }], 'invalidValue', /More than one value/);
    const twoWork = {
      ...user(),
      emails: [
        { type: 'work', value: 'a' },
        { type: 'work', value: 'b' },
      ],
    };
    assertPatchError([{ op: 'add', path: 'emails[type eq "work"].primary', value: true }], 'invalidValue', /More than one value/, twoWork);
  });

  it('rejects values of the wrong shape for a filtered path', () => {
    assertPatchError([{ op: 'add', path: 'emails[type eq "home"]', value: 'x' }], 'invalidValue', /must be an object of sub-attributes/);
    assertPatchError([{ op: 'replace', path: 'emails[type eq "work"]', value: 'x' }], 'invalidValue', /must be an object of sub-attributes/);
    assertPatchError([{ op: 'add', path: 'emails[type eq "work"]', value: 'x' }], 'invalidValue', /must be an object of sub-attributes/);
    assertPatchError([{ op: 'remove', path: 'emails', value: {} }], 'invalidValue', /An empty object cannot select values/);
  });
});

describe('ScimPatchError: mutability', () => {
  it('rejects changes to read-only attributes: id, meta, schemas, groups', () => {
    assertPatchError([{ op: 'replace', path: 'id', value: 'u2' }], 'mutability', /'id' is read-only and cannot be modified/);
    assertPatchError([{ op: 'replace', value: { id: 'u2' } }], 'mutability', /'id' is read-only/);
    assertPatchError([{ op: 'remove', path: 'id' }], 'mutability', /'id' is read-only and cannot be removed/);
    assertPatchError([{ op: 'replace', path: 'meta.created', value: '2020-01-01T00:00:00Z' }], 'mutability', /'meta.created' is read-only/);
    assertPatchError([{ op: 'add', path: 'schemas', value: ['urn:example:other'] }], 'mutability', /'schemas' is read-only/);
    assertPatchError([{ op: 'add', path: 'groups', value: [{ value: 'g1' }] }], 'mutability', /'groups' is read-only/);
  });

  it('rejects removing a required attribute, also by replacing it with null', () => {
    assertPatchError([{ op: 'remove', path: 'userName' }], 'mutability', /'userName' is required and cannot be removed/);
    assertPatchError([{ op: 'replace', path: 'userName', value: null }], 'mutability', /required/);
  });
});

describe('ScimPatchError: reporting', () => {
  it('names the failing operation and leaves earlier operations unapplied', () => {
    const resource = user();
    assert.throws(
      () =>
        applyPatch(resource, [
          { op: 'replace', path: 'userName', value: 'new' },
          { op: 'remove', path: 'id' },
        ]),
      (e: unknown) => e instanceof ScimPatchError && e.operationIndex === 1 && e.message.startsWith('Operations[1]: ') && e.name === 'ScimPatchError',
    );
    assert.equal(resource['userName'], 'bjensen');
  });
});
