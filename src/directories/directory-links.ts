import type { EntityManager } from 'typeorm';
import { DomainError } from '../common/errors/domain-error.js';
import { isInactive } from '../users/rules/user-state.js';
import type { UserAccess } from '../users/acting/user-access.service.js';
import type { UserLifecycleService } from '../users/user-lifecycle.service.js';
import { linksOf } from './directories.queries.js';
import type { DirectoryRow } from './directories.queries.js';

/**
 * A removed directory's users stay, as local users, inactive until linked again or removed (docs/directories.md,
 * "Removing a directory"): the directory that vouched for them is gone, so their sessions and tokens end with it.
 */
export async function unlinkAllIn(
  manager: EntityManager,
  users: { lifecycle: UserLifecycleService; access: UserAccess },
  editorUserId: string | null,
  row: DirectoryRow,
): Promise<void> {
  for (const link of await linksOf(manager, row.id)) {
    try {
      // Who acts here is the remover: a user holding roles the remover lacks stays as it is (docs/product-rules.md).
      const user = await users.access.actOn(manager, editorUserId, row.orgId, link.userId);
      if (!isInactive(user)) await users.lifecycle.deactivateIn(manager, editorUserId, user);
    } catch (error) {
      // Refused by the acting rule, or the last IAM_OWNER: it stays active, a local user like the others.
      if (!(error instanceof DomainError)) throw error;
    }
  }
}
