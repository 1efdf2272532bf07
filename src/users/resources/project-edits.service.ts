import { nameContains } from '../../common/database/name-search.js';
import { removeGrantsIn } from '../project-access/grant-removal.js';
import { ProjectRoleEntity } from '../project-access/project-role.entity.js';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { countApplicationsIn, guardProjectIn } from '../queries/project-guard.js';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { OrganizationEntity } from '../entities/organization.entity.js';
import { ProjectEntity } from '../entities/project.entity.js';
import type { Page, Paged } from '../../common/database/page.js';

/**
 * Reading, renaming and removing projects (docs/product-rules.md, "Changing and removing resources").
 * A project is found only in its own organization: any other organization's id answers 404.
 */
@Injectable()
export class ProjectEditsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  /** A page of the organization's projects, oldest first; with `query`, those whose name contains it. */
  async list(orgId: string, page: Page, query?: string): Promise<Paged<ProjectEntity>> {
    const manager = this.uow.manager;
    if (!(await manager.existsBy(OrganizationEntity, { id: orgId }))) throw DomainError.notFound('organization');
    const [items, total] = await manager.findAndCount(ProjectEntity, {
      where: query ? { orgId, name: nameContains(manager, query) } : { orgId },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { items, total };
  }

  get(orgId: string, projectId: string): Promise<ProjectEntity> {
    return projectIn(this.uow.manager, orgId, projectId);
  }

  rename(editorUserId: string | null, orgId: string, projectId: string, name: string): Promise<ProjectEntity> {
    return this.uow.run(async (manager) => {
      const project = await projectIn(manager, orgId, projectId);
      if (project.name === name) return project;
      const changedAt = new Date();
      await manager.update(ProjectEntity, { id: project.id }, { name, changedAt });
      await this.events.push(manager, {
        type: 'project.changed',
        aggregateType: 'project',
        aggregateId: project.id,
        resourceOwner: orgId,
        editorUserId,
        payload: { name },
      });
      return Object.assign(project, { name, changedAt });
    });
  }

  /**
   * Removes an empty project; one that still has applications is refused (409), so no client disappears
   * as a side effect (the foreign key cascades). The project row is taken first, by a write (guardProjectIn),
   * as an addition takes it: either the addition commits first and is counted here, or it runs after the
   * removal and finds no project — also through two Galera nodes.
   */
  remove(editorUserId: string | null, orgId: string, projectId: string): Promise<void> {
    return this.uow.run(async (manager) => {
      const project = await projectIn(manager, orgId, projectId);
      if (!(await guardProjectIn(manager, orgId, project.id))) throw DomainError.notFound('project');
      const apps = await countApplicationsIn(manager, project.id);
      if (apps > 0) throw new DomainError(ErrorCode.Conflict, `the project still has ${apps} application(s); remove them first`);
      await this.removeIn(manager, editorUserId, project);
    });
  }

  /** Deletes the project row with its `project.removed` event, inside the caller's transaction. */
  async removeIn(manager: EntityManager, editorUserId: string | null, project: ProjectEntity): Promise<void> {
    // Its grants and roles go with it (docs/product-rules.md, "Application access").
    await removeGrantsIn(manager, this.events, editorUserId, { projectId: project.id });
    await manager.delete(ProjectRoleEntity, { projectId: project.id });
    await manager.delete(ProjectEntity, { id: project.id });
    await this.events.push(manager, {
      type: 'project.removed',
      aggregateType: 'project',
      aggregateId: project.id,
      resourceOwner: project.orgId,
      editorUserId,
      payload: { name: project.name },
    });
  }
}

/** The project of that organization; 404 for one of another organization. */
export async function projectIn(manager: EntityManager, orgId: string, projectId: string): Promise<ProjectEntity> {
  const project = await manager.findOneBy(ProjectEntity, { id: projectId, orgId });
  if (!project) throw DomainError.notFound('project');
  return project;
}
