import { Role } from '../../common/auth/roles.js';
import { holdsOn } from './acting-rule.js';
import type { HeldRoles } from './acting-rule.js';

/** Who changes a group's members, as far as the rule needs to know: what the caller is, not how it called. */
export interface MembershipEditor {
  userId: string;
  /** Read from the user row (`users.type`), never inferred from the credential it presented. */
  isMachine: boolean;
  roles: HeldRoles;
}

/**
 * Why `editor` may not add or remove `memberIds` in a group that holds grants of `projects`, or null when it may
 * (docs/application-access.md, "Groups that hold a grant"). A member of such a group enters the projects' applications
 * and learns their roles, so changing the membership is granting:
 * - nobody changes their own membership (an owner grants itself nothing unseen, a provisioning client neither);
 * - an ORG_OWNER may, as it may create the grant itself;
 * - a machine user with ORG_USER_MANAGER may: it is an enterprise IdP's SCIM client (RFC 7644 §3.5.2) feeding
 *   group-based assignment, whose decisions were made in that IdP;
 * - a human ORG_USER_MANAGER may not: it would hand out access its role does not give it.
 * A group that holds no grant is left to the acting rule (acting-rule.ts).
 */
export function grantGroupRefusal(editor: MembershipEditor, orgId: string, memberIds: readonly string[], projects: readonly string[]): string | null {
  if (projects.length === 0 || memberIds.length === 0) return null;
  const held = `this group holds a grant of ${projects.length === 1 ? 'project' : 'projects'} ${projects.map((p) => JSON.stringify(p)).join(', ')}`;
  if (memberIds.includes(editor.userId)) return `${held}: nobody changes their own membership of a group that holds a project grant`;
  if (mayChangeGrantGroupsOf(editor, orgId)) return null;
  return `${held}: only an ORG_OWNER, or a machine user with ORG_USER_MANAGER (SCIM provisioning), may change its members`;
}

/** Whether `editor` may change other users' membership of the organization's groups that hold a grant (rule above). */
export function mayChangeGrantGroupsOf(editor: Omit<MembershipEditor, 'userId'>, orgId: string): boolean {
  return holdsOn(editor.roles, orgId, Role.OrgOwner) || (editor.isMachine && holdsOn(editor.roles, orgId, Role.OrgUserManager));
}

/**
 * Why `issuer` may not issue or replace a secret, key or personal access token of the machine user holding
 * `machine`, or null when it may (docs/application-access.md, "Groups that hold a grant"). Whoever holds the
 * credential acts as the machine, and a machine ORG_USER_MANAGER changes the members of grant-holding groups: so
 * only a caller that could change them itself issues it. Otherwise a human ORG_USER_MANAGER, a peer under the acting
 * rule, would mint the machine a PAT, add itself to such a group and enter its projects. Roles the issuer lacks
 * altogether are the acting rule's to refuse (acting-rule.ts).
 */
export function machineCredentialRefusal(issuer: Omit<MembershipEditor, 'userId'>, machine: HeldRoles): string | null {
  // Organization roles only: an instance role (IAM_OWNER) is one the issuer must hold itself under the acting rule.
  for (const orgId of machine.orgRoles.keys()) {
    if (!holdsOn(machine, orgId, Role.OrgUserManager) || mayChangeGrantGroupsOf(issuer, orgId)) continue;
    return (
      'this machine user holds ORG_USER_MANAGER, with which it may change the members of groups that hold a project grant; ' +
      'only an ORG_OWNER, or a machine user with ORG_USER_MANAGER, may issue or replace its secret, keys and personal access tokens'
    );
  }
  return null;
}
