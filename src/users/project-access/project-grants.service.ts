import { Injectable } from '@nestjs/common';
import { In, Raw } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import { foldedColumn, likeContains } from '../../common/database/name-search.js';
import type { Page, Paged } from '../../common/database/page.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { newId } from '../../common/ids.js';
import { UserAccess } from '../acting/user-access.service.js';
import { GroupEntity } from '../entities/group.entity.js';
import { UserEntity } from '../entities/user.entity.js';
import { guardProjectIn } from '../queries/project-guard.js';
import { projectIn } from '../resources/project-edits.service.js';
import { ProjectGrantEntity } from './project-grant.entity.js';
import { ProjectRoleEntity } from './project-role.entity.js';
import { validRoleList } from './project-access.rules.js';
import { grantChangedEvent, grantRemovedEvent } from './grant-removal.js';
import { grantsReaching } from './grant.queries.js';
import { GrantLoss } from './grant-loss.js';
import type { EffectiveGrant } from './grant.queries.js';

export interface NewGrant {
  userId?: string;
  groupId?: string;
  roles: string[];
}

/**
 * Grants of a project (docs/product-rules.md, "Application access"): admission to its applications for one user or
 * every member of one group, with role keys of the project. Writes take the project's row first (guardProjectIn),
 * so a grant never names a role removed meanwhile.
 */
@Injectable()
export class ProjectGrantsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly access: UserAccess,
    private readonly loss: GrantLoss,
  ) {}

  add(editorUserId: string | null, orgId: string, projectId: string, input: NewGrant): Promise<ProjectGrantEntity> {
    const hasUser = input.userId !== undefined && input.userId !== null;
    const hasGroup = input.groupId !== undefined && input.groupId !== null;
    if (hasUser === hasGroup)
      throw DomainError.invalid('exactly one of userId and groupId is required', [
        { field: hasUser ? 'groupId' : 'userId', message: 'exactly one of userId and groupId' },
      ]);
    const roles = validRoleList(input.roles);
    return this.uow.run(async (manager) => {
      await lockedProject(manager, orgId, projectId);
      if (hasUser && !(await manager.existsBy(UserEntity, { id: input.userId, orgId }))) throw DomainError.notFound('user');
      if (hasGroup && !(await manager.existsBy(GroupEntity, { id: input.groupId, orgId }))) throw DomainError.notFound('group');
      await assertKnownRoles(manager, projectId, roles);
      const party: { userId?: string; groupId?: string } = hasUser ? { userId: input.userId as string } : { groupId: input.groupId as string };
      if (await manager.existsBy(ProjectGrantEntity, { projectId, ...party })) throw duplicate(hasUser);
      const now = new Date();
      const grant = manager.create(ProjectGrantEntity, {
        id: newId(),
        orgId,
        projectId,
        userId: party.userId ?? null,
        groupId: party.groupId ?? null,
        roles,
        createdAt: now,
        changedAt: now,
      });
      try {
        await manager.insert(ProjectGrantEntity, grant);
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicate(hasUser);
        throw error;
      }
      await this.events.push(manager, {
        type: 'project.grant.added',
        aggregateType: 'grant',
        aggregateId: grant.id,
        resourceOwner: orgId,
        editorUserId,
        payload: { projectId, ...(hasUser ? { userId: party.userId as string } : { groupId: party.groupId as string }), roles },
      });
      return grant;
    });
  }

  /**
   * With `query`: the grants of a user the user search matches (user name, names, e-mail: users/rules/user-search.ts)
   * or of a group whose name contains it.
   */
  async list(orgId: string, projectId: string, filter: { userId?: string; groupId?: string; query?: string }, page: Page): Promise<Paged<ProjectGrantEntity>> {
    const manager = this.uow.manager;
    await projectIn(manager, orgId, projectId);
    const where = {
      projectId,
      ...(filter.userId !== undefined ? { userId: filter.userId } : {}),
      ...(filter.groupId !== undefined ? { groupId: filter.groupId } : {}),
      ...(filter.query ? { id: grantOfNamed(manager, filter.query) } : {}),
    };
    const [items, total] = await manager.findAndCount(ProjectGrantEntity, {
      where,
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: page.offset,
      take: page.limit,
    });
    return { items, total };
  }

  change(editorUserId: string | null, orgId: string, projectId: string, grantId: string, rolesInput: string[]): Promise<ProjectGrantEntity> {
    const roles = validRoleList(rolesInput);
    return this.uow.run(async (manager) => {
      await lockedProject(manager, orgId, projectId);
      const grant = await grantOf(manager, projectId, grantId);
      await assertKnownRoles(manager, projectId, roles);
      if (roles.join('\n') === grant.roles.join('\n')) return grant;
      Object.assign(grant, { roles, changedAt: new Date() });
      await manager.update(ProjectGrantEntity, { id: grant.id }, { roles, changedAt: grant.changedAt });
      await this.events.push(manager, grantChangedEvent(editorUserId, grant, roles));
      await this.loss.ended(manager, { userIds: grant.userId ? [grant.userId] : [], groupId: grant.groupId }, editorUserId);
      return grant;
    });
  }

  remove(editorUserId: string | null, orgId: string, projectId: string, grantId: string): Promise<void> {
    return this.uow.run(async (manager) => {
      await lockedProject(manager, orgId, projectId);
      const grant = await grantOf(manager, projectId, grantId);
      await manager.delete(ProjectGrantEntity, { id: grant.id });
      await this.events.push(manager, grantRemovedEvent(editorUserId, grant));
      await this.loss.ended(manager, { userIds: grant.userId ? [grant.userId] : [], groupId: grant.groupId }, editorUserId);
    });
  }

  /** The grants reaching a user of the organization, directly or through its groups; the caller must be allowed to act on the user (SECURITY.md). */
  async effectiveFor(editorUserId: string | null, orgId: string, userId: string): Promise<EffectiveGrant[]> {
    const manager = this.uow.manager;
    await this.access.actOn(manager, editorUserId, orgId, userId);
    return grantsReaching(manager, userId);
  }
}

