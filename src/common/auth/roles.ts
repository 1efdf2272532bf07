export enum Role {
  IamOwner = 'IAM_OWNER',
  OrgOwner = 'ORG_OWNER',
  OrgUserManager = 'ORG_USER_MANAGER',
}

export const INSTANCE_ROLES = [Role.IamOwner] as const;
export const ORG_ROLES = [Role.OrgOwner, Role.OrgUserManager] as const;

/** Roles a held role implies (docs/product-rules.md, "API"): an IAM_OWNER holds every organization role, an ORG_OWNER holds ORG_USER_MANAGER. */
const IMPLIED: Record<Role, Role[]> = {
  [Role.IamOwner]: [Role.IamOwner, Role.OrgOwner, Role.OrgUserManager],
  [Role.OrgOwner]: [Role.OrgOwner, Role.OrgUserManager],
  [Role.OrgUserManager]: [Role.OrgUserManager],
};

export function expandRoles(roles: Iterable<Role>): Set<Role> {
  const out = new Set<Role>();
  for (const role of roles) for (const implied of IMPLIED[role]) out.add(implied);
  return out;
}
