import type { PlannedGroup } from '../migration-plan.js';
import type { KcGroup, KcRealm, KcUser } from './keycloak-document.js';

/** Keycloak's default roles: every user holds them, and they mean nothing here (docs/migrating.md, "Keycloak"). */
export function isBuiltInRealmRole(name: string, realm: string): boolean {
  return name === `default-roles-${realm.toLowerCase()}` || name === 'offline_access' || name === 'uma_authorization';
}

/** Every group of the tree with its full path (`/Engineering/Backend`), parents before children. */
export function flattenGroups(groups: KcGroup[], parent = ''): { group: KcGroup; path: string }[] {
  return groups.flatMap((group) => {
    const path = group.path ?? `${parent}/${group.name}`;
    return [{ group, path }, ...flattenGroups(group.subGroups ?? [], path)];
  });
}

/** `/A/B/C` → `/A/B/C`, `/A/B`, `/A`: a member of a subgroup holds the roles mapped to every group above it. */
function selfAndAncestors(path: string): string[] {
  const parts = path.split('/').filter((p) => p !== '');
  return parts.map((_, i) => `/${parts.slice(0, parts.length - i).join('/')}`);
}

/** The realm and client roles mapped to these groups and every group above them (Keycloak's group role inheritance). */
export function groupRolesOf(realm: KcRealm): (paths: string[]) => { realm: string[]; client: Record<string, string[]> } {
  const byPath = new Map(flattenGroups(realm.groups ?? []).map((g) => [g.path, g.group]));
  return (paths) => {
    const roles = { realm: [] as string[], client: {} as Record<string, string[]> };
    for (const path of paths) {
      for (const above of selfAndAncestors(path)) {
        const group = byPath.get(above);
        roles.realm.push(...(group?.realmRoles ?? []));
        for (const [clientId, keys] of Object.entries(group?.clientRoles ?? {})) (roles.client[clientId] ??= []).push(...keys);
      }
    }
    return roles;
  };
}

/**
 * Groups as Portcullis has them, flat and named by path, each keeping its direct members (a member of
 * `/Engineering/Backend` is not made a member of `/Engineering`); then one `role:<name>` group per realm role,
 * holding every user who has the role directly, through a group or its parents, or through a composite role —
 * so the role keeps arriving in the `groups` claim.
 */
export function planGroups(realm: KcRealm, users: KcUser[]): PlannedGroup[] {
  const tree = flattenGroups(realm.groups ?? []);
  const byPath = new Map(tree.map((g) => [g.path, g.group]));
  const membersOf = new Map<string, string[]>(tree.map((g) => [g.path, []]));
  for (const user of users) for (const path of user.groups ?? []) membersOf.get(path)?.push(user.id);

  const planned: PlannedGroup[] = tree.map(({ group, path }) => ({
    sourceId: group.id ?? path,
    displayName: path,
    externalId: group.id ?? null,
    memberSourceIds: membersOf.get(path) ?? [],
  }));

  const composites = new Map((realm.roles?.realm ?? []).map((role) => [role.name, role.composites?.realm ?? []]));
  const expand = (names: Iterable<string>): Set<string> => {
    const seen = new Set<string>();
    const queue = [...names];
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      queue.push(...(composites.get(name) ?? []));
    }
    return seen;
  };
  const holders = new Map<string, string[]>((realm.roles?.realm ?? []).map((role) => [role.name, []]));
  for (const user of users) {
    const direct = [...(user.realmRoles ?? [])];
    for (const path of user.groups ?? []) for (const above of selfAndAncestors(path)) direct.push(...(byPath.get(above)?.realmRoles ?? []));
    for (const role of expand(direct)) holders.get(role)?.push(user.id);
  }
  for (const role of realm.roles?.realm ?? []) {
    if (isBuiltInRealmRole(role.name, realm.realm)) continue;
    planned.push({
      sourceId: `role:${role.id ?? role.name}`,
      displayName: `role:${role.name}`,
      externalId: null,
      memberSourceIds: holders.get(role.name) ?? [],
    });
  }
  return planned;
}
