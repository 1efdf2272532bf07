import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { isUniqueViolation } from '../common/database/unique-violation.js';
import { DomainError } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { OrganizationEntity } from './entities/organization.entity.js';
import { startCount } from './org-user-counts.js';
import { slug } from './slug.js';

@Injectable()
export class OrganizationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  list(): Promise<OrganizationEntity[]> {
    return this.dataSource.getRepository(OrganizationEntity).find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async get(orgId: string): Promise<OrganizationEntity> {
    const org = await this.dataSource.getRepository(OrganizationEntity).findOneBy({ id: orgId });
    if (!org) throw DomainError.notFound('organization');
    return org;
  }

  async create(editorUserId: string | null, name: string, id = newId()): Promise<OrganizationEntity> {
    try {
      return await this.uow.run((manager) => this.insert(manager, editorUserId, name, id));
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw DomainError.alreadyExists(`an organization with the primary domain ${this.primaryDomain(name)} already exists`);
      }
      throw error;
    }
  }

  /** Inserts an organization and its `org.added` event inside the caller's transaction. */
  async insert(manager: EntityManager, editorUserId: string | null, name: string, id = newId()): Promise<OrganizationEntity> {
    const now = new Date();
    const org = manager.create(OrganizationEntity, { id, name, primaryDomain: this.primaryDomain(name), createdAt: now, changedAt: now });
    await manager.insert(OrganizationEntity, org);
    await startCount(manager, org.id);
    await this.events.push(manager, {
      type: 'org.added',
      aggregateType: 'org',
      aggregateId: org.id,
      resourceOwner: org.id,
      editorUserId,
      payload: { name: org.name, primaryDomain: org.primaryDomain },
    });
    return org;
  }

  primaryDomain(name: string): string {
    return `${slug(name)}.${this.config.instanceDomain}`;
  }
}
