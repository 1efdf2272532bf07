import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ORG_ROLES, Role, expandRoles } from '../common/auth/roles.js';
import { likeContains } from '../common/database/name-search.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { formatRoles, holdsOn, noRoles, parseRoles } from './acting/acting-rule.js';
import { UserAccess } from './acting/user-access.service.js';
import { INSTANCE_ID } from './entities/instance.entity.js';
import { MembershipEntity } from './entities/membership.entity.js';
import { OrganizationEntity } from './entities/organization.entity.js';
import { UserEntity } from './entities/user.entity.js';
import type { Page, Paged } from '../common/database/page.js';

export interface Member {
  userId: string;
  roles: Role[];
}

/** Who holds which role where. Setting a membership replaces its roles. */
@Injectable()
export class MembershipsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly access: UserAccess,
  ) {}

  /**
   * Makes any user of the instance an instance member (roles replace the stored ones). Changing a
   * user's roles is acting on it: the editor must hold every role the user holds, and the last active
   * IAM_OWNER is not demoted.
   */
  setInstanceMember(editorUserId: string | null, userId: string, roles: Role[]): Promise<void> {
    return this.uow.run(async (manager) => {
      const user = await manager.findOneBy(UserEntity, { id: userId });
      if (!user) throw DomainError.notFound('user');
      await this.access.assertMayActOn(manager, editorUserId, user.id);
      await this.assertGrantable(manager, editorUserId, null, roles);
      if (!roles.includes(Role.IamOwner)) await this.access.assertKeepsAnIamOwner(manager, user, 'demote');
      await this.grant(manager, editorUserId, user, 'instance', INSTANCE_ID, roles);
    });
  }

  /**
   * Makes a user of the organization one of its members; users of other organizations are not found.
   * The editor must be allowed to act on the user and hold every role it grants.
   */
  setOrgMember(editorUserId: string | null, orgId: string, userId: string, roles: Role[]): Promise<void> {
    return this.uow.run(async (manager) => {
      const user = await this.access.actOn(manager, editorUserId, orgId, userId);
      await this.assertGrantable(manager, editorUserId, orgId, roles);
      await this.grant(manager, editorUserId, user, 'org', orgId, roles);
    });
  }

  /** Instance members and their instance roles, oldest membership first. */
  listInstanceMembers(page: Page, query?: string): Promise<Paged<Member>> {
    return this.list('instance', INSTANCE_ID, page, query);
  }

  /** Members of the organization and their roles on it (its own users only, as setOrgMember makes them). */
  async listOrgMembers(orgId: string, page: Page, query?: string): Promise<Paged<Member>> {
    if (!(await this.uow.manager.existsBy(OrganizationEntity, { id: orgId }))) throw DomainError.notFound('organization');
    return this.list('org', orgId, page, query);
  }

  /**
   * Takes every instance role from the user. Acting on a user (SECURITY.md): the editor must hold every
   * role the user holds, and the last active IAM_OWNER keeps its role (409). 404 when it has none.
   */
  removeInstanceMember(editorUserId: string | null, userId: string): Promise<void> {
    return this.uow.run(async (manager) => {
      const user = await manager.findOneBy(UserEntity, { id: userId });
      if (!user) throw DomainError.notFound('user');
      await this.access.assertMayActOn(manager, editorUserId, user.id);
      await this.access.assertKeepsAnIamOwner(manager, user, 'demote');
      await this.revoke(manager, editorUserId, user.id, 'instance', INSTANCE_ID);
    });
  }

  /** Takes every role on the organization from one of its users; same rule as setOrgMember. 404 when it has none. */
  removeOrgMember(editorUserId: string | null, orgId: string, userId: string): Promise<void> {
    return this.uow.run(async (manager) => {
      const user = await this.access.actOn(manager, editorUserId, orgId, userId);
      await this.revoke(manager, editorUserId, user.id, 'org', orgId);
    });
  }

  /** Deletes one membership with its `*.member.removed` event, inside the caller's transaction; 404 when there is none. */
  async revoke(manager: EntityManager, editorUserId: string | null, userId: string, scopeType: 'instance' | 'org', scopeId: string): Promise<void> {
    const { affected } = await manager.delete(MembershipEntity, { userId, scopeType, scopeId });
    if (affected !== 1) throw DomainError.notFound('member');
    await this.events.push(manager, {
      type: scopeType === 'instance' ? 'instance.member.removed' : 'org.member.removed',
      aggregateType: scopeType === 'instance' ? 'instance' : 'org',
      aggregateId: scopeId,
      resourceOwner: scopeId,
      editorUserId,
      payload: { userId },
    });
  }

  /** With `query`: the members whose user matches it as the user search does (user name, names, e-mail: users/rules/user-search.ts). */
  private async list(scopeType: 'instance' | 'org', scopeId: string, page: Page, query?: string): Promise<Paged<Member>> {
    const select = this.uow.manager
      .createQueryBuilder(MembershipEntity, 'm')
      .where('m.scopeType = :scopeType AND m.scopeId = :scopeId', { scopeType, scopeId })
      .orderBy('m.userId', 'ASC')
      .limit(page.limit)
      .offset(page.offset);
    if (query)
      select.andWhere("EXISTS (SELECT 1 FROM users u WHERE u.id = m.user_id AND u.search_text LIKE :query ESCAPE '!')", { query: likeContains(query) });
    const [rows, total] = await select.getManyAndCount();
    return { items: rows.map((row) => ({ userId: row.userId, roles: parseRoles(row.roles) })), total };
  }

  /** Nobody hands out a role it does not hold itself (on the instance, or on that organization). */
  private async assertGrantable(manager: EntityManager, editorUserId: string | null, orgId: string | null, roles: Role[]): Promise<void> {
    if (editorUserId === null) return;
    const editor = (await this.access.rolesOf(manager, [editorUserId])).get(editorUserId) ?? noRoles();
    const held = orgId === null ? expandRoles(editor.instanceRoles) : new Set(ORG_ROLES.filter((role) => holdsOn(editor, orgId, role)));
    const missing = roles.filter((role) => !held.has(role));
    if (missing.length > 0)
      throw new DomainError(ErrorCode.PermissionDenied, `the caller does not hold ${[...new Set(missing)].join(', ')} and cannot grant it`);
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
    const column = formatRoles(roles);
    await manager.upsert(MembershipEntity, { userId: user.id, scopeType, scopeId, roles: column, changedAt: new Date() }, ['userId', 'scopeType', 'scopeId']);
    await this.events.push(manager, {
      type: scopeType === 'instance' ? 'instance.member.added' : 'org.member.added',
      aggregateType: scopeType === 'instance' ? 'instance' : 'org',
      aggregateId: scopeId,
      resourceOwner: scopeId,
      editorUserId,
      payload: { userId: user.id, roles: parseRoles(column) },
    });
  }
}
