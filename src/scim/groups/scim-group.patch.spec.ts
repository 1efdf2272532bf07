/** Group PATCH bodies as Microsoft Entra ID (default and aadOptscim062020) and Okta send them, read as domain changes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScimError } from '../errors/scim-error.js';
import type { PatchOperation } from '../patch/index.js';
import { groupChangesOf } from './scim-group.patch.js';

const A = '5a8fa9a6-0001';
const B = '5a8fa9a6-0002';
const changes = (...operations: unknown[]) => groupChangesOf(operations as PatchOperation[]);

describe('Group PATCH as Entra ID and Okta send it', () => {
  const shapes: Array<[string, unknown[], unknown[]]> = [
    ['Entra (default): Add members, capitalised op', [{ op: 'Add', path: 'members', value: [{ value: A }] }], [{ kind: 'add', userIds: [A] }]],
    ['Entra (default): Remove members with a value array', [{ op: 'Remove', path: 'members', value: [{ value: A }] }], [{ kind: 'remove', userIds: [A] }]],
    ['Entra (aadOptscim062020): remove with a value filter', [{ op: 'remove', path: `members[value eq "${A}"]` }], [{ kind: 'remove', userIds: [A] }]],
    ['Entra (default): Replace displayName by path', [{ op: 'Replace', path: 'displayName', value: 'Sales' }], [{ kind: 'set', displayName: 'Sales' }]],
    [
      'Entra (aadOptscim062020) and Okta: path-less replace of {id, displayName}',
      [{ op: 'replace', value: { id: 'g1', displayName: 'Sales' } }],
      [{ kind: 'set', displayName: 'Sales' }],
    ],
    [
      'Okta: add members with display',
      [
        {
          op: 'add',
          path: 'members',
          value: [
            { value: A, display: 'a@example.com' },
            { value: B, display: 'b@example.com' },
          ],
        },
      ],
      [{ kind: 'add', userIds: [A, B] }],
    ],
    ['Okta: replace members with the full list', [{ op: 'replace', path: 'members', value: [{ value: B }] }], [{ kind: 'replace', userIds: [B] }]],
    ['replace members with [] empties the group', [{ op: 'replace', path: 'members', value: [] }], [{ kind: 'replace', userIds: [] }]],
    ['remove members without a value removes all (Microsoft test collection)', [{ op: 'remove', path: 'members' }], [{ kind: 'removeAll' }]],
    ['or-ed value filters remove each', [{ op: 'remove', path: `members[value eq "${A}" or value eq "${B}"]` }], [{ kind: 'remove', userIds: [A, B] }]],
    ['path-less add of {members}', [{ op: 'add', value: { members: [{ value: A }] } }], [{ kind: 'add', userIds: [A] }]],
    [
      'path-less replace of {displayName, members}',
      [{ op: 'replace', value: { displayName: 'X', members: [{ value: A }] } }],
      [
        { kind: 'set', displayName: 'X' },
        { kind: 'replace', userIds: [A] },
      ],
    ],
    [
      'the schema URN as path prefix, any case',
      [{ OP: 'ADD', PATH: 'urn:ietf:params:scim:schemas:core:2.0:Group:Members', VALUE: { Value: A } }],
      [{ kind: 'add', userIds: [A] }],
    ],
    [
      'externalId replaced and removed',
      [
        { op: 'replace', path: 'externalId', value: 'e-1' },
        { op: 'remove', path: 'externalId' },
      ],
      [
        { kind: 'set', externalId: 'e-1' },
        { kind: 'set', externalId: null },
      ],
    ],
    [
      'operations keep their order',
      [
        { op: 'remove', path: 'members' },
        { op: 'add', path: 'members', value: [{ value: A }] },
      ],
      [{ kind: 'removeAll' }, { kind: 'add', userIds: [A] }],
    ],
  ];
  for (const [name, operations, expected] of shapes) {
    it(name, () => assert.deepEqual(changes(...operations), expected));
  }
});

describe('Group PATCH refusals name the operation and the SCIM error type', () => {
  const refusals: Array<[string, unknown, string]> = [
    ['an unknown op', { op: 'move', path: 'members', value: [] }, 'invalidSyntax'],
    ['remove without a path', { op: 'remove' }, 'noTarget'],
    ['a member that is a bare string', { op: 'add', path: 'members', value: 'string id 1' }, 'invalidValue'],
    ['a member without a value', { op: 'add', path: 'members', value: [{ display: 'x' }] }, 'invalidValue'],
    ['a nested group as a member', { op: 'add', path: 'members', value: [{ value: A, type: 'Group' }] }, 'invalidValue'],
    ['a value filter on add', { op: 'add', path: `members[value eq "${A}"]`, value: [{ value: A }] }, 'invalidPath'],
    ['a value filter other than value eq', { op: 'remove', path: `members[value co "${A}"]` }, 'invalidFilter'],
    ['an attribute a Group does not have', { op: 'replace', path: 'userName', value: 'x' }, 'invalidPath'],
    ['removing displayName', { op: 'remove', path: 'displayName' }, 'mutability'],
    ['an unparsable path', { op: 'remove', path: 'members[value eq' }, 'invalidPath'],
    ['a displayName that is no string', { op: 'replace', value: { displayName: 7 } }, 'invalidValue'],
    ['a sub-attribute path', { op: 'replace', path: 'members.value', value: A }, 'invalidPath'],
  ];
  for (const [name, operation, scimType] of refusals) {
    it(name, () => {
      assert.throws(
        () => changes({ op: 'add', path: 'members', value: [{ value: B }] }, operation),
        (error: unknown) => {
          assert.ok(error instanceof ScimError, String(error));
          assert.equal(error.status, 400);
          assert.equal(error.scimType, scimType);
          assert.match(error.message, /^Operations\[1\]: /);
          return true;
        },
      );
    });
  }
});
