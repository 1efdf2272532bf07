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
  if (holdsOn(editor.roles, orgId, Role.OrgOwner)) return null;
  if (editor.isMachine && holdsOn(editor.roles, orgId, Role.OrgUserManager)) return null;
  return `${held}: only an ORG_OWNER, or a machine user with ORG_USER_MANAGER (SCIM provisioning), may change its members`;
}
