import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Role } from '../../src/common/auth/roles.js';
import { ErrorCode } from '../../src/common/errors/domain-error.js';
import { INSTANCE_ID } from '../../src/users/entities/instance.entity.js';
import { MembershipEntity } from '../../src/users/entities/membership.entity.js';
import { MembershipsService } from '../../src/users/memberships.service.js';
import { UsersService } from '../../src/users/users.service.js';
import { useDomain } from './support.js';

const denied = (error: { code?: string }) => error.code === ErrorCode.PermissionDenied;

/** Roles on the instance and on organizations (SECURITY.md, "Who may act on whom"). */
describe('domain: memberships', () => {
  const domain = useDomain();
  let n = 0;
  const newHuman = () =>
    domain
      .get(UsersService)
      .createHuman(null, domain.defaultOrgId, { userName: `member-${++n}`, firstName: 'M', lastName: 'N', email: `member-${n}@example.test` });
  const rolesOn = async (userId: string, scopeType: 'instance' | 'org', scopeId: string) =>
    (await domain.dataSource.getRepository(MembershipEntity).findOneBy({ userId, scopeType, scopeId }))?.roles ?? null;

  it('grants organization roles with an org.member.added event', async () => {
    const user = await newHuman();
    await domain.get(MembershipsService).setOrgMember(domain.adminId, domain.defaultOrgId, user.id, [Role.OrgUserManager, Role.OrgOwner, Role.OrgOwner]);
    assert.equal(await rolesOn(user.id, 'org', domain.defaultOrgId), 'ORG_OWNER,ORG_USER_MANAGER');
    const [event] = (await domain.eventsOf(domain.defaultOrgId)).filter((e) => e.type === 'org.member.added' && e.payload.userId === user.id);
    assert.deepEqual(event.payload, { userId: user.id, roles: ['ORG_OWNER', 'ORG_USER_MANAGER'] });
  });

  it('replaces the stored roles', async () => {
    const user = await newHuman();
    const memberships = domain.get(MembershipsService);
    await memberships.setOrgMember(null, domain.defaultOrgId, user.id, [Role.OrgOwner]);
    await memberships.setOrgMember(null, domain.defaultOrgId, user.id, [Role.OrgUserManager]);
    assert.equal(await rolesOn(user.id, 'org', domain.defaultOrgId), 'ORG_USER_MANAGER');
  });

  it('refuses a role the editor does not hold, storing nothing', async () => {
    const manager = await newHuman();
    const user = await newHuman();
    const memberships = domain.get(MembershipsService);
    await memberships.setOrgMember(null, domain.defaultOrgId, manager.id, [Role.OrgUserManager]);
    await assert.rejects(memberships.setOrgMember(manager.id, domain.defaultOrgId, user.id, [Role.OrgOwner]), denied);
    await assert.rejects(memberships.setInstanceMember(manager.id, user.id, [Role.IamOwner]), denied);
    assert.equal(await rolesOn(user.id, 'org', domain.defaultOrgId), null);
    assert.equal(await rolesOn(user.id, 'instance', INSTANCE_ID), null);
  });

  it('lets an IAM_OWNER make another user an IAM_OWNER', async () => {
    const user = await newHuman();
    await domain.get(MembershipsService).setInstanceMember(domain.adminId, user.id, [Role.IamOwner]);
    assert.equal(await rolesOn(user.id, 'instance', INSTANCE_ID), 'IAM_OWNER');
  });
});
