import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Role } from '../../common/auth/roles.js';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { lockingRead } from '../../common/database/locking-read.js';
import { placeholders } from '../../common/database/placeholders.js';
import { lockInstanceRow } from '../queries/instance.js';
import { UserEntity } from '../entities/user.entity.js';
import { holdsOn, isIamOwner, noRoles, parseRoles, rolesLacking } from './acting-rule.js';
import { grantGroupRefusal, machineCredentialRefusal } from './grant-group-rule.js';
import { projectsGrantedToGroup } from '../project-access/grant.queries.js';
import type { HeldRoles } from './acting-rule.js';
import { activeUserSql, isActive } from '../rules/user-state.js';

/** A change that could leave the instance without an active IAM_OWNER. */
type OwnerLoss = 'remove' | 'deactivate' | 'lock' | 'demote';

/**
 * The one place that decides whether a caller may act on a user (SECURITY.md, "Who may act on whom").
 * Every domain write on an existing user (state, password, profile, memberships, credentials, removal,
 * impersonation) asks it inside the transaction that writes, so the roles it compares are the ones the
 * write commits against. `null` as the editor is the service itself (bootstrap, import, sign-in
 * bookkeeping), which no request can impersonate.
 */
@Injectable()
export class UserAccess {
  /** The user of the organization, once the editor is known to hold every role it holds; 404 outside the organization. */
  async actOn(manager: EntityManager, editorUserId: string | null, orgId: string, userId: string): Promise<UserEntity> {
    const user = await manager.findOneBy(UserEntity, { id: userId, orgId });
    if (!user) throw DomainError.notFound('user');
    await this.assertMayActOn(manager, editorUserId, user.id);
    return user;
  }

  async assertMayActOn(manager: EntityManager, editorUserId: string | null, targetUserId: string): Promise<void> {
    if (editorUserId === null || editorUserId === targetUserId) return;
    const roles = await this.rolesOf(manager, [editorUserId, targetUserId]);
    const lacking = rolesLacking(roles.get(editorUserId) ?? noRoles(), roles.get(targetUserId) ?? noRoles());
    if (lacking.length > 0) {
      throw new DomainError(
        ErrorCode.PermissionDenied,
        `this user holds ${lacking.join(', ')}, which the caller lacks; only a holder of every role of a user may act on it`,
      );
    }
  }

  /** `assertMayActOn` for many targets with one read of their roles; names the first target refused. */
  async assertMayActOnEach(manager: EntityManager, editorUserId: string | null, targetUserIds: readonly string[]): Promise<void> {
    if (editorUserId === null || targetUserIds.length === 0) return;
    const roles = await this.rolesOf(manager, [editorUserId, ...targetUserIds]);
    const editor = roles.get(editorUserId) ?? noRoles();
    for (const target of targetUserIds) {
      if (target === editorUserId) continue;
      const lacking = rolesLacking(editor, roles.get(target) ?? noRoles());
      if (lacking.length > 0) {
        throw new DomainError(
          ErrorCode.PermissionDenied,
          `user ${target} holds ${lacking.join(', ')}, which the caller lacks; only a holder of every role of a user may act on it`,
        );
      }
    }
  }

  /**
   * Adding or removing `memberIds` in a group that holds a project grant is granting (grant-group-rule.ts): 403
   * naming the projects unless the editor may. Asked with the members the change really adds or removes, inside
   * the transaction that writes them.
   */
  async assertMayChangeMembersOf(
    manager: EntityManager,
    editorUserId: string | null,
    group: { id: string; orgId: string },
    memberIds: readonly string[],
  ): Promise<void> {
    if (editorUserId === null || memberIds.length === 0) return;
    const projects = await projectsGrantedToGroup(manager, group.id);
    if (projects.length === 0) return;
    const [editor, roles] = await Promise.all([
      manager.findOne(UserEntity, { where: { id: editorUserId }, select: { id: true, type: true } }),
      this.rolesOf(manager, [editorUserId]),
    ]);
    const refusal = grantGroupRefusal(
      { userId: editorUserId, isMachine: editor?.type === 'machine', roles: roles.get(editorUserId) ?? noRoles() },
      group.orgId,
      memberIds,
      projects,
    );
    if (refusal) throw new DomainError(ErrorCode.PermissionDenied, refusal);
  }

  /**
   * Issuing or replacing a credential of a machine user hands out what the machine may do: beyond the acting rule,
   * a machine that may change the members of grant-holding groups gets one only from a caller that may change them
   * itself (grant-group-rule.ts); 403 otherwise. Asked inside the transaction that writes the credential.
   */
  async assertMayIssueCredentialOf(manager: EntityManager, editorUserId: string | null, machine: Pick<UserEntity, 'id'>): Promise<void> {
    if (editorUserId === null || editorUserId === machine.id) return;
    const [editor, roles] = await Promise.all([
      manager.findOne(UserEntity, { where: { id: editorUserId }, select: { id: true, type: true } }),
      this.rolesOf(manager, [editorUserId, machine.id]),
    ]);
    const refusal = machineCredentialRefusal(
      { isMachine: editor?.type === 'machine', roles: roles.get(editorUserId) ?? noRoles() },
      roles.get(machine.id) ?? noRoles(),
    );
    if (refusal) throw new DomainError(ErrorCode.PermissionDenied, refusal);
  }

