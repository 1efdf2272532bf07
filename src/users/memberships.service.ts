import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { Role } from '../common/auth/roles.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { INSTANCE_ID } from './entities/instance.entity.js';
import { MembershipEntity } from './entities/membership.entity.js';
import { UserEntity } from './entities/user.entity.js';

export interface UserRoles {
  instanceRoles: Set<Role>;
  orgRoles: Map<string, Set<Role>>;
}

/** Who holds which role where (DESIGN §3). Setting a membership replaces its roles. */
@Injectable()
export class MembershipsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  /** Makes any user of the instance an instance member. */
  setInstanceMember(editorUserId: string | null, userId: string, roles: Role[]): Promise<void> {
    return this.uow.run(async (manager) => {
      const user = await manager.findOneBy(UserEntity, { id: userId });
      if (!user) throw DomainError.notFound('user');
      await this.grant(manager, editorUserId, user, 'instance', INSTANCE_ID, roles);
    });
  }

  /** Makes a user of the organization one of its members; users of other organizations are not found. */
  setOrgMember(editorUserId: string | null, orgId: string, userId: string, roles: Role[]): Promise<void> {
    return this.uow.run(async (manager) => {
      const user = await manager.findOneBy(UserEntity, { id: userId, orgId });
      if (!user) throw DomainError.notFound('user');
      await this.grant(manager, editorUserId, user, 'org', orgId, roles);
    });
  }

  async rolesOf(userId: string, manager: EntityManager = this.dataSource.manager): Promise<UserRoles> {
    const rows = await manager.findBy(MembershipEntity, { userId });
    const result: UserRoles = { instanceRoles: new Set(), orgRoles: new Map() };
    for (const row of rows) {
      const roles = row.roles.split(',').filter(Boolean) as Role[];
      if (row.scopeType === 'instance') roles.forEach((r) => result.instanceRoles.add(r));
      else result.orgRoles.set(row.scopeId, new Set(roles));
    }
    return result;
  }

  /** Sets the user's roles on one scope, with its event, inside the caller's transaction. */
  async grant(
    manager: EntityManager,
    editorUserId: string | null,
    user: UserEntity,
    scopeType: 'instance' | 'org',
    scopeId: string,
    roles: Role[],
  ): Promise<void> {
    const unique = [...new Set(roles)].sort();
    await manager.upsert(MembershipEntity, { userId: user.id, scopeType, scopeId, roles: unique.join(','), changedAt: new Date() }, [
      'userId',
      'scopeType',
      'scopeId',
    ]);
    await this.events.push(manager, {
      type: scopeType === 'instance' ? 'instance.member.added' : 'org.member.added',
      aggregateType: scopeType === 'instance' ? 'instance' : 'org',
      aggregateId: scopeId,
      resourceOwner: scopeId,
      editorUserId,
      payload: { userId: user.id, roles: unique },
    });
  }
}
