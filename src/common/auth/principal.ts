import { Role, expandRoles } from './roles.js';

/** The authenticated caller of a request, resolved from its bearer token. */
export interface Principal {
  userId: string;
  /** The organization the user belongs to. */
  orgId: string;
  userType: 'human' | 'machine';
  /** Roles held on the instance. */
  instanceRoles: ReadonlySet<Role>;
  /** Roles held per organization id. */
  orgRoles: ReadonlyMap<string, ReadonlySet<Role>>;
  /** How the caller authenticated; an access token also names its client. */
  credential: { kind: 'personal_access_token'; tokenId: string } | { kind: 'access_token'; clientId: string; jkt?: string };
}

/** Whether the caller's token is DPoP-bound (RFC 9449 §6: `cnf.jkt`), so usable only with a proof of its key. */
export function isDpopBound(principal: Principal): principal is Principal & { credential: { kind: 'access_token'; clientId: string; jkt: string } } {
  return principal.credential.kind === 'access_token' && typeof principal.credential.jkt === 'string';
}

function isIamOwner(principal: Principal): boolean {
  return principal.instanceRoles.has(Role.IamOwner);
}

/** Effective roles of the principal on one organization, implied roles included. */
export function rolesOnOrg(principal: Principal, orgId: string): Set<Role> {
  return expandRoles([...principal.instanceRoles, ...(principal.orgRoles.get(orgId) ?? [])]);
}

/**
 * Whether the organization is visible to the principal at all. Outside it, every answer is 404
 * (docs/product-rules.md, "API"), so that a caller cannot learn which organizations exist.
 */
export function canSeeOrg(principal: Principal, orgId: string): boolean {
  return isIamOwner(principal) || principal.orgId === orgId || principal.orgRoles.has(orgId);
}
