import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { Role } from '../common/auth/roles.js';
import { UserAccess } from '../users/acting/user-access.service.js';
import { deleteIdentity, identitiesOf, identityConflicts, insertIdentity } from './federation.queries.js';
import { IdentityProvidersService } from './identity-providers.service.js';

export interface IdentityView {
  idpId: string;
  subject: string;
  linkedAt: string;
  lastUsedAt: string | null;
}

/**
 * Upstream identities linked to a user (docs/federation.md), by the management API. Every call follows the acting rule
 * (SECURITY.md: the caller holds every role of the user); linking a user who holds any role at all is for an IAM_OWNER
 * only — else an organization owner could configure an IdP that asserts, and link, the name of an instance owner.
 */
@Injectable()
export class UserIdentitiesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly access: UserAccess,
    private readonly idps: IdentityProvidersService,
  ) {}

  async list(editorUserId: string | null, orgId: string, userId: string): Promise<IdentityView[]> {
    await this.access.actOn(this.uow.manager, editorUserId, orgId, userId);
    return (await identitiesOf(this.uow.manager, userId)).map((row) => ({
      idpId: row.idpId,
      subject: row.subject,
      linkedAt: new Date(row.linkedAt).toISOString(),
      lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt).toISOString(),
    }));
  }

  link(editorUserId: string | null, orgId: string, userId: string, idpId: string, subject: string): Promise<IdentityView> {
    return this.linkAs(editorUserId, orgId, userId, idpId, subject, (manager) => this.assertMayLink(manager, editorUserId, userId));
  }

  /**
   * A person links an identity to itself on the account page (docs/account.md: the way for a person who holds roles),
   * having signed in locally within the last minutes and then upstream as that identity: both proofs are its own.
   */
  linkOwn(userId: string, orgId: string, idpId: string, subject: string): Promise<IdentityView> {
    return this.linkAs(userId, orgId, userId, idpId, subject, async () => undefined);
  }

  private async linkAs(
    editorUserId: string | null,
    orgId: string,
    userId: string,
    idpId: string,
    subject: string,
    mayLink: (manager: EntityManager) => Promise<void>,
  ): Promise<IdentityView> {
    const linkedAt = Date.now();
    await this.uow.run(async (manager) => {
      const user = await this.access.actOn(manager, editorUserId, orgId, userId);
      if (user.type !== 'human')
        throw DomainError.invalid('only a person signs in through an identity provider', [{ field: 'userId', message: 'a service user cannot be linked' }]);
      await mayLink(manager);
      await this.idps.find(manager, orgId, idpId);
      const { subjectTaken, userLinked } = await identityConflicts(manager, idpId, subject, userId);
      if (subjectTaken) throw DomainError.alreadyExists('this upstream identity is already linked to a user');
      if (userLinked) throw DomainError.alreadyExists('the user is already linked to another identity of this identity provider');
      await insertIdentity(manager, { idpId, subject, userId, linkedAt, lastUsedAt: null });
      await this.events.push(manager, {
        type: 'user.idp.link.added',
        aggregateType: 'user',
        aggregateId: userId,
        resourceOwner: orgId,
        editorUserId,
        payload: { idpId, subject },
      });
    });
    return { idpId, subject, linkedAt: new Date(linkedAt).toISOString(), lastUsedAt: null };
  }

  async unlink(editorUserId: string | null, orgId: string, userId: string, idpId: string, subject: string): Promise<void> {
    await this.uow.run(async (manager) => {
      await this.access.actOn(manager, editorUserId, orgId, userId);
      if (!(await deleteIdentity(manager, userId, idpId, subject))) throw DomainError.notFound('identity');
      await this.events.push(manager, {
        type: 'user.idp.link.removed',
        aggregateType: 'user',
        aggregateId: userId,
        resourceOwner: orgId,
        editorUserId,
        payload: { idpId, subject },
      });
    });
  }

  /** A user who holds any role is linked by an IAM_OWNER only (docs/federation.md, "Who the upstream identity is"). */
  private async assertMayLink(manager: EntityManager, editorUserId: string | null, userId: string): Promise<void> {
    if (editorUserId === null) return;
    const roles = await this.access.rolesOf(manager, [editorUserId, userId]);
    const target = roles.get(userId);
    const holdsAnyRole = !!target && (target.instanceRoles.size > 0 || [...target.orgRoles.values()].some((r) => r.size > 0));
    if (holdsAnyRole && !roles.get(editorUserId)?.instanceRoles.has(Role.IamOwner)) {
      throw new DomainError(ErrorCode.PermissionDenied, 'this user holds a role: only an IAM_OWNER may link an upstream identity to it');
    }
  }
}
