import { DomainError } from '../../common/errors/domain-error.js';
import type { Role } from '../../common/auth/roles.js';
import type { MembershipsService } from '../../users/memberships.service.js';
import type { PlannedMember } from '../migration-plan.js';
import type { MigrationTally } from '../migration-tally.js';
import type { RunContext } from './user-step.js';

/**
 * Members' organization roles as the source says (docs/migrating.md, "ZITADEL"): set when they differ, through the
 * memberships service and its acting rule (docs/product-rules.md, "Who may act on whom").
 */
export class MemberStep {
  constructor(
    private readonly memberships: MembershipsService,
    private readonly tally: MigrationTally,
    private readonly run: RunContext,
  ) {}

  async apply(members: PlannedMember[], userTargets: Map<string, string>): Promise<void> {
    const { editorUserId, orgId, dryRun } = this.run;
    const held = new Map<string, string[]>();
    if (orgId !== '') {
      for (let offset = 0; ; offset += 1000) {
        const page = await this.memberships.listOrgMembers(orgId, { limit: 1000, offset });
        for (const m of page.items) held.set(m.userId, [...m.roles].sort());
        if (page.items.length < 1000) break;
      }
    }
    for (const member of members) {
      const userId = userTargets.get(member.userSourceId);
      if (userId === undefined) {
        this.tally.fail({ kind: 'member', sourceId: member.userSourceId, message: 'the member is not a user of this migration' });
        continue;
      }
      const roles = [...member.roles].sort();
      const current = held.get(userId);
      if (current?.join() === roles.join()) {
        this.tally.count('member', 'unchanged');
        continue;
      }
      try {
        if (!dryRun) await this.memberships.setOrgMember(editorUserId, orgId, userId, roles as Role[]);
        this.tally.count('member', current ? 'updated' : 'created');
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        this.tally.fail({ kind: 'member', sourceId: member.userSourceId, message: error.message });
      }
    }
  }
}
