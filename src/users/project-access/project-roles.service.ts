import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import { nameContains } from '../../common/database/name-search.js';
import type { Page, Paged } from '../../common/database/page.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import type { NewEvent } from '../../common/events/event-store.js';
import { guardProjectIn } from '../queries/project-guard.js';
import { projectIn } from '../resources/project-edits.service.js';
import { ProjectGrantEntity } from './project-grant.entity.js';
import { ProjectRoleEntity } from './project-role.entity.js';
import { grantChangedEvent } from './grant-removal.js';
import { validRoleKey, validRoleText } from './project-access.rules.js';
import type { RoleText } from './project-access.rules.js';

/**
 * A project's roles (docs/product-rules.md, "Application access"). Every write takes the project's row first
 * (guardProjectIn), so a role removal and a grant naming that role are applied one after the other.
 */
@Injectable()
export class ProjectRolesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  add(editorUserId: string | null, orgId: string, projectId: string, input: RoleText & { key: string }): Promise<ProjectRoleEntity> {
    const key = validRoleKey(input.key);
    const text = validRoleText(input);
    return this.uow.run(async (manager) => {
      await lockedProject(manager, orgId, projectId);
      if (await manager.existsBy(ProjectRoleEntity, { projectId, key })) throw duplicate(key);
      const now = new Date();
      const role = manager.create(ProjectRoleEntity, {
        projectId,
        key,
        displayName: text.displayName ?? null,
        description: text.description ?? null,
        createdAt: now,
        changedAt: now,
      });
      try {
        await manager.insert(ProjectRoleEntity, role);
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicate(key);
        throw error;
      }
      await this.events.push(manager, roleEvent('project.role.added', editorUserId, orgId, projectId, key));
      return role;
    });
  }

  /** A page of the project's roles, by key; with `query`, those whose key or display name contains it. */
  async list(orgId: string, projectId: string, page: Page, query?: string): Promise<Paged<ProjectRoleEntity>> {
    const manager = this.uow.manager;
    await projectIn(manager, orgId, projectId);
    const where = query
      ? [
          { projectId, key: nameContains(manager, query) },
          { projectId, displayName: nameContains(manager, query) },
        ]
      : { projectId };
    const [items, total] = await manager.findAndCount(ProjectRoleEntity, { where, order: { key: 'ASC' }, skip: page.offset, take: page.limit });
    return { items, total };
  }

  change(editorUserId: string | null, orgId: string, projectId: string, key: string, input: RoleText): Promise<ProjectRoleEntity> {
    const text = validRoleText(input);
    return this.uow.run(async (manager) => {
      await lockedProject(manager, orgId, projectId);
      const role = await roleOf(manager, projectId, key);
      const next = {
        displayName: text.displayName === undefined ? role.displayName : text.displayName,
        description: text.description === undefined ? role.description : text.description,
      };
      if (next.displayName === role.displayName && next.description === role.description) return role;
      Object.assign(role, next, { changedAt: new Date() });
      await manager.update(ProjectRoleEntity, { projectId, key }, { ...next, changedAt: role.changedAt });
      await this.events.push(manager, roleEvent('project.role.changed', editorUserId, orgId, projectId, key));
      return role;
    });
  }

  /** Removes the role and takes it out of every grant of the project (each such grant records `project.grant.changed`). */
  remove(editorUserId: string | null, orgId: string, projectId: string, key: string): Promise<void> {
    return this.uow.run(async (manager) => {
      await lockedProject(manager, orgId, projectId);
      await roleOf(manager, projectId, key);
      const holding = (await manager.find(ProjectGrantEntity, { where: { projectId }, order: { id: 'ASC' } })).filter((g) => g.roles.includes(key));
      const now = new Date();
      const changed: NewEvent[] = [];
      for (const grant of holding) {
        const roles = grant.roles.filter((r) => r !== key);
        await manager.update(ProjectGrantEntity, { id: grant.id }, { roles, changedAt: now });
        changed.push(grantChangedEvent(editorUserId, grant, roles));
      }
      await manager.delete(ProjectRoleEntity, { projectId, key });
      await this.events.push(manager, roleEvent('project.role.removed', editorUserId, orgId, projectId, key), ...changed);
    });
  }
}

async function lockedProject(manager: EntityManager, orgId: string, projectId: string): Promise<void> {
  await projectIn(manager, orgId, projectId);
  if (!(await guardProjectIn(manager, orgId, projectId))) throw DomainError.notFound('project');
}

async function roleOf(manager: EntityManager, projectId: string, key: string): Promise<ProjectRoleEntity> {
  const role = await manager.findOneBy(ProjectRoleEntity, { projectId, key });
  if (!role) throw DomainError.notFound('role');
  return role;
}

function duplicate(key: string): DomainError {
  return DomainError.alreadyExists(`the project has a role "${key}" already`);
}

function roleEvent(
  type: 'project.role.added' | 'project.role.changed' | 'project.role.removed',
  editorUserId: string | null,
  orgId: string,
  projectId: string,
  key: string,
): NewEvent {
  return { type, aggregateType: 'project', aggregateId: projectId, resourceOwner: orgId, editorUserId, payload: { key } };
}
