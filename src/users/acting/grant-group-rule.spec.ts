import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Role } from '../../common/auth/roles.js';
import { grantGroupRefusal, machineCredentialRefusal } from './grant-group-rule.js';
import type { MembershipEditor } from './grant-group-rule.js';

const ORG = 'org-1';
const editor = (isMachine: boolean, orgRoles: Role[], instanceRoles: Role[] = []): MembershipEditor => ({
  userId: 'editor',
  isMachine,
  roles: { instanceRoles: new Set(instanceRoles), orgRoles: new Map([[ORG, new Set(orgRoles)]]) },
});

describe('changing the members of a group that holds a grant', () => {
  it('leaves a group without grants, and a change of no member, to the acting rule', () => {
    assert.equal(grantGroupRefusal(editor(false, [Role.OrgUserManager]), ORG, ['u'], []), null);
    assert.equal(grantGroupRefusal(editor(false, [Role.OrgUserManager]), ORG, [], ['Payroll']), null);
  });

  it('lets an ORG_OWNER (or IAM_OWNER) and a machine ORG_USER_MANAGER through', () => {
    assert.equal(grantGroupRefusal(editor(false, [Role.OrgOwner]), ORG, ['u'], ['Payroll']), null);
    assert.equal(grantGroupRefusal(editor(false, [], [Role.IamOwner]), ORG, ['u'], ['Payroll']), null);
    assert.equal(grantGroupRefusal(editor(true, [Role.OrgUserManager]), ORG, ['u'], ['Payroll']), null);
  });

  it('refuses a human ORG_USER_MANAGER, naming the projects', () => {
    const refusal = grantGroupRefusal(editor(false, [Role.OrgUserManager]), ORG, ['u'], ['HR', 'Payroll']);
    assert.match(refusal ?? '', /projects "HR", "Payroll": only an ORG_OWNER/);
  });

  it('refuses a machine ORG_USER_MANAGER of another organization', () => {
    const other: MembershipEditor = {
      ...editor(true, []),
      roles: { instanceRoles: new Set(), orgRoles: new Map([['org-2', new Set([Role.OrgUserManager])]]) },
    };
    assert.notEqual(grantGroupRefusal(other, ORG, ['u'], ['Payroll']), null);
  });

  it('refuses everyone their own membership', () => {
    for (const who of [editor(false, [Role.OrgOwner]), editor(true, [Role.OrgUserManager]), editor(false, [], [Role.IamOwner])]) {
      assert.match(grantGroupRefusal(who, ORG, ['u', 'editor'], ['Payroll']) ?? '', /nobody changes their own membership/);
    }
  });
});

describe('issuing a credential of a machine user', () => {
  const machine = (orgRoles: Role[], instanceRoles: Role[] = []) => editor(true, orgRoles, instanceRoles).roles;

  it('refuses a human ORG_USER_MANAGER a machine that may change grant-holding groups', () => {
    for (const held of [[Role.OrgUserManager], [Role.OrgOwner]]) {
      assert.match(machineCredentialRefusal(editor(false, [Role.OrgUserManager]), machine(held)) ?? '', /only an ORG_OWNER, or a machine user/);
    }
  });

  it('lets an ORG_OWNER, an IAM_OWNER and a machine ORG_USER_MANAGER issue it', () => {
    for (const issuer of [editor(false, [Role.OrgOwner]), editor(false, [], [Role.IamOwner]), editor(true, [Role.OrgUserManager])]) {
      assert.equal(machineCredentialRefusal(issuer, machine([Role.OrgUserManager])), null);
    }
  });

  it('leaves a machine without an organization role to the acting rule', () => {
    assert.equal(machineCredentialRefusal(editor(false, [Role.OrgUserManager]), machine([])), null);
  });
});
