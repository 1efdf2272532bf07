import { Inject, Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { USER_TOKENS } from '../../common/auth/user-tokens.js';
import type { UserTokens } from '../../common/auth/user-tokens.js';
import { allMembers } from '../groups/group.queries.js';

/**
 * A removed grant ends what it allowed (docs/agents.md, "Consent and connected agents"): called in the transaction
 * of a change that took a grant, one of its roles, or a membership of a group that carries one from people, after
 * the change, so the OIDC layer ends their agents' consents and tokens for resources they no longer enter in the same
 * commit as the change and its event.
 */
@Injectable()
export class GrantLoss {
  constructor(@Optional() @Inject(USER_TOKENS) private readonly tokens?: UserTokens) {}

  /** `groupId`: every current member of the group lost what its grant gave. */
  async ended(manager: EntityManager, of: { userIds?: readonly string[]; groupId?: string | null }, editorUserId: string | null): Promise<void> {
    if (!this.tokens) return;
    const userIds = [...(of.userIds ?? []), ...(of.groupId ? await allMembers(manager, of.groupId) : [])];
    if (userIds.length > 0) await this.tokens.endAgentsNoLongerAdmitted(manager, userIds, editorUserId);
  }
}
