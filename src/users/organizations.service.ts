import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { isUniqueViolation } from '../common/database/unique-violation.js';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { foldCase } from '../common/text/case-fold.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { OrganizationEntity } from './entities/organization.entity.js';
import { startCount } from './org-user-counts.js';
import { slug } from './slug.js';
import { LoginPolicyEntity } from './entities/login-policy.entity.js';
import { DEFAULT_LOGIN_POLICY } from './login-policy.service.js';
import { InstanceSettings } from '../settings/instance-settings.service.js';

/** The organization the bootstrap creates; sign-in and the console find it by this name. */
export const DEFAULT_ORG_NAME = 'default';

@Injectable()
export class OrganizationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly settings: InstanceSettings,
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

  /**
   * Renames an organization; its primary domain, and so its users' login names, stay as they are.
   * Organization `default` is found by its name (a bare login name resolves to its users first,
   * docs/product-rules.md, "Sign-in"), so it keeps that name and no other organization may take it.
   */
  rename(editorUserId: string | null, orgId: string, name: string): Promise<OrganizationEntity> {
    return this.uow.run(async (manager) => {
      const org = await manager.findOneBy(OrganizationEntity, { id: orgId });
      if (!org) throw DomainError.notFound('organization');
      if (org.name === name) return org;
      if (org.name === DEFAULT_ORG_NAME)
        throw new DomainError(ErrorCode.Conflict, 'the default organization cannot be renamed: bare login names resolve to it by its name');
      if (foldCase(name) === DEFAULT_ORG_NAME) throw DomainError.alreadyExists(`the name ${DEFAULT_ORG_NAME} is reserved for the default organization`);
      const changedAt = new Date();
      await manager.update(OrganizationEntity, { id: org.id }, { name, changedAt });
      await this.events.push(manager, {
        type: 'org.changed',
        aggregateType: 'org',
        aggregateId: org.id,
        resourceOwner: org.id,
        editorUserId,
        payload: { name },
      });
      return Object.assign(org, { name, changedAt });
    });
  }

  /** Inserts an organization and its `org.added` event inside the caller's transaction. */
  async insert(manager: EntityManager, editorUserId: string | null, name: string, id = newId()): Promise<OrganizationEntity> {
    const now = new Date();
    const org = manager.create(OrganizationEntity, { id, name, primaryDomain: this.primaryDomain(name), createdAt: now, changedAt: now });
    await manager.insert(OrganizationEntity, org);
    await startCount(manager, org.id);
    // A new organization offers self-registration only when the instance's settings say so (docs/operations.md,
    // "Settings"); organizations created before keep what they had, an organization without a stored policy offering it.
    const { registration } = await this.settings.get();
    if (!registration.defaultForNewOrganizations)
      await manager.insert(LoginPolicyEntity, { orgId: org.id, ...DEFAULT_LOGIN_POLICY, agentClientHosts: '[]', allowRegistration: false, changedAt: now });
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
