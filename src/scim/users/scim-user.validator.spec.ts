import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScimError } from '../errors/scim-error.js';
import { validateUser } from './scim-user.validator.js';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

describe('SCIM User validation (RFC 7643 §2, §4)', () => {
  it('canonicalises attribute names, drops nulls and read-only attributes, takes the password out', () => {
    const { doc, password } = validateUser({
      schemas: [CORE.toUpperCase(), ENTERPRISE],
      ID: 'ignored',
      meta: { created: 'ignored' },
      USERNAME: 'bjensen',
      Active: 'True',
      name: { GivenName: 'B', honorificPrefix: null },
      emails: [{ Value: 'a@x', Primary: true }, null],
      roles: [],
      Password: 's3cret!!',
      [ENTERPRISE]: { Department: 'D', manager: { value: 'm', displayName: 'read-only' } },
    });
    assert.deepEqual(doc, {
      userName: 'bjensen',
      active: true,
      name: { givenName: 'B' },
      emails: [{ value: 'a@x', primary: true }],
      [ENTERPRISE]: { department: 'D', manager: { value: 'm' } },
    });
    assert.equal(password, 's3cret!!');
  });

  const refusals: [string, unknown, string][] = [
    ['no schemas', { userName: 'x' }, 'invalidSyntax'],
    ['an unknown schema', { schemas: [CORE, 'urn:x'], userName: 'x' }, 'invalidSyntax'],
    ['extension data without its schema', { schemas: [CORE], userName: 'x', [ENTERPRISE]: { department: 'D' } }, 'invalidSyntax'],
    ['an unknown attribute', { schemas: [CORE], userName: 'x', shoeSize: 42 }, 'invalidSyntax'],
    ['a missing userName', { schemas: [CORE] }, 'invalidValue'],
    ['a string where a boolean belongs', { schemas: [CORE], userName: 'x', active: 'yes' }, 'invalidValue'],
    ['an object where an array belongs', { schemas: [CORE], userName: 'x', emails: { value: 'a' } }, 'invalidValue'],
    [
      'two primary values',
      {
        schemas: [CORE],
        userName: 'x',
        emails: [
          { value: 'a', primary: true },
          { value: 'b', primary: 'True' },
        ],
      },
      'invalidValue',
    ],
    ['a non-string externalId', { schemas: [CORE], userName: 'x', externalId: 7 }, 'invalidValue'],
  ];
  for (const [name, body, scimType] of refusals) {
    it(`refuses ${name} (${scimType})`, () => {
      assert.throws(
        () => validateUser(body),
        (e: unknown) => e instanceof ScimError && e.status === 400 && e.scimType === scimType,
      );
    });
  }
});
