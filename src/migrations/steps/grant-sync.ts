import { DomainError } from '../../common/errors/domain-error.js';
import type { ProjectGrantsService } from '../../users/project-access/project-grants.service.js';
import type { MigrationTally } from '../migration-tally.js';
import type { RunContext } from './user-step.js';

/**
 * Each user's grant in a project as the source says: added, its roles changed, or left as it is (counted under
 * `grant`). Users the source does not name keep their grants: a document may hold a part of the users only.
 */
export async function syncGrants(
  grantsService: ProjectGrantsService,
  run: RunContext,
  tally: MigrationTally,
  label: string,
  projectId: string,
  grants: (readonly [string, string[]])[],
): Promise<void> {
  if (grants.length === 0) return;
  const { editorUserId, orgId, dryRun } = run;
  const held = new Map<string, { id: string; roles: string[] }>();
  if (orgId !== '' && projectId !== '') {
    for (let offset = 0; ; offset += 1000) {
      const page = await grantsService.list(orgId, projectId, {}, { limit: 1000, offset });
      for (const g of page.items) if (g.userId) held.set(g.userId, { id: g.id, roles: g.roles });
      if (page.items.length < 1000) break;
    }
  }
  for (const [userId, roles] of grants) {
    const grant = held.get(userId);
    const same = grant !== undefined && [...grant.roles].sort().join('\n') === [...roles].sort().join('\n');
    if (same) {
      tally.count('grant', 'unchanged');
      continue;
    }
    try {
      if (!dryRun) {
        if (grant) await grantsService.change(editorUserId, orgId, projectId, grant.id, roles);
        else await grantsService.add(editorUserId, orgId, projectId, { userId, roles });
      }
      tally.count('grant', grant ? 'updated' : 'created');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      tally.fail({ kind: 'grant', sourceId: userId, message: `the grant of ${label}: ${error.message}` });
    }
  }
}
