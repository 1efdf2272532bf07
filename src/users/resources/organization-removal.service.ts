import { Injectable } from '@nestjs/common';
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
import { ProjectEditsService } from './project-edits.service.js';

/**
 * Removing an organization (docs/product-rules.md, "Changing and removing resources") removes, in one
 * transaction and each with its event: its applications (keys, and everything issued to them), projects,
 * groups, login policy, the memberships on it, the rows other modules keep for it (webhook subscriptions,
 * through OrgResources), and its users the way removing one user does (UserLifecycleService.removeIn:
 * sessions, grants and tokens revoked, ids kept reserved, the last active IAM_OWNER refused with 409, which
 * then leaves everything as it was). Organization `default` stays (409).
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
  ) {}

  async remove(editorUserId: string | null, orgId: string): Promise<void> {
    const clientIds = await this.uow.run(async (manager) => {
      const org = await manager.findOneBy(OrganizationEntity, { id: orgId });
      if (!org) throw DomainError.notFound('organization');
      if (org.name === DEFAULT_ORG_NAME) throw new DomainError(ErrorCode.Conflict, 'the default organization cannot be removed');
      // Users first: the last active IAM_OWNER among them refuses the whole removal before anything else is written.
      const users = await manager.find(UserEntity, { where: { orgId }, select: { id: true }, order: { id: 'ASC' } });
      for (const user of users) await this.lifecycle.removeIn(manager, editorUserId, orgId, user.id);
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
      return [...apps.map((app) => app.clientId), ...users.map((user) => user.id)];
    });
    this.applications.forget(clientIds);
  }
}