  /**
   * Why `actorId` may not impersonate `subjectId`, or null when it may (SECURITY.md, "Who may act on
   * whom"): an actor administers the subject (IAM_OWNER, or ORG_OWNER of its organization) and holds
   * every role it holds. Asked when impersonation starts and again whenever a token carrying it is used,
   * so the token dies with the actor's role.
   */
  async impersonationRefusal(manager: EntityManager, actorId: string, subjectId: string): Promise<string | null> {
    const [subject, actorUser] = await Promise.all([manager.findOneBy(UserEntity, { id: subjectId }), manager.findOneBy(UserEntity, { id: actorId })]);
    if (!subject) return 'the user no longer exists';
    if (!actorUser || !isActive(actorUser)) return 'the actor is not active';
    const roles = await this.rolesOf(manager, [actorId, subjectId]);
    const actor = roles.get(actorId) ?? noRoles();
    if (!holdsOn(actor, subject.orgId, Role.OrgOwner)) return 'the actor may not impersonate users of this organization';
    const lacking = rolesLacking(actor, roles.get(subjectId) ?? noRoles());
    return lacking.length === 0 ? null : `the actor may not impersonate this user: it holds ${lacking.join(', ')}, which the actor lacks`;
  }

  /**
   * Before an organization's users are removed batch by batch (organization-removal.service.ts), what would
   * refuse any of them refuses the whole removal up front: a user holding a role the editor lacks (403), or
   * the organization holding every active IAM_OWNER (409). Only users with a membership can fail either.
   */
  async assertMayRemoveUsersOf(manager: EntityManager, editorUserId: string | null, orgId: string): Promise<void> {
    const members: { user_id: string }[] = await manager.query(
      'SELECT DISTINCT m.user_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.org_id = ?',
      [orgId],
    );
    await this.assertMayActOnEach(
      manager,
      editorUserId,
      members.map((m) => m.user_id),
    );
    const owners: { inside: number | string; outside: number | string }[] = await manager.query(
      `SELECT SUM(CASE WHEN u.org_id = ? THEN 1 ELSE 0 END) AS inside, SUM(CASE WHEN u.org_id <> ? THEN 1 ELSE 0 END) AS outside
        FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.scope_type = 'instance' AND m.roles LIKE ? AND ${activeUserSql('u')}`,
      [orgId, orgId, `%${Role.IamOwner}%`],
    );
    if (Number(owners[0]?.inside ?? 0) > 0 && Number(owners[0]?.outside ?? 0) === 0) {
      throw new DomainError(ErrorCode.Conflict, `the last active IAM_OWNER cannot be ${PAST.remove}; make another user IAM_OWNER first`);
    }
  }

  /** The stored roles of each user (users without a membership are absent). */
  async rolesOf(manager: EntityManager, userIds: string[]): Promise<Map<string, HeldRoles>> {
    const ids = [...new Set(userIds)];
    const rows: { user_id: string; scope_type: string; scope_id: string; roles: string }[] = await manager.query(
      `SELECT user_id, scope_type, scope_id, roles FROM memberships WHERE user_id IN (${placeholders(ids.length)})`,
      ids,
    );
    const result = new Map<string, { instanceRoles: Set<Role>; orgRoles: Map<string, Set<Role>> }>();
    for (const row of rows) {
      let held = result.get(row.user_id);
      if (!held) result.set(row.user_id, (held = { instanceRoles: new Set(), orgRoles: new Map() }));
      const roles = parseRoles(row.roles);
      if (row.scope_type === 'instance') roles.forEach((role) => held.instanceRoles.add(role));
      else held.orgRoles.set(row.scope_id, new Set(roles));
    }
    return result;
  }

  /**
   * No API call removes, deactivates, locks or demotes the last active IAM_OWNER: the instance would be
   * left without anyone able to administer it. The instance row is taken first (a write: on Galera it is
   * certified across nodes), so two concurrent changes to the last two owners cannot both see the other one
   * still active.
   */
  async assertKeepsAnIamOwner(manager: EntityManager, user: Pick<UserEntity, 'id' | 'state'>, change: OwnerLoss): Promise<void> {
    if (!isActive(user)) return;
    await lockInstanceRow(manager);
    const roles = await this.rolesOf(manager, [user.id]);
    if (!isIamOwner(roles.get(user.id) ?? noRoles())) return;
    // A locking read: what is committed now, not the snapshot of the transaction's first read (taken before the
    // instance row was), which may predate the other owner's change.
    const [row]: { n: number | string }[] = await manager.query(
      `SELECT COUNT(*) AS n FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.scope_type = 'instance' AND m.roles LIKE ? AND ${activeUserSql('u')} AND u.id <> ?${lockingRead(manager)}`,
      [`%${Role.IamOwner}%`, user.id],
    );
    if (Number(row?.n ?? 0) === 0) {
      throw new DomainError(ErrorCode.Conflict, `the last active IAM_OWNER cannot be ${PAST[change]}; make another user IAM_OWNER first`);
    }
  }
}

const PAST: Record<OwnerLoss, string> = { remove: 'removed', deactivate: 'deactivated', lock: 'locked', demote: 'demoted' };
