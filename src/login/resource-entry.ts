import type { EntityManager } from 'typeorm';
import type { ApplicationAccess } from '../users/project-access/application-access.service.js';
import { restrictedApisNamedBy } from '../users/queries/api-resources.js';
import type { RestrictedApiRow } from '../users/queries/api-resources.js';

/**
 * A resource admits whom its application admits (docs/application-access.md, "Resources of a restricted API
 * application"): the first API application with `access: "granted"` that the audience names, by its resource URI or
 * its project, and that no grant of its project lets the user enter; none when every one admits the user. Whichever
 * client asks, so a token for the resource is never issued, refreshed or honoured through another door. Read on use
 * from the committed grants (or the caller's transaction), like every other access check.
 */
export async function resourceRefusing(
  manager: EntityManager,
  access: ApplicationAccess,
  audience: readonly string[],
  userId: string,
): Promise<RestrictedApiRow | undefined> {
  const apis = await restrictedApisNamedBy(manager, audience);
  const decided = new Map<string, boolean>();
  for (const api of apis) {
    let admitted = decided.get(api.project_id);
    if (admitted === undefined) {
      admitted = await access.mayEnter({ projectId: api.project_id, access: 'granted' }, userId);
      decided.set(api.project_id, admitted);
    }
    if (!admitted) return api;
  }
  return undefined;
}

/** The values of a request's `resource` parameter (RFC 8707 §2: it may be repeated), without empty ones. */
export function resourcesOf(value: unknown): string[] {
  return [value].flat().filter((v): v is string => typeof v === 'string' && v !== '');
}
