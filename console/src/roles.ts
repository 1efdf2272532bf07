import type { Schema } from './api';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** GET /auth/v1/users/me: the signed-in user's organization and roles (implied roles not expanded). */
export type Me = Schema<'MeDto'>;

/** docs/product-rules.md, "API": an IAM_OWNER holds every organization role, an ORG_OWNER holds ORG_USER_MANAGER. */
const IMPLIED: Record<string, string[]> = {
  IAM_OWNER: ['IAM_OWNER', 'ORG_OWNER', 'ORG_USER_MANAGER'],
  ORG_OWNER: ['ORG_OWNER', 'ORG_USER_MANAGER'],
  ORG_USER_MANAGER: ['ORG_USER_MANAGER'],
};

export function isInstanceOwner(me: Me): boolean {
  return me.instanceRoles.includes('IAM_OWNER');
}

/** The roles the user holds on an organization, implied ones included: what the API will allow there. */
export function rolesOn(me: Me, orgId: string): Set<string> {
  const held = [...me.instanceRoles, ...(me.orgRoles.find((o) => o.orgId === orgId)?.roles ?? [])];
  return new Set(held.flatMap((role) => IMPLIED[role] ?? []));
}

/** The organizations the user may manage: its own and those it holds roles on (an instance owner: all, chosen on the organizations page). */
export function managedOrgIds(me: Me): string[] {
  return [...new Set([me.orgId, ...me.orgRoles.map((o) => o.orgId)])].filter((orgId) => rolesOn(me, orgId).size > 0);
}

export const MeContext = createContext<Me | null>(null);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in console');
  return me;
}
