import type { EntityManager } from 'typeorm';
import { DomainError } from '../common/errors/domain-error.js';
import { projectNameIn } from '../users/project-access/project-names.js';
import type { TargetSettings } from './provisioning-settings.js';

/**
 * A target's `rolesFrom` names a project of the target's organization (docs/provisioning.md, "Roles"): any other id,
 * another organization's project included, is a 400 naming the field, and nothing is stored.
 */
export async function assertRolesProject(manager: EntityManager, orgId: string, projectId: string | null | undefined): Promise<void> {
  if (projectId === null || projectId === undefined) return;
  if ((await projectNameIn(manager, orgId, projectId)) === undefined)
    throw DomainError.invalidField('rolesFrom', `rolesFrom names a project the organization does not have: ${projectId}`);
}

/** A new roles project changes every pushed user: the log is read again from its beginning, as for a new scope. */
export function rolesSourceChanged(before: TargetSettings, after: TargetSettings): boolean {
  return (before.rolesFrom ?? null) !== (after.rolesFrom ?? null);
}
