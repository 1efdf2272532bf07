import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { OrgResources } from '../../common/database/org-resources.js';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { ApplicationEntity } from '../entities/application.entity.js';
import { GroupEntity } from '../entities/group.entity.js';
import { LoginPolicyEntity } from '../entities/login-policy.entity.js';
import { MembershipEntity } from '../entities/membership.entity.js';
import { OrganizationEntity } from '../entities/organization.entity.js';
import { ProjectEntity } from '../entities/project.entity.js';
import { UserEntity } from '../entities/user.entity.js';
import { MembershipsService } from '../memberships.service.js';
import { DEFAULT_ORG_NAME } from '../organizations.service.js';
import { UserLifecycleService } from '../user-lifecycle.service.js';
import { ApplicationEditsService } from './application-edits.service.js';
import { UserAccess } from '../acting/user-access.service.js';
import { ProjectEditsService } from './project-edits.service.js';

/** Users removed per transaction: each batch commits with its events, so no removal holds locks for long. */
export const ORG_REMOVAL_USER_BATCH = 200;

/**
 * Removing an organization (docs/product-rules.md, "Changing and removing resources") removes, each with
 * its event: its users the way removing one user does (UserLifecycleService.removeIn: sessions, grants and
 * tokens revoked, ids kept reserved), ORG_REMOVAL_USER_BATCH at a time, each batch one transaction; then, in
 * one last transaction, any user added meanwhile, its applications (keys, and everything issued to them),
 * projects, groups, login policy, the memberships on it, the rows other modules keep for it (webhook
 * subscriptions, through OrgResources) and the organization. What would refuse a user's removal (a role the
 * editor lacks, the last active IAM_OWNER) refuses the whole removal before anything is written. A removal
 * cut short (a crash) leaves the organization with fewer users, each removed whole; removing it again goes on.
 * Organization `default` stays (409).
 */
@Injectable()
export class OrganizationRemovalService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly lifecycle: UserLifecycleService,
    private readonly memberships: MembershipsService,
    private readonly projects: ProjectEditsService,
    private readonly applications: ApplicationEditsService,
    private readonly resources: OrgResources,
    private readonly access: UserAccess,
  ) {}

  async remove(editorUserId: string | null, orgId: string): Promise<void> {
    await this.uow.run(async (manager) => {
      await removableOrganization(manager, orgId);
      await this.access.assertMayRemoveUsersOf(manager, editorUserId, orgId);
    });
    const removedUsers: string[] = [];
    for (let batch = ORG_REMOVAL_USER_BATCH; batch === ORG_REMOVAL_USER_BATCH; ) {
      const ids = await this.uow.run((manager) => this.removeUsers(manager, editorUserId, orgId, ORG_REMOVAL_USER_BATCH));
      removedUsers.push(...ids);
      batch = ids.length;
    }
    const clientIds = await this.uow.run(async (manager) => {
      const org = await removableOrganization(manager, orgId);
      // Users added while the batches ran go here, with everything else.
      const late = await this.removeUsers(manager, editorUserId, orgId);
      const apps = await manager.findBy(ApplicationEntity, { orgId });
      for (const app of apps) await this.applications.removeIn(manager, editorUserId, app);
      for (const project of await manager.findBy(ProjectEntity, { orgId })) await this.projects.removeIn(manager, editorUserId, project);
      for (const group of await manager.findBy(GroupEntity, { orgId })) {
        await manager.delete(GroupEntity, { id: group.id });
        await this.events.push(manager, { type: 'group.removed', aggregateType: 'group', aggregateId: group.id, resourceOwner: orgId, editorUserId, payload: { displayName: group.displayName } });
      }
      // Users of the organization took their memberships with them; any left are of users elsewhere.
      for (const member of await manager.findBy(MembershipEntity, { scopeType: 'org', scopeId: orgId })) {
        await this.memberships.revoke(manager, editorUserId, member.userId, 'org', orgId);
      }
      await manager.delete(LoginPolicyEntity, { orgId });
      await this.resources.removeIn(manager, orgId, editorUserId);
      // Its user count goes with it (foreign key ON DELETE CASCADE); removed user ids stay reserved.
      await manager.delete(OrganizationEntity, { id: orgId });
      await this.events.push(manager, { type: 'org.removed', aggregateType: 'org', aggregateId: orgId, resourceOwner: orgId, editorUserId, payload: { name: org.name, primaryDomain: org.primaryDomain } });
      // A machine user's client id is its user id.
      return [...apps.map((app) => app.clientId), ...late];
    });
    this.applications.forget([...clientIds, ...removedUsers]);
  }

  /** Removes up to `limit` (else all) of the organization's users in the caller's transaction; their ids. */
  private async removeUsers(manager: EntityManager, editorUserId: string | null, orgId: string, limit?: number): Promise<string[]> {
    const users = await manager.find(UserEntity, { where: { orgId }, select: { id: true }, order: { id: 'ASC' }, ...(limit ? { take: limit } : {}) });
    for (const user of users) await this.lifecycle.removeIn(manager, editorUserId, orgId, user.id);
    return users.map((user) => user.id);
  }
}

async function removableOrganization(manager: EntityManager, orgId: string): Promise<OrganizationEntity> {
  const org = await manager.findOneBy(OrganizationEntity, { id: orgId });
  if (!org) throw DomainError.notFound('organization');
  if (org.name === DEFAULT_ORG_NAME) throw new DomainError(ErrorCode.Conflict, 'the default organization cannot be removed');
  return org;
}
