import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Role } from '../../common/auth/roles.js';
import { formatRoles, parseRoles } from './acting-rule.js';

describe('membership roles column', () => {
  it('writes each role once, sorted, and reads back what it wrote', () => {
    const column = formatRoles([Role.OrgUserManager, Role.OrgOwner, Role.OrgUserManager]);
    assert.equal(column, [Role.OrgOwner, Role.OrgUserManager].sort().join(','));
    assert.deepEqual(parseRoles(column), [Role.OrgOwner, Role.OrgUserManager].sort());
  });

  it('drops unknown and empty values', () => {
    assert.deepEqual(parseRoles(`${Role.IamOwner},NOT_A_ROLE,`), [Role.IamOwner]);
    assert.deepEqual(parseRoles(null), []);
    assert.deepEqual(parseRoles(''), []);
  });
});
