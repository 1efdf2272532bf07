import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, type PatchOperation } from './scim-patch.engine.js';
import type { ApplyPatchOptions } from './scim-patch.schema.js';

function user(): Record<string, unknown> {
  return {
    id: 'u1',
    userName: 'bjensen',
    name: { givenName: 'Barbara', familyName: 'Jensen' },
    emails: [
      { type: 'work', value: 'bj@work.example', primary: true },
      { type: 'home', value: 'bj@home.example' },
    ],
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

const patch = (ops: PatchOperation[], options?: ApplyPatchOptions, resource = user()): Record<string, unknown> =>
  applyPatch(deepFreeze(resource), ops, options);

describe('applyPatch: general', () => {
  it('returns a new object and never mutates the input or the operation values', () => {
    const value = { type: 'other', value: 'x@y' };
    const input = deepFreeze(user());
    const result = applyPatch(input, [
      { op: 'add', path: 'emails', value },
      { op: 'replace', path: 'name.givenName', value: 'B' },
    ]);
    assert.notEqual(result, input);
    assert.deepEqual(input, user());
    const emails = result['emails'];
    assert.ok(Array.isArray(emails));
    assert.notEqual(emails[2], value, 'stored values are copies');
  });

  it('applies operations in order', () => {
    const result = patch([
      { op: 'add', path: 'title', value: 'A' },
      { op: 'replace', path: 'title', value: 'B' },
      { op: 'remove', path: 'title' },
      { op: 'add', path: 'title', value: 'C' },
    ]);
    assert.equal(result['title'], 'C');
  });

  it('accepts op names in any case', () => {
    const result = patch([
      { op: 'ADD', path: 'title', value: 'A' },
      { op: 'Replace', path: 'nickName', value: 'B' },
      { op: 'rEmOvE', path: 'name' },
    ]);
    assert.deepEqual([result['title'], result['nickName'], result['name']], ['A', 'B', undefined]);
  });
});

describe('applyPatch: case-insensitive attribute names', () => {
  it('patching "username" changes the existing userName key', () => {
    const result = patch([{ op: 'replace', path: 'username', value: 'alice' }]);
    assert.equal(result['userName'], 'alice');
    assert.equal(Object.keys(result).filter((k) => k.toLowerCase() === 'username').length, 1);
  });

  it('updates sub-attributes and filtered values regardless of case', () => {
    const result = patch([
      { op: 'replace', path: 'NAME.GIVENNAME', value: 'B' },
      { op: 'replace', path: 'Emails[Type eq "WORK"].Value', value: 'new@work.example' },
      { op: 'replace', value: { Name: { FamilyName: 'J' } } },
    ]);
    assert.deepEqual(result['name'], { givenName: 'B', familyName: 'J' });
    assert.deepEqual(result['emails'], [
      { type: 'work', value: 'new@work.example', primary: true },
      { type: 'home', value: 'bj@home.example' },
    ]);
  });

  it('uses the schema spelling for new keys', () => {
    const result = patch([
      { op: 'add', path: 'nickname', value: 'Babs' },
      { op: 'add', path: 'PHONENUMBERS[TYPE eq "work"].VALUE', value: '1' },
    ]);
    assert.equal(result['nickName'], 'Babs');
    assert.deepEqual(result['phoneNumbers'], [{ type: 'work', value: '1' }]);
  });
});

describe('applyPatch: add', () => {
  it('adds a new attribute and replaces a single-valued one', () => {
    const result = patch([
      { op: 'add', path: 'title', value: 'Tour Guide' },
      { op: 'add', path: 'userName', value: 'babs' },
    ]);
    assert.equal(result['title'], 'Tour Guide');
    assert.equal(result['userName'], 'babs');
  });

  it('merges sub-attributes into a complex attribute', () => {
    const result = patch([{ op: 'add', path: 'name', value: { middleName: 'J', givenName: 'Babs' } }]);
    assert.deepEqual(result['name'], { givenName: 'Babs', familyName: 'Jensen', middleName: 'J' });
  });

  it('appends to a multi-valued attribute without creating exact duplicates', () => {
    const result = patch([
      {
        op: 'add',
        path: 'emails',
        value: [
          { type: 'home', value: 'bj@home.example' },
          { type: 'other', value: 'o@x' },
        ],
      },
    ]);
    assert.deepEqual(result['emails'], [...(user()['emails'] as unknown[]), { type: 'other', value: 'o@x' }]);
  });

  it('creates a multi-valued attribute as an array, even from a single value', () => {
    const result = patch([{ op: 'add', path: 'ims', value: { type: 'xmpp', value: 'bj@jabber' } }]);
    assert.deepEqual(result['ims'], [{ type: 'xmpp', value: 'bj@jabber' }]);
  });

  it('adds sub-attributes to values selected by a filter, all of them', () => {
    const result = patch([{ op: 'add', path: 'emails[value ew ".example"]', value: { display: 'E' } }]);
    assert.deepEqual(result['emails'], [
      { type: 'work', value: 'bj@work.example', primary: true, display: 'E' },
      { type: 'home', value: 'bj@home.example', display: 'E' },
    ]);
  });

  it('creates a value from a filter of eq comparisons joined by and', () => {
    const result = patch([{ op: 'add', path: 'addresses[type eq "work" and primary eq true]', value: { locality: 'Paris' } }]);
    assert.deepEqual(result['addresses'], [{ type: 'work', primary: true, locality: 'Paris' }]);
  });
});

describe('applyPatch: replace', () => {
  it('replaces all values of a multi-valued attribute; [] or null unassigns it', () => {
    assert.deepEqual(patch([{ op: 'replace', path: 'emails', value: [{ value: 'only@x' }] }])['emails'], [{ value: 'only@x' }]);
    assert.equal(patch([{ op: 'replace', path: 'emails', value: [] }])['emails'], undefined);
    assert.equal(patch([{ op: 'replace', path: 'emails', value: null }])['emails'], undefined);
  });

  it('replacing with null unassigns an attribute; null sub-attributes are dropped', () => {
    const result = patch([{ op: 'replace', path: 'name', value: { givenName: null, middleName: 'J' } }]);
    assert.deepEqual(result['name'], { familyName: 'Jensen', middleName: 'J' });
    assert.equal(patch([{ op: 'replace', value: { name: null } }])['name'], undefined);
  });

  it('replaces every value matched by a filter', () => {
    const result = patch([{ op: 'replace', path: 'emails[type eq "home"]', value: { type: 'home', value: 'new@home' } }]);
    assert.deepEqual(result['emails'], [
      { type: 'work', value: 'bj@work.example', primary: true },
      { type: 'home', value: 'new@home' },
    ]);
  });

  it('treats a replace of a missing attribute as an add', () => {
    assert.equal(patch([{ op: 'replace', path: 'title', value: 'T' }])['title'], 'T');
    assert.deepEqual(patch([{ op: 'replace', path: 'x509Certificates.value', value: 'MII' }])['x509Certificates'], [{ value: 'MII' }]);
  });
});

describe('applyPatch: primary (at most one per multi-valued attribute)', () => {
  it('a new primary value clears the others', () => {
    const result = patch([{ op: 'add', path: 'emails', value: { type: 'other', value: 'o@x', primary: 'TRUE' } }]);
    assert.deepEqual(
      (result['emails'] as Record<string, unknown>[]).map((e) => e['primary']),
      [false, undefined, true],
    );
  });

  it('setting primary through a filtered path clears the others', () => {
    const result = patch([{ op: 'replace', path: 'emails[type eq "home"].primary', value: true }]);
    assert.deepEqual(
      (result['emails'] as Record<string, unknown>[]).map((e) => e['primary']),
      [false, true],
    );
  });

  it('keeps the existing primary when an added value is not primary', () => {
    const result = patch([{ op: 'add', path: 'emails[type eq "other"].value', value: 'o@x' }]);
    assert.deepEqual(
      (result['emails'] as Record<string, unknown>[]).map((e) => e['primary']),
      [true, undefined, undefined],
    );
  });
});

describe('applyPatch: remove', () => {
  it('removes an attribute, a sub-attribute, and empties complex values', () => {
    assert.equal(patch([{ op: 'remove', path: 'emails' }])['emails'], undefined);
    assert.deepEqual(patch([{ op: 'remove', path: 'name.givenName' }])['name'], { familyName: 'Jensen' });
    assert.equal(
      patch([
        { op: 'remove', path: 'name.givenName' },
        { op: 'remove', path: 'name.familyName' },
      ])['name'],
      undefined,
    );
  });

  it('removes the values matched by a filter, or one sub-attribute of them', () => {
    assert.deepEqual(patch([{ op: 'remove', path: 'emails[type eq "work"]' }])['emails'], [{ type: 'home', value: 'bj@home.example' }]);
    assert.deepEqual(patch([{ op: 'remove', path: 'emails[type eq "work"].primary' }])['emails'], [
      { type: 'work', value: 'bj@work.example' },
      { type: 'home', value: 'bj@home.example' },
    ]);
    assert.equal(patch([{ op: 'remove', path: 'emails[value co "example"]' }])['emails'], undefined);
  });

  it('removes a sub-attribute from every value when no filter is given', () => {
    assert.deepEqual(patch([{ op: 'remove', path: 'emails.type' }])['emails'], [{ value: 'bj@work.example', primary: true }, { value: 'bj@home.example' }]);
  });

  it('removes values listed in "value"', () => {
    assert.deepEqual(patch([{ op: 'remove', path: 'emails', value: [{ value: 'BJ@WORK.example' }] }])['emails'], [{ type: 'home', value: 'bj@home.example' }]);
    assert.deepEqual(patch([{ op: 'remove', path: 'emails', value: 'bj@home.example' }])['emails'], [
      { type: 'work', value: 'bj@work.example', primary: true },
    ]);
  });

  it('is a no-op for unassigned attributes and filters that match nothing', () => {
    assert.deepEqual(patch([{ op: 'remove', path: 'title' }]), user());
    assert.deepEqual(patch([{ op: 'remove', path: 'emails[type eq "other"]' }]), user());
    assert.deepEqual(patch([{ op: 'remove', path: 'addresses[type eq "work"].locality' }]), user());
    assert.deepEqual(patch([{ op: 'remove', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department' }]), user());
  });
});

describe('applyPatch: options', () => {
  it('converts "True"/"False" for the boolean attributes the caller lists', () => {
    const result = patch(
      [
        { op: 'add', path: 'vip', value: 'true' },
        { op: 'add', path: 'active', value: 'false' },
      ],
      { booleanAttributes: ['vip'] },
    );
    assert.deepEqual([result['vip'], result['active']], [true, 'false']);
  });

  it("compares the caller's case-exact attributes exactly in path filters", () => {
    const remove: PatchOperation = { op: 'remove', path: 'emails[value eq "BJ@WORK.EXAMPLE"]' };
    assert.deepEqual(patch([remove], { caseExactAttributes: ['emails.value'] })['emails'], user()['emails']);
    assert.deepEqual(patch([remove])['emails'], [{ type: 'home', value: 'bj@home.example' }]);
  });

  it('can create values on a filter miss or, with createOnFilterMiss: false, fail with noTarget as RFC 7644 says', () => {
    const add: PatchOperation = { op: 'add', path: 'emails[type eq "other"].value', value: 'o@x' };
    assert.equal((patch([add])['emails'] as unknown[]).length, 3);
    assert.throws(() => patch([add], { createOnFilterMiss: false }), { name: 'ScimPatchError', scimType: 'noTarget' });
  });
});
