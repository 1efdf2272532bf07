import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { OrgResources } from '../../common/database/org-resources.js';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { ApplicationEntity } from '../entities/application.entity.js';
import { GroupEntity } from '../entities/group.entity.js';
import { removeGroupIn } from '../groups/group-removal.js';
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

/**
 * Users, applications, registered clients, projects, groups or memberships removed per transaction, each batch with its
 * events: no removal holds locks for long, and a transaction stays under about 1,000 rows (a user takes several: memberships, factors,
 * sessions, its event; docs/product-rules.md, "Changing and removing resources").
 */
export const ORG_REMOVAL_BATCH = 100;

/**
 * Removing an organization (docs/product-rules.md, "Changing and removing resources") removes, each with
 * its event and ORG_REMOVAL_BATCH at a time, each batch one transaction: its users the way removing one user
 * does (UserLifecycleService.removeIn: sessions, grants and tokens revoked, ids kept reserved), its applications
 * (keys, and everything issued to them), the clients registered to it (everything issued to them, the consents
 * given to them), projects, groups and the memberships on it; then, in one last transaction, whatever was added
 * meanwhile, the login policy, its initial access tokens, the rows other modules keep for it (webhook subscriptions,
 * through OrgResources) and the organization. What would refuse a user's removal (a role the
 * editor lacks, the last active IAM_OWNER) refuses the whole removal before anything is written. A removal
 * cut short (a crash) leaves the organization with fewer users and resources, each removed whole; removing it
 * again goes on.
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
    const removed = await this.inBatches((manager, limit) => this.removeUsers(manager, editorUserId, orgId, limit));
    // What was issued to the applications goes first, in transactions of its own: each batch below stays bounded.
    const apps = await this.uow.manager.find(ApplicationEntity, { where: { orgId }, select: { clientId: true } });
    for (const { clientId } of apps) await this.applications.revokeIssuedInBatches(clientId);
    removed.push(...(await this.inBatches((manager, limit) => this.removeApplications(manager, editorUserId, orgId, limit))));
    // Its agents' registrations likewise, each as its owner's removal of one does (docs/agents.md, "Dynamic registration").
    for (const resource of this.resources.batched) {
      await resource.revokeIssued(orgId);
      await this.inBatches((manager, limit) => resource.removeSome(manager, editorUserId, orgId, limit));
    }
    await this.inBatches((manager, limit) => this.removeProjects(manager, editorUserId, orgId, limit));
    await this.inBatches((manager, limit) => this.removeGroups(manager, editorUserId, orgId, limit));
    await this.inBatches((manager, limit) => this.removeMemberships(manager, editorUserId, orgId, limit));
    const late = await this.uow.run(async (manager) => {
      const org = await removableOrganization(manager, orgId);
      // What was added while the batches ran goes here, with the rest.
      const ids = [...(await this.removeUsers(manager, editorUserId, orgId)), ...(await this.removeApplications(manager, editorUserId, orgId))];
      await this.removeProjects(manager, editorUserId, orgId);
      await this.removeGroups(manager, editorUserId, orgId);
      await this.removeMemberships(manager, editorUserId, orgId);
      await manager.delete(LoginPolicyEntity, { orgId });
      for (const resource of this.resources.batched) await resource.removeSome(manager, editorUserId, orgId);
      await this.resources.removeIn(manager, orgId, editorUserId);
      // Its user count goes with it (foreign key ON DELETE CASCADE); removed user ids stay reserved.
      await manager.delete(OrganizationEntity, { id: orgId });
      await this.events.push(manager, {
        type: 'org.removed',
        aggregateType: 'org',
        aggregateId: orgId,
        resourceOwner: orgId,
        editorUserId,
        payload: { name: org.name, primaryDomain: org.primaryDomain },
      });
      return ids;
    });
    // A machine user's client id is its user id.
    this.applications.forget([...removed, ...late]);
  }

  /**
   * Runs `removeSome` in a transaction of its own, ORG_REMOVAL_BATCH rows at a time, until a batch comes back short;
   * what each batch answered. No transaction grows with the organization: on a Galera cluster every node applies a
   * transaction whole, and a huge one stalls the cluster
   * (docs/high-availability.md, "What Portcullis does on Galera").
   */
  private async inBatches(removeSome: (manager: EntityManager, limit: number) => Promise<unknown[]>): Promise<string[]> {
    const removed: string[] = [];
    for (let count = ORG_REMOVAL_BATCH; count === ORG_REMOVAL_BATCH; ) {
      const batch = await this.uow.run((manager) => removeSome(manager, ORG_REMOVAL_BATCH));
      removed.push(...batch.filter((value): value is string => typeof value === 'string'));
      count = batch.length;
    }
    return removed;
  }

  /** Removes up to `limit` (else all) of the organization's users in the caller's transaction; their ids. */
  private async removeUsers(manager: EntityManager, editorUserId: string | null, orgId: string, limit?: number): Promise<string[]> {
    const users = await manager.find(UserEntity, { where: { orgId }, select: { id: true }, order: { id: 'ASC' }, ...page(limit) });
    for (const user of users) await this.lifecycle.removeIn(manager, editorUserId, orgId, user.id);
    return users.map((user) => user.id);
  }

  /** Applications with their keys and everything issued to them; their client ids. */
  private async removeApplications(manager: EntityManager, editorUserId: string | null, orgId: string, limit?: number): Promise<string[]> {
    const apps = await manager.find(ApplicationEntity, { where: { orgId }, order: { id: 'ASC' }, ...page(limit) });
    for (const app of apps) await this.applications.removeIn(manager, editorUserId, app);
    return apps.map((app) => app.clientId);
  }

  /**
   * Projects without applications: one that gained an application after the application batches keeps it until the
   * last transaction, which removes that application first.
   */
  private async removeProjects(manager: EntityManager, editorUserId: string | null, orgId: string, limit?: number): Promise<ProjectEntity[]> {
    const query = manager
      .createQueryBuilder(ProjectEntity, 'p')
      .where('p.orgId = :orgId', { orgId })
      .andWhere((q) => `NOT EXISTS ${q.subQuery().select('1').from(ApplicationEntity, 'a').where('a.projectId = p.id').getQuery()}`)
      .orderBy('p.id', 'ASC');
    const projects = await (limit ? query.take(limit) : query).getMany();
    for (const project of projects) await this.projects.removeIn(manager, editorUserId, project);
    return projects;
  }

  private async removeGroups(manager: EntityManager, editorUserId: string | null, orgId: string, limit?: number): Promise<GroupEntity[]> {
    const groups = await manager.find(GroupEntity, { where: { orgId }, order: { id: 'ASC' }, ...page(limit) });
    for (const group of groups) await removeGroupIn(manager, this.events, editorUserId, group);
    return groups;
  }

  /** Users of the organization took their memberships on it with them; these are of users elsewhere. */
  private async removeMemberships(manager: EntityManager, editorUserId: string | null, orgId: string, limit?: number): Promise<MembershipEntity[]> {
    const members = await manager.find(MembershipEntity, { where: { scopeType: 'org', scopeId: orgId }, order: { userId: 'ASC' }, ...page(limit) });
    for (const member of members) await this.memberships.revoke(manager, editorUserId, member.userId, 'org', orgId);
    return members;
  }
}

function page(limit: number | undefined): { take?: number } {
  return limit ? { take: limit } : {};
}

async function removableOrganization(manager: EntityManager, orgId: string): Promise<OrganizationEntity> {
  const org = await manager.findOneBy(OrganizationEntity, { id: orgId });
  if (!org) throw DomainError.notFound('organization');
  if (org.name === DEFAULT_ORG_NAME) throw new DomainError(ErrorCode.Conflict, 'the default organization cannot be removed');
  return org;
}
