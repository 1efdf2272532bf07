import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** Removes a module's rows that belong to an organization, in the transaction that removes the organization. */
export type OrgResourceRemover = (manager: EntityManager, orgId: string, editorUserId: string | null) => Promise<void>;

/**
 * Modules outside the users domain that keep rows per organization (webhook subscriptions) register a
 * remover here; removing an organization (src/users/organization-removal.service.ts) runs them all in its
 * transaction. It lives in common because the domain may not import a surface, and nothing imports
 * src/webhooks (docs/architecture.md, "The parts").
 */
@Injectable()
export class OrgResources {
  private readonly removers: OrgResourceRemover[] = [];

  register(remover: OrgResourceRemover): void {
    this.removers.push(remover);
  }

  async removeIn(manager: EntityManager, orgId: string, editorUserId: string | null): Promise<void> {
    for (const remove of this.removers) await remove(manager, orgId, editorUserId);
  }
}
