import { Inject, Injectable, Optional } from '@nestjs/common';
import { USER_TOKENS } from '../../common/auth/user-tokens.js';
import type { AgentConsent, UserTokens } from '../../common/auth/user-tokens.js';
import type { Page, Paged } from '../../common/database/page.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { UserAccess } from '../../users/acting/user-access.service.js';
import { UserDirectory } from '../../users/user-directory.service.js';
import type { UserName } from '../../users/user-directory.service.js';

/**
 * The administrators' side of the people's connected agents (docs/agents.md, "Consent and connected agents"): listed
 * per organization and per user; a revoke ends the consent and every token of that client for the person, as the
 * account page's revoke does, under the acting rule (SECURITY.md).
 */
@Injectable()
export class UserAgentsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly access: UserAccess,
    private readonly directory: UserDirectory,
    @Optional() @Inject(USER_TOKENS) private readonly tokens?: UserTokens,
  ) {}

  /**
   * A page of the consents of the organization's people, with the names of those people: every one is a user of
   * this organization (the list is by the person's organization), whom the route's role may read.
   */
  async ofOrg(orgId: string, page: Page, query?: string): Promise<Paged<AgentConsent> & { people: UserName[] }> {
    if (!this.tokens) return { items: [], total: 0, people: [] };
    const { items, total } = await this.tokens.orgAgentConsents(orgId, page, query);
    return { items, total, people: await this.directory.namesOf(items.map((consent) => consent.userId)) };
  }

  async ofUser(orgId: string, userId: string): Promise<AgentConsent[]> {
    await this.directory.get(orgId, userId);
    return this.tokens ? this.tokens.agentConsents(userId) : [];
  }

  revoke(editorUserId: string | null, orgId: string, userId: string, clientId: string): Promise<void> {
    return this.uow.run(async (manager) => {
      const user = await this.access.actOn(manager, editorUserId, orgId, userId);
      const ended = await this.tokens?.endAgentConsent(manager, { orgId: user.orgId, userId: user.id, clientId }, editorUserId);
      if (!ended) throw DomainError.notFound('agent');
    });
  }
}
