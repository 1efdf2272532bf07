import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** Removes a module's rows that belong to an organization, in the transaction that removes the organization. */
export type OrgResourceRemover = (manager: EntityManager, orgId: string, editorUserId: string | null) => Promise<void>;

/**
 * A module's rows per organization that are removed in batches, each batch a transaction of its own, after the
 * organization's applications and before its projects: `revokeIssued` first (what was issued to them, in
 * transactions of its own), then `removeSome` until a batch comes back short, and once more without a limit in the
 * organization's last transaction. Each call answers the ids it removed.
 */
export interface BatchedOrgResource {
  revokeIssued(orgId: string): Promise<void>;
  removeSome(manager: EntityManager, editorUserId: string | null, orgId: string, limit?: number): Promise<unknown[]>;
}

/**
 * Modules outside the users domain that keep rows per organization (webhook subscriptions, agents' registered clients) register a
 * remover here; removing an organization (src/users/organization-removal.service.ts) runs them all in its
 * transaction. It lives in common because the domain may not import a surface, and nothing imports
 * src/webhooks (docs/architecture.md, "The parts").
 */
@Injectable()
export class OrgResources {
  private readonly removers: OrgResourceRemover[] = [];
  private readonly batchedResources: BatchedOrgResource[] = [];

  register(remover: OrgResourceRemover): void {
    this.removers.push(remover);
  }

  registerBatched(resource: BatchedOrgResource): void {
    this.batchedResources.push(resource);
  }

  get batched(): readonly BatchedOrgResource[] {
    return this.batchedResources;
  }

  async removeIn(manager: EntityManager, orgId: string, editorUserId: string | null): Promise<void> {
    for (const remove of this.removers) await remove(manager, orgId, editorUserId);
  }
}
