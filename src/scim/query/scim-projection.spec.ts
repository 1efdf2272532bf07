import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAttributeList, project } from './scim-projection.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const user: Record<string, any> = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  id: '1',
  userName: 'bjensen',
  userType: 'Employee',
  name: { givenName: 'Barbara', familyName: 'Jensen' },
  emails: [
    { value: 'a@x', type: 'work', primary: true },
    { value: 'b@x', type: 'home' },
  ],
  [ENTERPRISE]: { department: 'D', costCenter: 'C' },
  meta: { resourceType: 'User' },
};

/** RFC 7644 §3.4.2.5 / §3.9: `attributes` and `excludedAttributes`. */
describe('attribute projection', () => {
  const cases: [string, string | undefined, string | undefined, object][] = [
    ['attributes keep id and schemas', 'userName', undefined, { schemas: user.schemas, id: '1', userName: 'bjensen' }],
    ['sub-attributes of a complex attribute', 'name.familyName', undefined, { schemas: user.schemas, id: '1', name: { familyName: 'Jensen' } }],
    ['sub-attributes of every value', 'emails.value', undefined, { schemas: user.schemas, id: '1', emails: [{ value: 'a@x' }, { value: 'b@x' }] }],
    ['names ignore case; a value filter selects the attribute', 'EMAILS[type eq "work"]', undefined, { schemas: user.schemas, id: '1', emails: user.emails }],
    [
      'URN-qualified core and extension names',
      `urn:ietf:params:scim:schemas:core:2.0:User:userName,${ENTERPRISE}:department`,
      undefined,
      { schemas: user.schemas, id: '1', userName: 'bjensen', [ENTERPRISE]: { department: 'D' } },
    ],
    ['returned:request attributes only when asked', 'userType', undefined, { schemas: user.schemas, id: '1', userType: 'Employee' }],
  ];
  for (const [name, attributes, excluded, expected] of cases) {
    it(name, () => assert.deepEqual(project(user, parseAttributeList(attributes, excluded)), expected));
  }

  it('excludedAttributes removes, never id or schemas, and userType is not returned by default', () => {
    const result = project(user, parseAttributeList(undefined, `emails.type,meta,id,schemas,${ENTERPRISE}:costCenter`));
    assert.deepEqual(result, {
      schemas: user.schemas,
      id: '1',
      userName: 'bjensen',
      name: user.name,
      emails: [{ value: 'a@x', primary: true }, { value: 'b@x' }],
      [ENTERPRISE]: { department: 'D' },
    });
  });
});