async function lockedProject(manager: EntityManager, orgId: string, projectId: string): Promise<void> {
  await projectIn(manager, orgId, projectId);
  if (!(await guardProjectIn(manager, orgId, projectId))) throw DomainError.notFound('project');
}

async function grantOf(manager: EntityManager, projectId: string, grantId: string): Promise<ProjectGrantEntity> {
  const grant = await manager.findOneBy(ProjectGrantEntity, { id: grantId, projectId });
  if (!grant) throw DomainError.notFound('grant');
  return grant;
}

async function assertKnownRoles(manager: EntityManager, projectId: string, roles: string[]): Promise<void> {
  if (roles.length === 0) return;
  const known = new Set((await manager.findBy(ProjectRoleEntity, { projectId, key: In(roles) })).map((r) => r.key));
  const unknown = roles.filter((key) => !known.has(key));
  if (unknown.length > 0)
    throw DomainError.invalidField(
      'roles',
      `the project has no role ${unknown
        .slice(0, 5)
        .map((k) => JSON.stringify(k))
        .join(', ')}`,
    );
}

function duplicate(forUser: boolean): DomainError {
  return DomainError.alreadyExists(`the ${forUser ? 'user' : 'group'} has a grant in this project already; change its roles instead`);
}

/** A grant's id whose user or group the search text names (the grants list's `?query=`). */
function grantOfNamed(manager: EntityManager, query: string) {
  return Raw(
    (id) =>
      `${id} IN (SELECT pg.id FROM project_grants pg WHERE pg.user_id IN (SELECT u.id FROM users u WHERE u.search_text LIKE :grantQuery ESCAPE '!') OR pg.group_id IN (SELECT g.id FROM org_groups g WHERE ${foldedColumn(manager, 'g.display_name')} LIKE :grantQuery ESCAPE '!'))`,
    { grantQuery: likeContains(query) },
  );
}
