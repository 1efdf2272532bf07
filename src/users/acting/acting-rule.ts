import { Role, expandRoles } from '../../common/auth/roles.js';

/** The roles one user holds, on the instance and per organization id (as stored, implied roles not added). */
export interface HeldRoles {
  instanceRoles: ReadonlySet<Role>;
  orgRoles: ReadonlyMap<string, ReadonlySet<Role>>;
}

/**
 * The roles of `target` that `actor` does not hold in the same place (SECURITY.md, "Who may act on
 * whom"): an actor may change, credential, delete or impersonate a user only when it holds every role that
 * user holds, anywhere. Implied roles count (an IAM_OWNER holds every organization role of every
 * organization, an ORG_OWNER holds ORG_USER_MANAGER), so an IAM_OWNER lacks nothing and peers may act on
 * each other. Empty means allowed.
 */
export function rolesLacking(actor: HeldRoles, target: HeldRoles): Role[] {
  const lacking = new Set<Role>();
  const onInstance = expandRoles(actor.instanceRoles);
  for (const role of target.instanceRoles) if (!onInstance.has(role)) lacking.add(role);
  for (const [orgId, roles] of target.orgRoles) {
    const held = expandRoles([...actor.instanceRoles, ...(actor.orgRoles.get(orgId) ?? [])]);
    for (const role of roles) if (!held.has(role)) lacking.add(role);
  }
  return [...lacking].sort();
}

/** Whether roles held on an organization include the role, implied roles counted. */
export function holdsOn(held: HeldRoles, orgId: string, role: Role): boolean {
  return expandRoles([...held.instanceRoles, ...(held.orgRoles.get(orgId) ?? [])]).has(role);
}

export function isIamOwner(held: HeldRoles): boolean {
  return held.instanceRoles.has(Role.IamOwner);
}

/** Every role's name, built once: each authenticated request parses its caller's roles. */
const KNOWN_ROLES = new Set<string>(Object.values(Role));

/** Parses the comma-separated `roles` column of a membership row; unknown values are dropped. */
export function parseRoles(column: string | null | undefined): Role[] {
  return (column ?? '').split(',').filter((role): role is Role => KNOWN_ROLES.has(role));
}

/** The `roles` column for a set of roles: each once, sorted, comma-separated (what parseRoles reads). */
export function formatRoles(roles: Iterable<Role>): string {
  return [...new Set(roles)].sort().join(',');
}

export function noRoles(): HeldRoles {
  return { instanceRoles: new Set(), orgRoles: new Map() };
}
